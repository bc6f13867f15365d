import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import fc from 'fast-check';

/**
 * Tables as real data has them, for the property tests of issue 24: doubles mixing NaN, ±Infinity,
 * null, −0 and values near ±1.8e308; int64 extremes; unicode, empty, duplicate and very long
 * texts; empty and one-row tables, all-null and constant columns. Written as Parquet by DuckDB so
 * that the column types are exactly these (CSV type detection would make an all-null column text).
 */
export interface GeneratedRow {
  d: number | null;
  /** An int64 as decimal text (beyond 2^53 a JavaScript number would round). */
  i: string | null;
  s: string | null;
  b: boolean | null;
}

const SPECIAL_DOUBLES = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  0,
  -0,
  1.5,
  1.7e308,
  -1.7e308,
  Number.MAX_VALUE,
  5e-324,
  1e154,
];
const INT64 = [-(2n ** 63n), 2n ** 63n - 1n, 0n, 2n ** 53n + 1n];
const TEXTS = ['', 'a', 'Ünïcödé ✓ 漢字 🧬', 'x'.repeat(2000), '=1+1', 'NaN'];

const nullable = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null, freq: 5 });

const double = fc.oneof(fc.constantFrom(...SPECIAL_DOUBLES), fc.double(), fc.double({ min: -1000, max: 1000 }));
const int64 = fc.oneof(fc.constantFrom(...INT64), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }));
const text = fc.oneof(fc.constantFrom(...TEXTS), fc.string({ unit: 'grapheme', maxLength: 12 }));

const row: fc.Arbitrary<GeneratedRow> = fc.record({
  d: nullable(double),
  i: nullable(int64).map((value) => (value === null ? null : String(value))),
  s: nullable(text),
  b: nullable(fc.boolean()),
});

/** A column of one repeated value, or of nulls only, stays possible among the generated tables. */
const uniform = fc.record({ d: nullable(double), size: fc.integer({ min: 1, max: 5 }) });

export const tables: fc.Arbitrary<GeneratedRow[]> = fc.oneof(
  fc.array(row, { maxLength: 24 }),
  fc.tuple(uniform, row).map(([{ d, size }, template]) => Array.from({ length: size }, () => ({ ...template, d }))),
);

/** Tables kept as fixtures: shapes a property found or that must always be tried (issue 24). */
export const FIXTURE_TABLES: GeneratedRow[][] = [
  [],
  [{ d: Number.NaN, i: null, s: null, b: null }],
  [
    { d: 1.5, i: '9223372036854775807', s: 'a', b: true },
    { d: Number.NaN, i: '-9223372036854775808', s: 'a', b: false },
    { d: 2.5, i: '0', s: '', b: null },
    { d: Number.POSITIVE_INFINITY, i: null, s: 'Ünïcödé ✓ 漢字 🧬', b: true },
    { d: Number.NEGATIVE_INFINITY, i: '1', s: 'x'.repeat(2000), b: false },
  ],
  [
    { d: -1.7e308, i: '1', s: 'a', b: true },
    { d: 1.7e308, i: '2', s: 'b', b: true },
    { d: 0, i: '3', s: 'c', b: true },
  ],
  [
    { d: null, i: null, s: null, b: null },
    { d: null, i: null, s: null, b: null },
  ],
  // Neutralised formulas (`'=1+1`) on every row: a CSV reader left to guess took `'` for the quote.
  [
    { d: null, i: null, s: '=1+1', b: null },
    { d: null, i: null, s: '=1+1', b: null },
  ],
];

/** The rows as a Parquet file with columns d DOUBLE, i BIGINT, s VARCHAR, b BOOLEAN. */
export async function parquetOf(rows: readonly GeneratedRow[]): Promise<Buffer> {
  const folder = await mkdtemp(join(tmpdir(), 'generated-table-'));
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run('CREATE TABLE t (d DOUBLE, i BIGINT, s VARCHAR, b BOOLEAN)');
    for (const { d, i, s, b } of rows) {
      // Doubles go as text (DuckDB reads 'NaN', 'Infinity', '-Infinity'; a whole number such as
      // 1.7e308 would be bound as an int64), −0 keeping its sign.
      const double = d === null ? null : Object.is(d, -0) ? '-0.0' : String(d);
      await connection.run('INSERT INTO t VALUES (CAST($1 AS DOUBLE), CAST($2 AS BIGINT), $3, $4)', [double, i, s, b]);
    }
    const path = join(folder, 't.parquet');
    await connection.run(`COPY t TO '${path}' (FORMAT parquet)`);
    return await readFile(path);
  } finally {
    connection.closeSync();
    instance.closeSync();
    await rm(folder, { recursive: true, force: true });
  }
}

/** A downloaded table's `d` and `i` columns as text, in the file's row order (`i` exactly as stored). */
export interface DownloadedRow {
  d: string | null;
  i: string | null;
}

/**
 * Reads a CSV or Parquet download back with DuckDB: CSV cells as the text written (every column
 * read as text, so nothing is converted on the way back; the dialect given, as a sniffer would take
 * the `'` of a neutralised formula for a quote); Parquet doubles in the same spelling.
 */
export async function downloadedRows(content: Buffer, format: 'csv' | 'parquet'): Promise<DownloadedRow[]> {
  const folder = await mkdtemp(join(tmpdir(), 'downloaded-table-'));
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const path = join(folder, `t.${format}`);
    await writeFile(path, content);
    const source =
      format === 'csv'
        ? `read_csv('${path}', header = true, all_varchar = true, delim = ',', quote = '"', escape = '"')`
        : `read_parquet('${path}')`;
    // DuckDB prints a double's NaN and infinities as nan/inf: written back as downloads spell them.
    const d =
      format === 'csv'
        ? 'd'
        : `CASE WHEN isnan(d) THEN 'NaN' WHEN isinf(d) THEN CASE WHEN d > 0 THEN 'Infinity' ELSE '-Infinity' END ELSE CAST(d AS VARCHAR) END`;
    const reader = await connection.runAndReadAll(`SELECT ${d} AS d, CAST(i AS VARCHAR) AS i FROM ${source}`);
    return reader.getRowObjectsJS().map((row) => ({ d: row.d as string | null, i: row.i as string | null }));
  } finally {
    connection.closeSync();
    instance.closeSync();
    await rm(folder, { recursive: true, force: true });
  }
}

/** A double as a download writes it: `NaN`, `Infinity`, `-Infinity`, else a number's text. */
export function parseDownloadedDouble(text: string | null): number | null {
  if (text === null) return null;
  const value = Number(text);
  if (Number.isNaN(value) && text !== 'NaN') throw new Error(`not a number as written: ${JSON.stringify(text)}`);
  return value;
}
