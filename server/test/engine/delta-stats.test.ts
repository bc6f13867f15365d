import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeStats } from '../../src/engine/delta/stats.js';
import { DuckDB, type SqlConnection } from '../../src/engine/duckdb.js';
import { quoteString } from '../../src/engine/sql.js';
import { scanStats } from './scan-stats.js';

let duckdb: DuckDB;
let connection: SqlConnection;
let dir: string;

beforeAll(async () => {
  duckdb = await DuckDB.open({ threads: 2 });
  connection = await duckdb.connect();
  dir = await mkdtemp(join(tmpdir(), 'delta-stats-'));
});

afterAll(async () => {
  connection.close();
  duckdb.close();
  await rm(dir, { recursive: true, force: true });
});

/** Writes a query's rows to Parquet in row groups of `rowGroupSize` rows (DuckDB's smallest is 2048). */
async function parquet(select: string, rowGroupSize = 2048): Promise<string> {
  const path = join(dir, `${randomUUID()}.parquet`);
  await connection.run(`COPY (${select}) TO ${quoteString(path)} (FORMAT parquet, ROW_GROUP_SIZE ${rowGroupSize})`);
  return path;
}

async function rowGroups(path: string): Promise<number> {
  const [row] = await connection.query(
    `SELECT num_row_groups::INTEGER AS n FROM parquet_file_metadata(${quoteString(path)})`,
  );
  return Number(row?.n);
}

async function footer(path: string, indexedColumns?: number): Promise<string> {
  const columns = await connection.describe(`SELECT * FROM read_parquet(${quoteString(path)})`);
  const { stats, numRecords } = await computeStats(connection, path, columns, indexedColumns);
  expect(JSON.parse(stats).numRecords).toBe(numRecords);
  return stats;
}

// 10 000 rows over several row groups: values spread so that every row group holds a different
// minimum and maximum, NULLs here and there, and a row group where some columns are only NULL.
const EVERY_TYPE = `
  SELECT
    CASE WHEN i % 7 = 0 THEN NULL ELSE [i, i + 1] END AS list_first,
    MAP {'k': i} AS map_too,
    CASE WHEN i < 2048 THEN NULL ELSE (i % 200 - 100)::TINYINT END AS tiny,
    (i * 3 - 15000)::SMALLINT AS small,
    CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 7919 % 10007 - 5000)::INTEGER END AS int,
    (i::BIGINT * 922337203685477 - 4611686018427387904) AS big,
    CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7919 % 10007) / 7.0 - 700 END::DOUBLE AS dbl,
    ((i * 31 % 1000) / 10.0)::FLOAT AS flt,
    CASE WHEN i % 3 = 0 THEN NULL ELSE 'name-' || (i * 7919 % 10007) END AS str,
    CASE i % 4 WHEN 0 THEN '\uFFFD' || i WHEN 1 THEN '😀' || i WHEN 2 THEN 'é' || i ELSE 'Z' || i END AS uni,
    repeat('long', 9) || (i * 7919 % 10007) AS over_prefix,
    i % 2 = 0 AS flag,
    CASE WHEN i % 13 = 0 THEN NULL ELSE DATE '1970-01-01' + (i * 7919 % 10007 - 5000)::INTEGER END AS day,
    TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_microseconds((i * 7919 % 10007)::BIGINT * 1000003 - 4999999999) AS at,
    ((i * 7919 % 10007 - 5000) / 100)::DECIMAL(10, 2) AS amount,
    ((i * 7919 % 10007 - 5000)::DECIMAL(38, 10) * 12345678901234.5) AS wide,
    encode('b' || i) AS bin,
    NULL::VARCHAR AS nothing,
    {'x': CASE WHEN i % 17 = 0 THEN NULL ELSE i END, 'y': {'z': 'n' || (i % 100)}} AS nested,
    CASE WHEN i % 19 = 0 THEN NULL ELSE {'w': i * 2} END AS nullable_struct
  FROM range(0, 10000) AS t(i)`;

describe('Delta statistics from the Parquet footer', () => {
  it('equal the statistics of a full scan, for every kind of column over several row groups', async () => {
    const path = await parquet(EVERY_TYPE);
    expect(await rowGroups(path)).toBeGreaterThan(3);
    const stats = await footer(path);
    expect(stats).toBe(await scanStats(connection, path));
    // The check is not vacuous: bounds were found for the columns that can have them.
    const parsed = JSON.parse(stats);
    expect(Object.keys(parsed.minValues)).toEqual([
      'tiny',
      'small',
      'int',
      'big',
      'dbl',
      'flt',
      'str',
      'uni',
      'over_prefix',
      'day',
      'at',
      'amount',
      'wide',
      'nested',
      'nullable_struct',
    ]);
    expect(parsed.maxValues.over_prefix).toBeUndefined();
    // UTF-8 order, not UTF-16's: U+FFFD sorts below U+1F600.
    expect(parsed.maxValues.uni).toMatch(/^😀/);
    expect(parsed.nullCount).toMatchObject({ tiny: 2048, nothing: 10000, flag: 0, bin: 0 });
    expect(stats).toContain(`"big":${9999n * 922337203685477n - 4611686018427387904n}`);
  });

  it('equal a scan when some columns are past the indexed-column limit', async () => {
    const path = await parquet(EVERY_TYPE);
    for (const limit of [0, 3, 13, 14]) {
      expect(await footer(path, limit)).toBe(await scanStats(connection, path, limit));
    }
  });

  it('leave out a floating bound that NaN or an infinity stands on', async () => {
    const path = await parquet(`
      SELECT
        CASE WHEN i = 5000 THEN 'NaN'::DOUBLE ELSE i / 3 END::DOUBLE AS has_nan,
        CASE WHEN i = 9000 THEN '-inf'::DOUBLE ELSE i END::DOUBLE AS has_low,
        CASE WHEN i = 10 THEN 'inf'::FLOAT ELSE i END::FLOAT AS has_high,
        CASE WHEN i % 2 = 0 THEN 'NaN'::DOUBLE END AS only_nan,
        i::DOUBLE AS finite
      FROM range(0, 10000) AS t(i)`);
    const stats = await footer(path);
    expect(stats).toBe(await scanStats(connection, path));
    const parsed = JSON.parse(stats);
    expect(parsed.minValues).toEqual({ has_high: 0, finite: 0 });
    expect(parsed.maxValues).toEqual({ has_low: 9999, finite: 9999 });
    expect(parsed.nullCount).toEqual({ has_nan: 0, has_low: 0, has_high: 0, only_nan: 5000, finite: 0 });
  });

  it('leave out string bounds the writer did not keep whole, but keep their null count', async () => {
    // DuckDB writes no min/max for very long strings; a prefix of them would not be exact.
    const path = await parquet(`
      SELECT CASE WHEN i % 4 = 0 THEN NULL ELSE repeat('x', 20000) || i END AS huge, 'k' || i AS small
      FROM range(0, 5000) AS t(i)`);
    const parsed = JSON.parse(await footer(path));
    expect(parsed.minValues).toEqual({ small: 'k0' });
    expect(parsed.maxValues).toEqual({ small: 'k999' });
    expect(parsed.nullCount).toEqual({ huge: 1250, small: 0 });
  });

  it('write zero records and zero NULLs for a file without rows', async () => {
    const path = await parquet(`SELECT 1::INTEGER AS a, 'x' AS b, {'c': 1.5} AS s WHERE false`);
    const stats = await footer(path);
    expect(stats).toBe(await scanStats(connection, path));
    expect(JSON.parse(stats)).toEqual({
      numRecords: 0,
      minValues: {},
      maxValues: {},
      nullCount: { a: 0, b: 0, s: { c: 0 } },
    });
  });

  it('never contradict a scan on the files Spark and delta-rs wrote', async () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'delta');
    const files = (await readdir(root, { recursive: true }))
      .filter((name) => name.endsWith('.parquet') && !name.includes('_delta_log') && !name.includes('deletion_vector'))
      .map((name) => join(root, name));
    expect(files.length).toBeGreaterThan(10);
    let bounds = 0;
    for (const path of files) {
      const found = JSON.parse(await footer(path));
      const scanned = JSON.parse(await scanStats(connection, path));
      expect(found.numRecords).toBe(scanned.numRecords);
      // Each statistic the footer gives is the scan's; it may give fewer.
      for (const part of ['minValues', 'maxValues', 'nullCount'] as const) {
        const leaves = flatten(found[part]);
        for (const [key, value] of leaves)
          expect([path, part, key, value]).toEqual([path, part, key, flatten(scanned[part]).get(key)]);
        if (part !== 'nullCount') bounds += leaves.size;
      }
    }
    expect(bounds).toBeGreaterThan(0);
  });
});

function flatten(tree: Record<string, unknown>, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, value] of Object.entries(tree ?? {})) {
    if (typeof value === 'object' && value !== null)
      for (const entry of flatten(value as Record<string, unknown>, `${prefix}${key}.`)) out.set(...entry);
    else out.set(`${prefix}${key}`, value);
  }
  return out;
}
