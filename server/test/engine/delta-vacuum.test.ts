import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestBucket, s3Available, type TestBucket } from '../../../test/support/s3-storage.js';
import { InMemoryCommitClaims } from '../../src/engine/delta/commit-claims.js';
import { createDeltaEngine } from '../../src/engine/delta/engine.js';
import { DeltaTable } from '../../src/engine/delta/table.js';
import { DuckDB, type SqlConnection } from '../../src/engine/duckdb.js';
import { LocalFileCache } from '../../src/engine/file-cache.js';
import { quoteString } from '../../src/engine/sql.js';
import { LocalStorage } from '../../src/storage/local.js';
import type { ObjectStorage } from '../../src/storage/storage.js';

const HOUR = 60 * 60 * 1000;
const RETENTION = 168 * HOUR;

let duckdb: DuckDB;
let connection: SqlConnection;
let dir: string;

beforeAll(async () => {
  duckdb = await DuckDB.open();
  connection = await duckdb.connect();
  dir = await mkdtemp(join(tmpdir(), 'delta-vacuum-'));
  await mkdir(join(dir, 'staging'), { recursive: true });
});

afterAll(async () => {
  connection.close();
  duckdb.close();
  await rm(dir, { recursive: true, force: true });
});

async function parquet(from: number, count = 2): Promise<string> {
  const path = join(dir, 'staging', `${randomUUID()}.parquet`);
  await connection.run(
    `COPY (SELECT i::BIGINT AS id FROM range(${from}, ${from + count}) t(i)) TO ${quoteString(path)} (FORMAT parquet)`,
  );
  return path;
}

async function tableOn(storage: ObjectStorage, wrap: (storage: ObjectStorage) => ObjectStorage = (s) => s) {
  const cache =
    storage.kind === 'local'
      ? null
      : await LocalFileCache.open({ directory: join(dir, `cache-${randomUUID()}`), maxBytes: 1 << 24 });
  const engine = createDeltaEngine({ storage: wrap(storage), duckdb, cache, tempDirectory: dir });
  return new DeltaTable(engine, new InMemoryCommitClaims(), 'vacuumed', `deltatables/${randomUUID()}`);
}

async function ids(table: DeltaTable, version?: number): Promise<number[]> {
  const scan = await table.scan(connection, await table.snapshot(version === undefined ? {} : { version }));
  try {
    const rows = await connection.query(`SELECT id::INTEGER AS id FROM (${scan.sql}) ORDER BY id`);
    return rows.map((row) => Number(row.id));
  } finally {
    scan.release();
  }
}

/** The same checks on every storage. */
function vacuumSuite(open: () => Promise<ObjectStorage>) {
  it('keeps every version readable back to the retention, and removes what only older versions need', async () => {
    const storage = await open();
    const table = await tableOn(storage);
    // The vacuum runs at `now`, 500 hours from the real clock: every file in storage is then 500
    // hours old. The commits say they happened at the times below, so their tombstones are as old.
    const now = Date.now() + 500 * HOUR;
    const at = (hoursAgo: number) => ({ now: () => now - hoursAgo * HOUR });
    const v0 = await table.commit({ operation: 'WRITE', add: [{ localPath: await parquet(0) }] }, at(400));
    const v1 = await table.commit(
      { operation: 'WRITE', remove: [v0.added[0]!.path], add: [{ localPath: await parquet(10) }] },
      at(300),
    );
    // A checkpoint at v2: replay starts there, with the tombstones it kept.
    const v2 = await table.commit(
      { operation: 'WRITE', remove: [v1.added[0]!.path], add: [{ localPath: await parquet(20) }] },
      { ...at(100), checkpointInterval: 2 },
    );
    expect(v2.checkpoint).not.toBeNull();
    const v3 = await table.commit(
      { operation: 'WRITE', remove: [v2.added[0]!.path], add: [{ localPath: await parquet(30) }] },
      at(10),
    );
    // A failed write's leftover that no version names.
    const orphan = `${table.root}/part-${randomUUID()}.parquet`;
    const orphanSize = (await storage.putFile(orphan, await parquet(99))).size;
    expect(await ids(table, 0)).toEqual([0, 1]);

    const dry = await table.vacuum({ retentionMs: RETENTION, now, dryRun: true });
    expect(dry.deleted.sort()).toEqual([v0.added[0]!.key, orphan].sort());
    expect(await storage.head(orphan)).not.toBeNull();

    const done = await table.vacuum({ retentionMs: RETENTION, now });
    expect(done.deleted.sort()).toEqual(dry.deleted.sort());
    expect(done.deletedBytes).toBe(v0.added[0]!.size + orphanSize);
    expect(done.kept).toBe(3);
    expect(await storage.head(v0.added[0]!.key)).toBeNull();
    expect(await storage.head(orphan)).toBeNull();
    // v1 was the table at the start of the retention (168 hours ago): readable, as v2 and v3.
    expect(await ids(table, 1)).toEqual([10, 11]);
    expect(await ids(table, 2)).toEqual([20, 21]);
    expect(await ids(table, 3)).toEqual([30, 31]);
    expect(await ids(table)).toEqual([30, 31]);
    // v0 was superseded more than the retention ago: its file went.
    await expect(ids(table, 0)).rejects.toThrow();
    // The log stays whole.
    expect((await table.history()).map((entry) => entry.version)).toEqual([0, 1, 2, 3]);
    expect(v3.version).toBe(3);
  });

  it('never deletes the files of a commit in flight', async () => {
    const storage = await open();
    // The writer stops just before writing its log entry, as if slow, until released.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reachedLog!: () => void;
    const atLog = new Promise<void>((resolve) => {
      reachedLog = resolve;
    });
    const paused = (inner: ObjectStorage): ObjectStorage => ({
      ...inner,
      kind: inner.kind,
      put: async (key, body, options) => {
        if (key.includes('/_delta_log/') && key.endsWith('1.json')) {
          reachedLog();
          await released;
        }
        return inner.put(key, body, options);
      },
      putFile: (key, path, options) => inner.putFile(key, path, options),
      get: (key, range) => inner.get(key, range),
      getBuffer: (key) => inner.getBuffer(key),
      head: (key) => inner.head(key),
      list: (prefix) => inner.list(prefix),
      delete: (keys) => inner.delete(keys),
      localPath: (key) => inner.localPath(key),
    });
    const table = await tableOn(storage, paused);
    await table.commit({ operation: 'WRITE', add: [{ localPath: await parquet(0) }] });
    const writing = table.commit({ operation: 'WRITE', add: [{ localPath: await parquet(10) }] });
    await atLog;

    // The new data file is in storage but in no version yet: only its age keeps it.
    const unreferenced = await table.vacuum({ retentionMs: 0, now: Date.now() + 1000, dryRun: true });
    expect(unreferenced.deleted).toHaveLength(1);
    const vacuumed = await table.vacuum({ retentionMs: HOUR });
    expect(vacuumed.deleted).toEqual([]);

    release();
    expect((await writing).version).toBe(1);
    expect(await ids(table)).toEqual([0, 1, 10, 11]);
  });

  it('removes data files of a table whose first commit never landed, once old enough', async () => {
    const storage = await open();
    const table = await tableOn(storage);
    const leftover = `${table.root}/part-${randomUUID()}.parquet`;
    await storage.putFile(leftover, await parquet(0));
    expect((await table.vacuum({ retentionMs: RETENTION })).deleted).toEqual([]);
    const later = await table.vacuum({ retentionMs: RETENTION, now: Date.now() + RETENTION + HOUR });
    expect(later.deleted).toEqual([leftover]);
    expect(await storage.head(leftover)).toBeNull();
  });
}

describe('vacuum on local storage', () => {
  vacuumSuite(async () => new LocalStorage(join(dir, `storage-${randomUUID()}`)));
});

describe.skipIf(!s3Available())('vacuum on S3', () => {
  let bucket: TestBucket;
  beforeAll(async () => {
    bucket = await createTestBucket();
  });
  afterAll(async () => {
    await bucket?.drop();
  });
  vacuumSuite(async () => bucket.storage());
});
