import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryCommitClaims } from '../../src/engine/delta/commit-claims.js';
import { createDeltaEngine, type DeltaEngine } from '../../src/engine/delta/engine.js';
import {
  CommitConflict,
  DeltaVersionNotFound,
  SchemaMismatch,
  UnsupportedTableFeature,
} from '../../src/engine/delta/errors.js';
import { loadSnapshot } from '../../src/engine/delta/snapshot.js';
import { DeltaTable } from '../../src/engine/delta/table.js';
import { writableSelectList } from '../../src/engine/delta/types.js';
import { DuckDB, type SqlConnection } from '../../src/engine/duckdb.js';
import { quoteString } from '../../src/engine/sql.js';
import { LocalStorage } from '../../src/storage/local.js';
import type { ObjectStorage } from '../../src/storage/storage.js';
import { rowsOf, sortedRows } from './support.js';

let duckdb: DuckDB;
let connection: SqlConnection;
let dir: string;
let storage: LocalStorage;
let engine: DeltaEngine;
let claims: InMemoryCommitClaims;

beforeAll(async () => {
  duckdb = await DuckDB.open({ threads: 2 });
  connection = await duckdb.connect();
});

afterAll(() => {
  connection.close();
  duckdb.close();
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'delta-writer-'));
  await mkdir(join(dir, 'staging'));
  storage = new LocalStorage(join(dir, 'storage'));
  engine = createDeltaEngine({ storage, duckdb, tempDirectory: dir });
  claims = new InMemoryCommitClaims();
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes the rows of a query to a local Parquet file, as the upsert service will. */
async function parquet(select: string): Promise<string> {
  const path = join(dir, 'staging', `${randomUUID()}.parquet`);
  await connection.run(`COPY (${select}) TO ${quoteString(path)} (FORMAT parquet)`);
  return path;
}

const ids = (from: number, count: number) =>
  `SELECT i::BIGINT AS id, 'row-' || i AS name FROM range(${from}, ${from + count}) AS t(i)`;

function table(id = 'table-1', on: DeltaEngine = engine): DeltaTable {
  return new DeltaTable(on, claims, id, `deltatables/${id}`);
}

async function read(target: DeltaTable, version?: number) {
  const snapshot = await target.snapshot(version === undefined ? {} : { version });
  const scan = await target.scan(connection, snapshot);
  try {
    return await rowsOf(connection, scan.sql);
  } finally {
    scan.release();
  }
}

async function logLines(target: DeltaTable, version: number): Promise<Record<string, Record<string, unknown>>[]> {
  const text = await readFile(
    join(dir, 'storage', target.root, '_delta_log', `${String(version).padStart(20, '0')}.json`),
    'utf8',
  );
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, Record<string, unknown>>);
}

describe('writing a table', () => {
  it('creates a table: protocol 1/2, metaData, add with stats, commitInfo', async () => {
    const t = table();
    const result = await t.commit({
      operation: 'CREATE TABLE',
      operationParameters: { mode: 'ErrorIfExists', partitionBy: [] },
      add: [{ localPath: await parquet(ids(0, 10)) }],
      expectedVersion: -1,
    });
    expect(result).toMatchObject({ version: 0, skipped: false, numRecords: 10, attempts: 1, checkpoint: null });
    expect(result.schema.fields.map((field) => [field.name, field.type])).toEqual([
      ['id', 'long'],
      ['name', 'string'],
    ]);
    const lines = await logLines(t, 0);
    expect(Object.keys(lines[0]!)).toEqual(['commitInfo']);
    expect(lines[0]!.commitInfo).toMatchObject({
      operation: 'CREATE TABLE',
      operationParameters: { mode: 'ErrorIfExists', partitionBy: '[]' },
      isBlindAppend: true,
    });
    expect(lines[1]).toEqual({ protocol: { minReaderVersion: 1, minWriterVersion: 2 } });
    expect(lines[2]!.metaData).toMatchObject({
      format: { provider: 'parquet', options: {} },
      partitionColumns: [],
      schemaString: JSON.stringify({
        type: 'struct',
        fields: [
          { name: 'id', type: 'long', nullable: true, metadata: {} },
          { name: 'name', type: 'string', nullable: true, metadata: {} },
        ],
      }),
    });
    const add = lines[3]!.add!;
    expect(add).toMatchObject({ partitionValues: {}, dataChange: true, path: result.added[0]!.path });
    expect(add.size).toBe((await storage.head(result.added[0]!.key))!.size);
    expect(JSON.parse(add.stats as string)).toEqual({
      numRecords: 10,
      minValues: { id: 0, name: 'row-0' },
      maxValues: { id: 9, name: 'row-9' },
      nullCount: { id: 0, name: 0 },
    });
    expect(await read(t)).toEqual(sortedRows(Array.from({ length: 10 }, (_, i) => ({ id: i, name: `row-${i}` }))));
  });

  it('appends, replaces (remove + add) and travels back in time', async () => {
    const t = table();
    const v0 = await t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(0, 3)) }] });
    const v1 = await t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(3, 3)) }] });
    expect(v1.version).toBe(1);
    // An append with the same schema carries no metaData and no protocol.
    expect((await logLines(t, 1)).map((line) => Object.keys(line)[0])).toEqual(['commitInfo', 'add']);

    const v2 = await t.commit({
      operation: 'MERGE',
      remove: [v0.added[0]!.path],
      add: [{ localPath: await parquet(`SELECT 100::BIGINT AS id, 'replaced' AS name`) }],
    });
    expect(v2).toMatchObject({ version: 2, removed: [v0.added[0]!.path] });
    const lines = await logLines(t, 2);
    expect(lines[0]!.commitInfo).toMatchObject({ readVersion: 1, isBlindAppend: false });
    expect(lines[1]!.remove).toMatchObject({
      path: v0.added[0]!.add.path,
      dataChange: true,
      extendedFileMetadata: true,
      size: v0.added[0]!.size,
    });
    expect(lines[1]!.remove!.deletionTimestamp).toBeTypeOf('number');

    const row = (id: number, name = `row-${id}`) => ({ id, name });
    expect(await read(t)).toEqual(sortedRows([row(3), row(4), row(5), row(100, 'replaced')]));
    expect(await read(t, 0)).toEqual(sortedRows([row(0), row(1), row(2)]));
    expect(await read(t, 1)).toEqual(sortedRows([0, 1, 2, 3, 4, 5].map((id) => row(id))));
    await expect(t.snapshot({ version: 3 })).rejects.toBeInstanceOf(DeltaVersionNotFound);

    // Overwrite: every file goes, in one commit.
    const v3 = await t.commit({
      operation: 'WRITE',
      operationParameters: { mode: 'Overwrite' },
      removeAll: true,
      add: [{ localPath: await parquet(ids(7, 1)) }],
    });
    expect(v3.removed).toHaveLength(2);
    expect(await read(t)).toEqual([row(7)]);
    expect(await t.history()).toHaveLength(4);
  });

  it('exposes each file DuckDB reads, for copy-on-write rewrites', async () => {
    const t = table();
    await t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(0, 3)) }] });
    await t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(3, 3)) }] });
    const scan = await t.scan(connection);
    let rewrite: { path: string; localPath: string };
    try {
      const [hit] = await connection.query(
        `SELECT DISTINCT filename FROM read_parquet([${scan.localFiles.map((entry) => quoteString(entry.localPath)).join(', ')}], filename = true) WHERE id = 4`,
      );
      const entry = scan.localFiles.find((candidate) => candidate.localPath === hit!.filename)!;
      rewrite = {
        path: entry.file.path,
        localPath: await parquet(`SELECT * FROM read_parquet(${quoteString(entry.localPath)}) WHERE id <> 4`),
      };
    } finally {
      scan.release();
    }
    await t.commit({ operation: 'DELETE', remove: [rewrite.path], add: [{ localPath: rewrite.localPath }] });
    expect((await read(t)).map((row) => row.id)).toEqual([0, 1, 2, 3, 5]);
  });

  it('evolves the schema: new columns are added, old files read them as NULL', async () => {
    const t = table();
    await t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(0, 1)) }] });
    const v1 = await t.commit({
      operation: 'WRITE',
      add: [{ localPath: await parquet(`SELECT 1::BIGINT AS id, 'b' AS name, 2.5::DOUBLE AS score`) }],
    });
    expect(v1.schema.fields.map((field) => field.name)).toEqual(['id', 'name', 'score']);
    expect((await logLines(t, 1)).some((line) => 'metaData' in line)).toBe(true);
    expect(await read(t)).toEqual(
      sortedRows([
        { id: 0, name: 'row-0', score: null },
        { id: 1, name: 'b', score: 2.5 },
      ]),
    );
    // A column that changes type is refused, and nothing is committed.
    await expect(
      t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(`SELECT 'x' AS id`) }] }),
    ).rejects.toBeInstanceOf(SchemaMismatch);
    expect((await t.snapshot()).version).toBe(1);
  });

  it('creates an empty table from a schema, and refuses types Delta lacks until cast', async () => {
    const t = table();
    await t.commit({
      operation: 'CREATE TABLE',
      expectedVersion: -1,
      schema: {
        type: 'struct',
        fields: [{ name: 'when', type: 'timestamp', nullable: true, metadata: {} }],
      },
    });
    expect(await read(t)).toEqual([]);
    expect((await t.snapshot()).files).toEqual([]);
    await expect(t.commit({ operation: 'CREATE TABLE', expectedVersion: -1 })).rejects.toBeInstanceOf(CommitConflict);

    const naive = `SELECT TIMESTAMP '2024-05-06 07:08:09.123456' AS "when", 5::UTINYINT AS small`;
    await expect(t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(naive) }] })).rejects.toBeInstanceOf(
      SchemaMismatch,
    );
    const columns = await connection.describe(naive);
    const castPath = await parquet(`SELECT ${writableSelectList(columns)} FROM (${naive})`);
    const result = await t.commit({ operation: 'WRITE', add: [{ localPath: castPath }] });
    expect(result.schema.fields.map((field) => [field.name, field.type])).toEqual([
      ['when', 'timestamp'],
      ['small', 'short'],
    ]);
    expect(await read(t)).toEqual([{ when: '2024-05-06 07:08:09.123456+00', small: 5 }]);
  });

  it('writes exact statistics for every kind of column', async () => {
    const t = table();
    const select = `
      SELECT * FROM (VALUES
        (1::INTEGER, 9007199254740993::BIGINT, 1.5::DOUBLE, 'a', DATE '2024-01-02', TIMESTAMPTZ '2024-01-02 03:04:05.678901+00',
         12.34::DECIMAL(10,2), true, {'x': 1, 'y': 'p'}, [1, 2], 'short'),
        (NULL, -5::BIGINT, 'NaN'::DOUBLE, 'b', DATE '2023-12-31', TIMESTAMPTZ '2024-01-01 00:00:00+00',
         -1.00::DECIMAL(10,2), NULL, {'x': NULL, 'y': 'q'}, NULL, '${'z'.repeat(40)}'),
        (3::INTEGER, 0::BIGINT, -2.25::DOUBLE, NULL, NULL, NULL, NULL, false, NULL, [3], 'zz')
      ) AS t(i, big, d, s, day, "at", amount, flag, nested, list, text)`;
    const result = await t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(select) }] });
    const stats = (await logLines(t, 0))[3]!.add!.stats as string;
    // 64-bit integers keep every digit.
    expect(stats).toContain('"big":9007199254740993');
    expect(JSON.parse(stats)).toEqual({
      numRecords: 3,
      minValues: {
        i: 1,
        big: -5,
        // d holds NaN, which sorts above every number: no bound of it would be true.
        s: 'a',
        day: '2023-12-31',
        at: '2024-01-01T00:00:00.000Z',
        amount: -1,
        nested: { x: 1, y: 'p' },
        text: 'short',
      },
      maxValues: {
        i: 3,
        // JSON.parse rounds it (the text above keeps every digit).
        big: 2 ** 53,
        s: 'b',
        day: '2024-01-02',
        // Truncated to milliseconds, as the protocol says.
        at: '2024-01-02T03:04:05.678Z',
        amount: 12.34,
        nested: { x: 1, y: 'q' },
        // The longest string is over the prefix length: no maximum.
      },
      nullCount: {
        i: 1,
        big: 0,
        d: 0,
        s: 1,
        day: 1,
        at: 1,
        amount: 1,
        flag: 1,
        nested: { x: 2, y: 1 },
        text: 0,
      },
    });
    expect(result.added[0]!.stats?.numRecords).toBe(3);
    expect((await t.snapshot()).files[0]!.stats?.maxValues?.i).toBe(3);
  });

  it('writes partitioned tables: typed partition values, including null', async () => {
    const t = table();
    const schema = {
      type: 'struct' as const,
      fields: [
        { name: 'id', type: 'long', nullable: true, metadata: {} },
        { name: 'name', type: 'string', nullable: true, metadata: {} },
        { name: 'year', type: 'integer', nullable: true, metadata: {} },
      ],
    };
    await t.commit({
      operation: 'WRITE',
      schema,
      partitionColumns: ['year'],
      add: [
        { localPath: await parquet(ids(0, 2)), partitionValues: { year: '2024' } },
        { localPath: await parquet(ids(2, 1)), partitionValues: { year: null } },
      ],
    });
    const adds = (await logLines(t, 0)).filter((line) => 'add' in line).map((line) => line.add!.partitionValues);
    expect(adds).toEqual([{ year: '2024' }, { year: null }]);
    expect(await read(t)).toEqual(
      sortedRows([
        { id: 0, name: 'row-0', year: 2024 },
        { id: 1, name: 'row-1', year: 2024 },
        { id: 2, name: 'row-2', year: null },
      ]),
    );
    await expect(
      t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(`SELECT 1 AS year`) }] }),
    ).rejects.toThrow(/partition column year/);
  });

  it('refuses to remove a file that is no longer in the table, and an unexpected version', async () => {
    const t = table();
    const v0 = await t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(0, 1)) }] });
    await t.commit({ operation: 'DELETE', remove: [v0.added[0]!.path] });
    await expect(t.commit({ operation: 'DELETE', remove: [v0.added[0]!.path] })).rejects.toBeInstanceOf(CommitConflict);
    await expect(t.commit({ operation: 'WRITE', expectedVersion: 0 })).rejects.toThrow(
      /at version 1, not the expected 0/,
    );
    expect((await t.snapshot()).version).toBe(1);
  });

  it('commits an application transaction once', async () => {
    const t = table();
    const first = await t.commit({
      operation: 'WRITE',
      add: [{ localPath: await parquet(ids(0, 1)) }],
      appTransaction: { appId: 'job-1', version: 7 },
    });
    const again = await t.commit({
      operation: 'WRITE',
      add: [{ localPath: await parquet(ids(0, 1)) }],
      appTransaction: { appId: 'job-1', version: 7 },
    });
    expect(first.skipped).toBe(false);
    expect(again).toMatchObject({ skipped: true, version: 0 });
    expect((await t.snapshot()).appTransactions['job-1']?.version).toBe(7);
    expect(await read(t)).toHaveLength(1);
  });

  it('refuses to write tables with features it does not support', async () => {
    const fixtures = join(import.meta.dirname, '..', 'fixtures', 'delta');
    const foreign = createDeltaEngine({ storage: new LocalStorage(fixtures), duckdb });
    const dv = new DeltaTable(foreign, claims, 'dv', 'table-with-dv-small/delta');
    await expect(dv.commit({ operation: 'WRITE' })).rejects.toBeInstanceOf(UnsupportedTableFeature);
  });
});

describe('checkpoints', () => {
  it('writes a checkpoint at version 10 that alone rebuilds the table', async () => {
    const t = table();
    const append = async (n: number) =>
      t.commit({
        operation: 'WRITE',
        add: [{ localPath: await parquet(ids(n * 10, 10)) }],
        appTransaction: { appId: 'loader', version: n },
      });
    for (let n = 0; n < 5; n++) expect((await append(n)).version).toBe(n);
    // Version 5 removes the file of version 2, leaving a tombstone for the checkpoint.
    const removed = (await t.snapshot()).files.find((file) => file.stats?.minValues?.id === 20)!;
    expect((await t.commit({ operation: 'DELETE', remove: [removed.path] })).version).toBe(5);
    for (let n = 5; n <= 10; n++) {
      const result = await append(n);
      expect(result.version).toBe(n + 1);
      expect(result.checkpoint !== null).toBe(result.version === 10);
    }
    const log = join(dir, 'storage', t.root, '_delta_log');
    const lastCheckpoint = JSON.parse(await readFile(join(log, '_last_checkpoint'), 'utf8'));
    // protocol + metaData + txn + 9 adds (10 written, 1 removed) + 1 tombstone.
    expect(lastCheckpoint).toMatchObject({ version: 10, size: 13, numOfAddFiles: 9 });

    // The checkpoint Parquet has the protocol's columns, maps as MAPs.
    const types = Object.fromEntries(
      (
        await connection.query(
          `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(${quoteString(join(log, '00000000000000000010.checkpoint.parquet'))}))`,
        )
      ).map((row) => [row.column_name, row.column_type]),
    );
    expect(Object.keys(types)).toEqual(['protocol', 'metaData', 'txn', 'add', 'remove']);
    expect(types.add).toContain('partitionValues MAP(VARCHAR, VARCHAR)');
    expect(types.metaData).toContain('partitionColumns VARCHAR[]');

    const expected = await read(t);
    expect(expected).toHaveLength(100);
    expect(expected.some((row) => row.id === 25)).toBe(false);
    const latest = await t.snapshot();
    expect(latest).toMatchObject({ version: 11, checkpointVersion: 10 });
    expect(latest.appTransactions.loader?.version).toBe(10);

    // Without the JSON commits up to 10, the checkpoint alone must carry the state.
    for (let version = 0; version <= 10; version++) {
      await rm(join(log, `${String(version).padStart(20, '0')}.json`));
    }
    const fromCheckpoint = await t.snapshot();
    expect(fromCheckpoint.files.map((file) => file.path).sort()).toEqual(latest.files.map((file) => file.path).sort());
    expect(fromCheckpoint.tombstones.map((tombstone) => tombstone.path)).toEqual([removed.path]);
    expect(fromCheckpoint.schema).toEqual(latest.schema);
    expect(fromCheckpoint.files.find((file) => file.stats?.minValues?.id === 0)?.stats?.numRecords).toBe(10);
    expect(await read(t)).toEqual(expected);
    expect((await t.snapshot({ version: 10 })).files).toHaveLength(9);
    await expect(t.snapshot({ version: 9 })).rejects.toBeInstanceOf(DeltaVersionNotFound);

    // Also without `_last_checkpoint`: found by listing.
    await rm(join(log, '_last_checkpoint'));
    expect(await read(t)).toEqual(expected);

    // Writing goes on from the checkpoint.
    const v12 = await t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(500, 1)) }] });
    expect(v12.version).toBe(12);
    expect(await read(t)).toHaveLength(101);
  });
});

describe('vacuum', () => {
  it('deletes only files no version within the retention needs', async () => {
    const t = table();
    const v0 = await t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(0, 2)) }] });
    const v1 = await t.commit({
      operation: 'WRITE',
      remove: [v0.added[0]!.path],
      add: [{ localPath: await parquet(ids(10, 2)) }],
    });
    // A data file no commit names: a failed write's leftover.
    await storage.put(`${t.root}/part-orphan.parquet`, 'not really parquet');

    const hour = 60 * 60 * 1000;
    // Everything is younger than an hour: nothing goes.
    expect((await t.vacuum({ retentionMs: hour })).deleted).toEqual([]);
    // An hour later with a day of retention: still nothing (time travel to v0 stays possible).
    expect((await t.vacuum({ retentionMs: 24 * hour, now: Date.now() + hour })).deleted).toEqual([]);
    expect(await read(t, 0)).toHaveLength(2);

    const later = { retentionMs: hour, now: Date.now() + 2 * hour };
    const dry = await t.vacuum({ ...later, dryRun: true });
    expect(dry.deleted.sort()).toEqual([v0.added[0]!.key, `${t.root}/part-orphan.parquet`].sort());
    expect(await storage.head(v0.added[0]!.key)).not.toBeNull();

    const done = await t.vacuum(later);
    expect(done.deleted.sort()).toEqual(dry.deleted.sort());
    expect(done.kept).toBe(1);
    expect(await storage.head(v0.added[0]!.key)).toBeNull();
    expect(await storage.head(v1.added[0]!.key)).not.toBeNull();
    expect(await read(t)).toHaveLength(2);
    // The log is never vacuumed.
    expect(await t.history()).toHaveLength(2);
  });
});

describe('concurrent writers', () => {
  it('serializes five racing writers: versions 1..5, no add lost', async () => {
    const t = table();
    await t.commit({ operation: 'CREATE TABLE', add: [{ localPath: await parquet(ids(0, 1)) }] });
    const files = await Promise.all([1, 2, 3, 4, 5].map((n) => parquet(ids(n * 100, 1))));
    // Each writer with its own DeltaTable handle, as on different replicas sharing the claims.
    const results = await Promise.all(
      files.map((localPath) => table().commit({ operation: 'WRITE', add: [{ localPath }] })),
    );
    expect(results.map((result) => result.version).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(results.some((result) => result.attempts > 1)).toBe(true);
    expect(claims.versions(t.tableId)).toEqual([0, 1, 2, 3, 4, 5]);
    for (let version = 1; version <= 5; version++) {
      expect((await logLines(t, version)).filter((line) => 'add' in line)).toHaveLength(1);
    }
    expect((await read(t)).map((row) => row.id)).toEqual([0, 100, 200, 300, 400, 500]);
  });

  it('lets racing replacements of the same file conflict instead of both applying', async () => {
    const t = table();
    const v0 = await t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(0, 1)) }] });
    const replace = async (id: number) =>
      table().commit({
        operation: 'MERGE',
        remove: [v0.added[0]!.path],
        add: [{ localPath: await parquet(ids(id, 1)) }],
      });
    const outcomes = await Promise.allSettled([replace(10), replace(20)]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const failed = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(failed.reason).toBeInstanceOf(CommitConflict);
    expect(await read(t)).toHaveLength(1);
  });
});

/** Storage that fails the writes the test picks. */
function failing(inner: ObjectStorage, fails: (key: string) => boolean): ObjectStorage {
  return {
    kind: inner.kind,
    put: (key, body, options) =>
      fails(key) ? Promise.reject(new Error(`injected failure writing ${key}`)) : inner.put(key, body, options),
    putFile: (key, path) =>
      fails(key) ? Promise.reject(new Error(`injected failure writing ${key}`)) : inner.putFile(key, path),
    get: (key, range) => inner.get(key, range),
    getBuffer: (key) => inner.getBuffer(key),
    head: (key) => inner.head(key),
    list: (prefix) => inner.list(prefix),
    delete: (keys) => inner.delete(keys),
    removeAbandonedWrites: (before, dryRun) => inner.removeAbandonedWrites(before, dryRun),
    localPath: (key) => inner.localPath(key),
  };
}

describe('failures', () => {
  it('leaves the table at its previous version when the log write fails, and vacuum cleans up', async () => {
    const t = table();
    await t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(0, 1)) }] });
    const broken = createDeltaEngine({ storage: failing(storage, (key) => key.includes('_delta_log/')), duckdb });
    await expect(
      table('table-1', broken).commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(1, 1)) }] }),
    ).rejects.toThrow(/injected failure/);
    expect((await t.snapshot()).version).toBe(0);
    expect(await read(t)).toEqual([{ id: 0, name: 'row-0' }]);

    // The failed writer's claim on version 1 blocks it until the claim is stale; then it is taken over.
    await expect(
      t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(2, 1)) }] }, { maxAttempts: 2 }),
    ).rejects.toBeInstanceOf(CommitConflict);
    const recovered = await t.commit(
      { operation: 'WRITE', add: [{ localPath: await parquet(ids(3, 1)) }] },
      { staleClaimMs: 0, now: () => Date.now() + 1000 },
    );
    expect(recovered.version).toBe(1);
    expect((await read(t)).map((row) => row.id)).toEqual([0, 3]);

    // Two unreferenced data files: the failed write's and the given-up commit's.
    const data = (await readdir(join(dir, 'storage', t.root))).filter((name) => name.endsWith('.parquet'));
    expect(data).toHaveLength(4);
    const vacuumed = await t.vacuum({ retentionMs: 0, now: Date.now() + 1000 });
    expect(vacuumed.deleted).toHaveLength(2);
    expect(vacuumed.kept).toBe(2);
  });

  it('claims nothing when uploading a data file fails', async () => {
    const t = table();
    await t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(0, 1)) }] });
    const broken = createDeltaEngine({ storage: failing(storage, (key) => key.endsWith('.parquet')), duckdb });
    await expect(
      table('table-1', broken).commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(1, 1)) }] }),
    ).rejects.toThrow(/injected failure/);
    expect(claims.versions(t.tableId)).toEqual([0]);
    expect((await t.commit({ operation: 'WRITE', add: [{ localPath: await parquet(ids(2, 1)) }] })).version).toBe(1);
  });
});

describe('snapshot loading', () => {
  it('reports a missing table', async () => {
    const t = table('nothing-here');
    expect(await t.exists()).toBe(false);
    await expect(loadSnapshot(engine, t.root)).rejects.toThrow(/no Delta table/);
    expect(await t.history()).toEqual([]);
  });
});
