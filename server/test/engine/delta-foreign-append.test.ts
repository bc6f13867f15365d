import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCommitClaims } from '../../src/engine/delta/commit-claims.js';
import { createDeltaEngine } from '../../src/engine/delta/engine.js';
import { DeltaTable } from '../../src/engine/delta/table.js';
import { writableSelectList } from '../../src/engine/delta/types.js';
import { DuckDB, type JsonValue, type SqlConnection } from '../../src/engine/duckdb.js';
import { quoteIdentifier, quoteString } from '../../src/engine/sql.js';
import { LocalStorage } from '../../src/storage/local.js';
import { type Action, type Replayed, replayLog } from './independent-replay.js';
import { parquetGlob, rowsOf, sortedRows } from './support.js';

/**
 * Our writer appending to tables Spark and delta-rs wrote, checked the way another engine would
 * see the result: the log against the Delta protocol, and the rows through DuckDB's Parquet
 * reader over the file list of an independent log replay (independent-replay.ts), as well as
 * through our own reader. Each table gets a copy of every active data file appended (same
 * partition values), so the table afterwards must hold each row exactly twice.
 */

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'delta');
const TABLES = [
  'snapshot-data2-deleted',
  'basic-with-inserts-deletes-checkpoint',
  'basic_partitioned',
  'delta-2.2.0-partitioned-types',
  'data-reader-partition-values',
  'time-travel-schema-changes-b',
  'app-txn-checkpoint',
];
/** Tables whose source ships Spark's own rows at the latest version. */
const SPARK_EXPECTED = new Set([
  'snapshot-data2-deleted',
  'basic-with-inserts-deletes-checkpoint',
  'time-travel-schema-changes-b',
]);

/**
 * PROTOCOL.md "Checkpoint Schema" for a reader-1/writer-2 table, as DuckDB reads the Parquet types
 * (int → INTEGER, long → BIGINT, map<string,string> → MAP(VARCHAR, VARCHAR), array → []).
 */
const CHECKPOINT_SCHEMA = {
  protocol: 'STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER)',
  metaData:
    'STRUCT(id VARCHAR, "name" VARCHAR, description VARCHAR, format STRUCT(provider VARCHAR, "options" MAP(VARCHAR, VARCHAR)), schemaString VARCHAR, partitionColumns VARCHAR[], "configuration" MAP(VARCHAR, VARCHAR), createdTime BIGINT)',
  txn: 'STRUCT(appId VARCHAR, "version" BIGINT, lastUpdated BIGINT)',
  add: 'STRUCT(path VARCHAR, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, stats VARCHAR, tags MAP(VARCHAR, VARCHAR))',
  remove:
    'STRUCT(path VARCHAR, deletionTimestamp BIGINT, dataChange BOOLEAN, extendedFileMetadata BOOLEAN, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT)',
};

/** Delta primitive types as DuckDB types, for partition values. */
function duckType(type: unknown): string {
  if (typeof type !== 'string') throw new Error(`partition column of type ${JSON.stringify(type)}`);
  const decimal = /^decimal\((\d+),\s*(\d+)\)$/.exec(type);
  if (decimal) return `DECIMAL(${decimal[1]}, ${decimal[2]})`;
  const types: Record<string, string> = {
    string: 'VARCHAR',
    long: 'BIGINT',
    integer: 'INTEGER',
    short: 'SMALLINT',
    byte: 'TINYINT',
    float: 'FLOAT',
    double: 'DOUBLE',
    boolean: 'BOOLEAN',
    date: 'DATE',
    // Partition timestamps are written in UTC (PROTOCOL.md "Partition Value Serialization").
    timestamp: 'TIMESTAMP',
    binary: 'BLOB',
  };
  const mapped = types[type];
  if (mapped === undefined) throw new Error(`no DuckDB type for ${type}`);
  return mapped;
}

let duckdb: DuckDB;
let connection: SqlConnection;
let dir: string;

beforeAll(async () => {
  duckdb = await DuckDB.open({ threads: 2 });
  connection = await duckdb.connect();
  dir = await mkdtemp(join(tmpdir(), 'delta-foreign-'));
});

afterAll(async () => {
  connection.close();
  duckdb.close();
  await rm(dir, { recursive: true, force: true });
});

/** The table's rows, read by DuckDB's Parquet reader over the replayed file list alone. */
async function readIndependently(root: string, state: Replayed): Promise<Record<string, JsonValue>[]> {
  const schema = JSON.parse(state.metaData.schemaString as string) as { fields: { name: string; type: unknown }[] };
  const partitionColumns = state.metaData.partitionColumns as string[];
  const selects: string[] = [];
  for (const add of state.files.values()) {
    const file = join(root, decodeURIComponent(add.path as string));
    const source = `read_parquet(${quoteString(file)}, hive_partitioning = false)`;
    const present = new Set((await connection.describe(`SELECT * FROM ${source}`)).map((column) => column.name));
    const values = add.partitionValues as Record<string, string | null>;
    const list = schema.fields.map((field) => {
      const name = quoteIdentifier(field.name);
      if (partitionColumns.includes(field.name)) {
        const value = values[field.name];
        // An empty string is a null partition value for every type but string.
        const isNull = value === null || value === undefined || (value === '' && field.type !== 'string');
        const typed = `${isNull ? 'NULL' : quoteString(value)}::${duckType(field.type)}`;
        // Delta timestamps are instants: the serialized value is UTC.
        return `${field.type === 'timestamp' ? `timezone('UTC', ${typed})` : typed} AS ${name}`;
      }
      return present.has(field.name) ? name : `NULL AS ${name}`;
    });
    selects.push(`SELECT ${list.join(', ')} FROM ${source}`);
  }
  if (selects.length === 0) return [];
  return rowsOf(connection, selects.join(' UNION ALL BY NAME '));
}

async function readOurs(table: DeltaTable): Promise<Record<string, JsonValue>[]> {
  const scan = await table.scan(connection);
  try {
    return await rowsOf(connection, scan.sql);
  } finally {
    scan.release();
  }
}

const twice = (rows: Record<string, JsonValue>[]) => sortedRows([...rows, ...rows]);

/** The single-key action objects of one JSON commit. */
async function commitActions(root: string, version: number): Promise<Action[]> {
  const text = await readFile(join(root, '_delta_log', `${String(version).padStart(20, '0')}.json`), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Action);
}

/** DuckDB's min, max and null count of a data file's top-level columns. */
async function columnFacts(file: string) {
  const source = `read_parquet(${quoteString(file)}, hive_partitioning = false)`;
  const columns = await connection.describe(`SELECT * FROM ${source}`);
  const facts = new Map<string, { type: string; min: JsonValue; max: JsonValue; nulls: number; longest: number }>();
  for (const column of columns) {
    if (column.type.kind !== 'scalar' && column.type.kind !== 'decimal') continue;
    const name = quoteIdentifier(column.name);
    const type = column.type.kind === 'decimal' ? 'DECIMAL' : column.type.name;
    const text = type === 'VARCHAR' ? `max(length(${name}))` : '0';
    const [row] = await connection.query(
      `SELECT to_json(min(${name}))::VARCHAR AS min, to_json(max(${name}))::VARCHAR AS max,
              (count(*) - count(${name}))::INTEGER AS nulls, coalesce(${text}, 0)::INTEGER AS longest FROM ${source}`,
    );
    facts.set(column.name, {
      type,
      min: JSON.parse(String(row!.min)) as JsonValue,
      max: JSON.parse(String(row!.max)) as JsonValue,
      nulls: Number(row!.nulls),
      longest: Number(row!.longest),
    });
  }
  return facts;
}

/** A statistics bound and DuckDB's value of the same column agree. */
function sameBound(type: string, bound: unknown, value: JsonValue): boolean {
  if (type === 'TIMESTAMP_TZ' || type === 'TIMESTAMP')
    return Date.parse(String(bound)) === Date.parse(`${value}Z`.replace(/([+-]\d\d(:\d\d)?)Z$/, '$1'));
  if (['FLOAT', 'DOUBLE', 'DECIMAL'].includes(type))
    return Math.abs(Number(bound) - Number(value)) < 1e-6 * Math.max(1, Math.abs(Number(value)));
  if (['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT'].includes(type)) return Number(bound) === Number(value);
  return bound === value;
}

describe('appending with our writer to tables other engines wrote', () => {
  it.each(TABLES)('%s: a protocol-compliant log, and every reader sees each row twice', async (name) => {
    const copy = join(dir, name);
    await cp(join(FIXTURES, name, 'delta'), copy, { recursive: true });
    const before = await replayLog(copy);
    const originalRows = await readIndependently(copy, before);
    if (SPARK_EXPECTED.has(name)) {
      // The independent replay reads what Spark says the table holds.
      expect(originalRows).toEqual(
        await rowsOf(connection, parquetGlob(join(FIXTURES, name, 'expected', 'latest', '*.parquet'))),
      );
    }
    const engine = createDeltaEngine({ storage: new LocalStorage(dir), duckdb, tempDirectory: dir });
    const table = new DeltaTable(engine, new InMemoryCommitClaims(), name, name);
    const ourOriginalRows = await readOurs(table);

    // A copy of every active file, written by DuckDB as the upsert service writes data files.
    await mkdir(join(dir, 'staging'), { recursive: true });
    const sources = [...before.files.values()];
    const added = [];
    for (const [index, add] of sources.entries()) {
      const source = `read_parquet(${quoteString(join(copy, decodeURIComponent(add.path as string)))}, hive_partitioning = false)`;
      const staged = join(dir, 'staging', `${name}-${index}.parquet`);
      const columns = await connection.describe(`SELECT * FROM ${source}`);
      await connection.run(
        `COPY (SELECT ${writableSelectList(columns)} FROM ${source}) TO ${quoteString(staged)} (FORMAT parquet)`,
      );
      added.push({ localPath: staged, partitionValues: add.partitionValues as Record<string, string | null> });
    }
    const result = await table.commit({ operation: 'WRITE', add: added }, { checkpointInterval: 1 });
    expect(result.version).toBe(before.version + 1);

    // The commit: one action per line, nothing but commitInfo and adds (protocol and metaData untouched).
    const actions = await commitActions(copy, result.version);
    for (const action of actions) expect(Object.keys(action)).toHaveLength(1);
    expect(actions.map((action) => Object.keys(action)[0]).sort()).toEqual(
      ['commitInfo', ...sources.map(() => 'add')].sort(),
    );
    const info = actions.find((action) => 'commitInfo' in action)!.commitInfo!;
    expect(info).toMatchObject({ operation: 'WRITE', readVersion: before.version, isBlindAppend: true });
    expect(typeof info.timestamp).toBe('number');

    const after = await replayLog(copy);
    expect(after.version).toBe(result.version);
    expect(after.protocol).toEqual(before.protocol);
    expect(after.metaData).toEqual(before.metaData);
    expect(after.txns).toEqual(before.txns);
    const partitionColumns = before.metaData.partitionColumns as string[];
    const newAdds = actions.filter((action) => 'add' in action).map((action) => action.add!);
    const canonical = (values: Record<string, unknown>) => JSON.stringify(Object.entries(values).sort());
    const stagedPartitions = added.map((file) => canonical(file.partitionValues));
    let checkedBounds = 0;
    for (const add of newAdds) {
      expect(Object.keys(add).sort()).toEqual([
        'dataChange',
        'modificationTime',
        'partitionValues',
        'path',
        'size',
        'stats',
      ]);
      expect(add.dataChange).toBe(true);
      expect(typeof add.path).toBe('string');
      expect(add.path as string).not.toMatch(/^\/|^[a-z]+:/);
      expect(Number.isSafeInteger(add.modificationTime)).toBe(true);
      const values = add.partitionValues as Record<string, unknown>;
      expect(Object.keys(values).sort()).toEqual([...partitionColumns].sort());
      for (const value of Object.values(values)) expect(value === null || typeof value === 'string').toBe(true);
      // The values given, as given: one add per staged file.
      expect(stagedPartitions).toContain(canonical(values));
      const file = join(copy, decodeURIComponent(add.path as string));
      const [{ size }] = (await connection.query(
        `SELECT size::BIGINT AS size FROM read_blob(${quoteString(file)})`,
      )) as [{ size: unknown }];
      expect(add.size).toBe(Number(size));

      const stats = JSON.parse(add.stats as string) as {
        numRecords: number;
        minValues?: Record<string, unknown>;
        maxValues?: Record<string, unknown>;
        nullCount?: Record<string, unknown>;
      };
      const [{ n }] = (await connection.query(
        `SELECT count(*)::INTEGER AS n FROM read_parquet(${quoteString(file)})`,
      )) as [{ n: number }];
      expect(stats.numRecords).toBe(n);
      for (const [column, facts] of await columnFacts(file)) {
        expect(stats.nullCount?.[column], `nullCount.${column}`).toBe(facts.nulls);
        const bounded = [
          'TINYINT',
          'SMALLINT',
          'INTEGER',
          'BIGINT',
          'FLOAT',
          'DOUBLE',
          'DECIMAL',
          'DATE',
          'TIMESTAMP_TZ',
        ];
        const wholeStrings = facts.type === 'VARCHAR' && facts.longest <= 32;
        if (facts.min === null || !(bounded.includes(facts.type) || wholeStrings)) continue;
        expect(sameBound(facts.type, stats.minValues?.[column], facts.min), `minValues.${column}`).toBe(true);
        expect(sameBound(facts.type, stats.maxValues?.[column], facts.max), `maxValues.${column}`).toBe(true);
        checkedBounds += 1;
      }
    }

    expect(checkedBounds).toBeGreaterThan(0);

    // Both readers: every row twice.
    expect(await readIndependently(copy, after)).toEqual(twice(originalRows));
    expect(await readOurs(table)).toEqual(twice(ourOriginalRows));
    expect(await readOurs(table)).toEqual(await readIndependently(copy, after));

    // The checkpoint we wrote rebuilds the same state, and has the protocol's checkpoint schema.
    const fromCheckpoint = await replayLog(copy, { fromCheckpoint: true, connection });
    expect(fromCheckpoint.checkpointVersion).toBe(result.version);
    expect([...fromCheckpoint.files.keys()].sort()).toEqual([...after.files.keys()].sort());
    expect(fromCheckpoint.protocol).toEqual(after.protocol);
    expect(fromCheckpoint.metaData.schemaString).toEqual(after.metaData.schemaString);
    expect(fromCheckpoint.metaData.partitionColumns).toEqual(after.metaData.partitionColumns);
    expect(await readIndependently(copy, fromCheckpoint)).toEqual(twice(originalRows));
    const checkpoint = join(copy, '_delta_log', `${String(result.version).padStart(20, '0')}.checkpoint.parquet`);
    const described = await connection.query(
      `SELECT column_name AS name, column_type AS type FROM (DESCRIBE SELECT * FROM read_parquet(${quoteString(checkpoint)}))`,
    );
    expect(Object.fromEntries(described.map((row) => [row.name, row.type]))).toEqual(CHECKPOINT_SCHEMA);
    const hint = JSON.parse(await readFile(join(copy, '_delta_log', '_last_checkpoint'), 'utf8')) as Record<
      string,
      unknown
    >;
    const [{ rows }] = (await connection.query(
      `SELECT count(*)::INTEGER AS rows FROM read_parquet(${quoteString(checkpoint)})`,
    )) as [{ rows: number }];
    expect(hint).toMatchObject({ version: result.version, size: rows });
  });
});

describe('tables our writer creates', () => {
  it('read the same through the independent replay, from JSON and from our checkpoint', async () => {
    const root = join(dir, 'ours');
    const engine = createDeltaEngine({ storage: new LocalStorage(dir), duckdb, tempDirectory: dir });
    const table = new DeltaTable(engine, new InMemoryCommitClaims(), 'ours', 'ours');
    await mkdir(join(dir, 'staging'), { recursive: true });
    const file = async (version: number) => {
      const path = join(dir, 'staging', `ours-${version}.parquet`);
      await connection.run(
        `COPY (SELECT (${version} * 10 + i)::BIGINT AS id, 'v${version}' AS label FROM range(3) t(i)) TO ${quoteString(path)} (FORMAT parquet)`,
      );
      return path;
    };
    // v0 creates the table partitioned by `site` (one null partition); v1–v10 append, every third
    // replacing the previous version's file; v10 gets a checkpoint.
    const expected: Record<string, JsonValue>[] = [];
    let previous: { path: string; version: number } | null = null;
    for (let version = 0; version <= 10; version++) {
      const site = version % 4 === 0 ? null : `site ${version % 2}/é`;
      const replace = previous !== null && version % 3 === 0;
      const result = await table.commit({
        operation: 'WRITE',
        partitionColumns: ['site'],
        add: [{ localPath: await file(version), partitionValues: { site } }],
        ...(replace && previous !== null ? { remove: [previous.path] } : {}),
      });
      if (replace && previous !== null) {
        const gone = previous.version;
        expected.splice(0, expected.length, ...expected.filter((row) => row.label !== `v${gone}`));
      }
      for (let i = 0; i < 3; i++) expected.push({ id: version * 10 + i, label: `v${version}`, site });
      previous = { path: result.added[0]!.path, version };
    }

    const fromJson = await replayLog(root);
    expect(fromJson.version).toBe(10);
    expect(fromJson.protocol).toEqual({ minReaderVersion: 1, minWriterVersion: 2 });
    expect(fromJson.metaData.partitionColumns).toEqual(['site']);
    expect(JSON.parse(fromJson.metaData.schemaString as string)).toEqual({
      type: 'struct',
      fields: [
        { name: 'id', type: 'long', nullable: true, metadata: {} },
        { name: 'label', type: 'string', nullable: true, metadata: {} },
        { name: 'site', type: 'string', nullable: true, metadata: {} },
      ],
    });
    const want = sortedRows(expected);
    expect(await readIndependently(root, fromJson)).toEqual(want);
    const fromCheckpoint = await replayLog(root, { fromCheckpoint: true, connection });
    expect(fromCheckpoint.checkpointVersion).toBe(10);
    expect(await readIndependently(root, fromCheckpoint)).toEqual(want);
    expect(await readOurs(table)).toEqual(want);
  });
});
