import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeltaEngine, type DeltaEngine } from '../../src/engine/delta/engine.js';
import { UnsupportedTableFeature } from '../../src/engine/delta/errors.js';
import { createDeltaView, openScan } from '../../src/engine/delta/reader.js';
import { loadSnapshot } from '../../src/engine/delta/snapshot.js';
import { DuckDB, type JsonValue, type SqlConnection } from '../../src/engine/duckdb.js';
import { LocalStorage } from '../../src/storage/local.js';
import { parquetGlob, rowsOf, sortedRows } from './support.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'delta');

let duckdb: DuckDB;
let engine: DeltaEngine;
let connection: SqlConnection;

beforeAll(async () => {
  duckdb = await DuckDB.open({ threads: 2 });
  engine = createDeltaEngine({ storage: new LocalStorage(FIXTURES), duckdb });
  connection = await duckdb.connect();
});

afterAll(() => {
  connection.close();
  duckdb.close();
});

/** The rows of a fixture table at a version (latest by default), through a view. */
async function tableRows(table: string, version?: number, on: DeltaEngine = engine) {
  const snapshot = await loadSnapshot(on, `${table}/delta`, version === undefined ? {} : { version });
  const view = await createDeltaView(on, connection, 'fixture', snapshot);
  try {
    return { snapshot, rows: await rowsOf(connection, 'SELECT * FROM fixture') };
  } finally {
    await view.release();
  }
}

/** Spark's expected rows for a fixture table (`expected/latest` or `expected/vN`). */
async function expectedRows(table: string, which: string) {
  return rowsOf(connection, parquetGlob(join(FIXTURES, table, 'expected', which, '*.parquet')));
}

async function sums(table: string, version: number, column: string) {
  const snapshot = await loadSnapshot(engine, `${table}/delta`, { version });
  const scan = await openScan(engine, connection, snapshot);
  try {
    const [row] = await connection.query(
      `SELECT count(*)::INTEGER AS n, sum("${column}")::DOUBLE AS total FROM (${scan.sql})`,
    );
    return { rows: row!.n, sum: row!.total };
  } finally {
    scan.release();
  }
}

describe('snapshot-data2-deleted (appends, overwrite, DELETE, an empty file, no stats)', () => {
  const table = 'snapshot-data2-deleted';

  it('matches Spark at the latest version', async () => {
    const { snapshot, rows } = await tableRows(table);
    expect(snapshot.version).toBe(4);
    expect(snapshot.files).toHaveLength(3);
    expect(snapshot.files.every((file) => file.stats === null)).toBe(true);
    expect(rows).toEqual(await expectedRows(table, 'latest'));
    expect(rows).toHaveLength(20);
    expect(rows).toContainEqual({ col1: 19, col2: 'data-3-19' });
  });

  it.each([0, 1, 2, 3])('matches Spark at version %i (time travel)', async (version) => {
    const { snapshot, rows } = await tableRows(table, version);
    expect(snapshot.version).toBe(version);
    expect(rows).toEqual(await expectedRows(table, `v${version}`));
  });

  it('has the row counts and sums of the README', async () => {
    expect(await sums(table, 0, 'col1')).toEqual({ rows: 10, sum: 45 });
    expect(await sums(table, 1, 'col1')).toEqual({ rows: 20, sum: 90 });
    expect(await sums(table, 2, 'col1')).toEqual({ rows: 10, sum: 45 });
    expect(await sums(table, 3, 'col1')).toEqual({ rows: 30, sum: 235 });
    expect(await sums(table, 4, 'col1')).toEqual({ rows: 20, sum: 190 });
  });

  it('keeps per-version commit timestamps', async () => {
    const snapshot = await loadSnapshot(engine, `${table}/delta`);
    expect(snapshot.commits.map((commit) => commit.version)).toEqual([0, 1, 2, 3, 4]);
    for (const commit of snapshot.commits) expect(commit.timestamp).toBeGreaterThan(1_600_000_000_000);
    expect(snapshot.timestamp).toBe(snapshot.commits.at(-1)!.timestamp);
  });
});

describe('basic-with-inserts-deletes-checkpoint (checkpoint at 10, tombstones, stats)', () => {
  const table = 'basic-with-inserts-deletes-checkpoint';

  it('matches Spark at the latest version, read from the checkpoint', async () => {
    const { snapshot, rows } = await tableRows(table);
    expect(snapshot.version).toBe(13);
    expect(snapshot.checkpointVersion).toBe(10);
    expect(snapshot.commits.map((commit) => commit.version)).toEqual([11, 12, 13]);
    expect(snapshot.files).toHaveLength(7);
    expect(rows).toEqual(await expectedRows(table, 'latest'));
    expect(await sums(table, 13, 'id')).toEqual({ rows: 41, sum: 1470 });
    // Stats are parsed from the JSON strings.
    const file = snapshot.files.find((candidate) => candidate.stats?.minValues?.id === 50);
    expect(file?.stats).toMatchObject({ numRecords: 10, maxValues: { id: 59 }, nullCount: { id: 0 } });
    // The checkpoint's remove rows are tombstones, not files.
    expect(snapshot.tombstones.length).toBeGreaterThanOrEqual(5);
  });

  it('travels to every version', async () => {
    const expected: Record<number, { rows: number; sum?: number }> = {
      0: { rows: 10, sum: 45 },
      1: { rows: 20 },
      2: { rows: 30 },
      3: { rows: 40 },
      4: { rows: 50, sum: 1225 },
      5: { rows: 45 },
      6: { rows: 40 },
      7: { rows: 35 },
      8: { rows: 30 },
      9: { rows: 25, sum: 550 },
      10: { rows: 35, sum: 1095 },
      11: { rows: 45 },
      12: { rows: 55, sum: 2485 },
      13: { rows: 41, sum: 1470 },
    };
    for (const [version, want] of Object.entries(expected)) {
      const got = await sums(table, Number(version), 'id');
      expect(got.rows, `rows at v${version}`).toBe(want.rows);
      if (want.sum !== undefined) expect(got.sum, `sum at v${version}`).toBe(want.sum);
    }
    const atTen = await loadSnapshot(engine, `${table}/delta`, { version: 10 });
    expect(atTen.checkpointVersion).toBe(10);
    expect(atTen.commits).toEqual([]);
    const atNine = await loadSnapshot(engine, `${table}/delta`, { version: 9 });
    expect(atNine.checkpointVersion).toBeNull();
  });

  it('gives the same rows from JSON alone, and from the checkpoint alone', async () => {
    const root = await mkdtemp(join(tmpdir(), 'delta-fixture-'));
    try {
      const log = join(root, table, 'delta', '_delta_log');
      await cp(join(FIXTURES, table), join(root, table), { recursive: true });
      const copy = createDeltaEngine({ storage: new LocalStorage(root), duckdb });
      const expected = await expectedRows(table, 'latest');

      // Without `_last_checkpoint` the log is listed and the checkpoint still found.
      await rm(join(log, '_last_checkpoint'));
      const listed = await tableRows(table, undefined, copy);
      expect(listed.snapshot.checkpointVersion).toBe(10);
      expect(listed.rows).toEqual(expected);

      // Without any checkpoint: commits 0–13 replayed from JSON.
      await rm(join(log, '00000000000000000010.checkpoint.parquet'));
      const replayed = await tableRows(table, undefined, copy);
      expect(replayed.snapshot.checkpointVersion).toBeNull();
      expect(replayed.rows).toEqual(expected);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('basic_partitioned (string partition with a null partition)', () => {
  const table = 'basic_partitioned';

  it('reads the null partition as NULL, at v1 and v0', async () => {
    const latest = await tableRows(table);
    expect(latest.snapshot.version).toBe(1);
    expect(latest.snapshot.files).toHaveLength(6);
    expect(latest.rows).toEqual(
      sortedRows([
        { letter: 'a', number: 1, a_float: 1.1 },
        { letter: 'b', number: 2, a_float: 2.2 },
        { letter: 'c', number: 3, a_float: 3.3 },
        { letter: 'a', number: 4, a_float: 4.4 },
        { letter: 'e', number: 5, a_float: 5.5 },
        { letter: null, number: 6, a_float: 6.6 },
      ]),
    );
    const first = await tableRows(table, 0);
    expect(first.rows).toEqual(
      sortedRows([
        { letter: 'a', number: 1, a_float: 1.1 },
        { letter: 'b', number: 2, a_float: 2.2 },
        { letter: 'c', number: 3, a_float: 3.3 },
      ]),
    );
  });

  it('prunes by partition: a filter on the partition column reads only its files', async () => {
    const snapshot = await loadSnapshot(engine, `${table}/delta`);
    const scan = await openScan(engine, connection, snapshot);
    try {
      const rows = await rowsOf(connection, `SELECT number FROM (${scan.sql}) WHERE letter IS NULL`);
      expect(rows).toEqual([{ number: 6 }]);
      const [plan] = await connection.query(`EXPLAIN SELECT number FROM (${scan.sql}) WHERE letter = 'a'`);
      // Five partitions, one group left: the other branches of the union were dropped.
      expect(String(plan!.explain_value).match(/READ_PARQUET/g)!.length).toBeLessThanOrEqual(2);
      expect(await rowsOf(connection, `SELECT number FROM (${scan.sql}) WHERE letter = 'a'`)).toEqual([
        { number: 1 },
        { number: 4 },
      ]);
      const columns = await connection.describe(scan.sql);
      expect(columns.map((column) => column.name)).toEqual(['letter', 'number', 'a_float']);
    } finally {
      scan.release();
    }
  });
});

describe('delta-2.2.0-partitioned-types (int and string partitions)', () => {
  it('types the partition values by the schema', async () => {
    const { rows } = await tableRows('delta-2.2.0-partitioned-types');
    expect(rows).toEqual(
      sortedRows([
        { c1: 4, c2: 'c', c3: 5 },
        { c1: 5, c2: 'b', c3: 6 },
        { c1: 6, c2: 'a', c3: 4 },
      ]),
    );
    const columns = await connection.describe(
      (await openScan(engine, connection, await loadSnapshot(engine, 'delta-2.2.0-partitioned-types/delta'))).sql,
    );
    expect(columns.map((column) => column.type)).toEqual([
      { kind: 'scalar', name: 'INTEGER' },
      { kind: 'scalar', name: 'VARCHAR' },
      { kind: 'scalar', name: 'INTEGER' },
    ]);
  });
});

describe('data-reader-partition-values (every partition type, nulls, "null", percent-encoded paths)', () => {
  const table = 'data-reader-partition-values';

  it('reads every partition column with its type', async () => {
    const { snapshot, rows } = await tableRows(table);
    expect(snapshot.files).toHaveLength(3);
    // Decoded exactly once: the directory on disk holds "%3A".
    expect(snapshot.files.some((file) => file.path.includes('as_timestamp=2021-09-08 11%3A11%3A11/'))).toBe(true);
    const nested = (n: number) => ({
      as_list_of_records: [{ val: n }, { val: n }, { val: n }],
      as_nested_struct: { aa: String(n), ab: String(n), ac: { aca: n, acb: n } },
    });
    const partitioned = (n: number, boolean: boolean): Record<string, JsonValue> => ({
      as_int: n,
      as_long: n,
      as_byte: n,
      as_short: n,
      as_boolean: boolean,
      as_float: n,
      as_double: n,
      as_string: String(n),
      as_string_lit_null: 'null',
      as_date: '2021-09-08',
      as_timestamp: '2021-09-08 11:11:11+00',
      as_big_decimal: n,
    });
    const nulls: Record<string, JsonValue> = Object.fromEntries(
      Object.keys(partitioned(0, true)).map((key) => [key, null]),
    );
    expect(rows).toEqual(
      sortedRows([
        { ...partitioned(0, true), ...nested(0), value: '0' },
        { ...partitioned(1, false), ...nested(1), value: '1' },
        { ...nulls, ...nested(2), value: '2' },
      ]).map((row) => Object.fromEntries(snapshot.schema.fields.map((field) => [field.name, row[field.name]!]))),
    );
  });

  it('gives the SQL types of the schema', async () => {
    const snapshot = await loadSnapshot(engine, `${table}/delta`);
    const scan = await openScan(engine, connection, snapshot);
    try {
      const types = await connection.query(
        `SELECT typeof(as_byte) b, typeof(as_timestamp) t, typeof(as_big_decimal) d, typeof(as_float) f,
                epoch_us(as_timestamp)::VARCHAR us, as_string_lit_null IS NULL lit
         FROM (${scan.sql}) WHERE value = '0'`,
      );
      expect(types).toEqual([
        {
          b: 'TINYINT',
          t: 'TIMESTAMP WITH TIME ZONE',
          d: 'DECIMAL(1,0)',
          f: 'FLOAT',
          us: '1631099471000000',
          lit: false,
        },
      ]);
    } finally {
      scan.release();
    }
  });
});

describe('time-travel-schema-changes-b (a column added in v1)', () => {
  const table = 'time-travel-schema-changes-b';

  it('reads old files with NULL in the new column', async () => {
    const { snapshot, rows } = await tableRows(table);
    expect(snapshot.schema.fields.map((field) => field.name)).toEqual(['id', 'part']);
    expect(rows).toEqual(await expectedRows(table, 'latest'));
    expect(rows.filter((row) => row.part === null)).toHaveLength(10);
    expect(await sums(table, 1, 'part')).toEqual({ rows: 20, sum: 145 });
  });

  it('has only the old schema at v0', async () => {
    const { snapshot, rows } = await tableRows(table, 0);
    expect(snapshot.schema.fields.map((field) => field.name)).toEqual(['id']);
    expect(rows).toEqual(await expectedRows(table, 'v0'));
  });
});

describe('app-txn-checkpoint (delta-rs checkpoint, txn actions)', () => {
  const table = 'app-txn-checkpoint';
  const once = [
    ...[5, 6, 7, 10, 11].map((value) => ({ id: 'A', value, modified: '2021-02-01' })),
    ...[4, 8, 9].map((value) => ({ id: 'B', value, modified: '2021-02-01' })),
    ...[1, 3].map((value) => ({ id: 'A', value, modified: '2021-02-02' })),
    { id: 'B', value: 2, modified: '2021-02-02' },
  ];

  it('reads every row twice at v1, from the checkpoint', async () => {
    const { snapshot, rows } = await tableRows(table);
    expect(snapshot.version).toBe(1);
    expect(snapshot.checkpointVersion).toBe(1);
    expect(snapshot.files).toHaveLength(4);
    expect(rows).toEqual(sortedRows([...once, ...once]));
    expect(await sums(table, 1, 'value')).toEqual({ rows: 22, sum: 132 });
    expect(Object.fromEntries(Object.entries(snapshot.appTransactions).map(([id, txn]) => [id, txn.version]))).toEqual({
      'my-app': 3,
      'my-app2': 2,
    });
    expect(snapshot.schema.fields.map((field) => field.name)).toEqual(['id', 'value', 'modified']);
  });

  it('reads v0 from JSON', async () => {
    const { snapshot, rows } = await tableRows(table, 0);
    expect(rows).toEqual(sortedRows(once));
    expect(Object.keys(snapshot.appTransactions)).toEqual(['my-app']);
    expect(snapshot.appTransactions['my-app']?.version).toBe(1);
  });
});

describe('table-with-dv-small (deletion vectors)', () => {
  it.each([undefined, 0, 1])('is refused at version %s, naming deletion vectors', async (version) => {
    const load = loadSnapshot(engine, 'table-with-dv-small/delta', version === undefined ? {} : { version });
    await expect(load).rejects.toBeInstanceOf(UnsupportedTableFeature);
    await expect(load).rejects.toMatchObject({ feature: 'deletionVectors' });
    await expect(load).rejects.toThrow(/unsupported reader feature deletionVectors.*reader version 3/);
  });
});
