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
import { SnapshotCache } from '../../src/engine/snapshot-cache.js';
import { quoteString } from '../../src/engine/sql.js';
import { LocalStorage } from '../../src/storage/local.js';
import type { ObjectStorage } from '../../src/storage/storage.js';

/** A storage that counts the objects read whole (log files): reading a snapshot shows as reads. */
function counting(inner: ObjectStorage): ObjectStorage & { reads: number } {
  const storage = {
    reads: 0,
    kind: inner.kind,
    put: inner.put.bind(inner),
    putFile: inner.putFile.bind(inner),
    get: inner.get.bind(inner),
    getBuffer: (key: string) => {
      storage.reads += 1;
      return inner.getBuffer(key);
    },
    head: inner.head.bind(inner),
    list: inner.list.bind(inner),
    delete: inner.delete.bind(inner),
    removeAbandonedWrites: inner.removeAbandonedWrites.bind(inner),
    localPath: inner.localPath.bind(inner),
  };
  return storage;
}

let duckdb: DuckDB;
let connection: SqlConnection;
let dir: string;
let bucket: TestBucket | null = null;

beforeAll(async () => {
  duckdb = await DuckDB.open();
  connection = await duckdb.connect();
  dir = await mkdtemp(join(tmpdir(), 'snapshot-cache-'));
  await mkdir(join(dir, 'staging'), { recursive: true });
  if (s3Available()) bucket = await createTestBucket();
});

afterAll(async () => {
  connection.close();
  duckdb.close();
  await bucket?.drop();
  await rm(dir, { recursive: true, force: true });
});

/** A Parquet file of `rows` ids from `from` on. */
async function parquet(rows: number, from = 0): Promise<string> {
  const path = join(dir, 'staging', `${randomUUID()}.parquet`);
  await connection.run(
    `COPY (SELECT i::BIGINT AS id FROM range(${from}, ${from + rows}) t(i)) TO ${quoteString(path)} (FORMAT parquet)`,
  );
  return path;
}

const storages: [string, () => Promise<{ storage: ObjectStorage; cache: LocalFileCache | null }>][] = [
  ['local storage', async () => ({ storage: new LocalStorage(join(dir, `local-${randomUUID()}`)), cache: null })],
];
if (s3Available()) {
  storages.push([
    'S3 storage',
    async () => ({
      storage: bucket!.storage({ prefix: randomUUID() }),
      cache: await LocalFileCache.open({ directory: join(dir, `cache-${randomUUID()}`), maxBytes: 1024 ** 3 }),
    }),
  ]);
}

describe.each(storages)('snapshot cache on %s', (_name, open) => {
  async function setUp() {
    const { storage: inner, cache } = await open();
    const storage = counting(inner);
    const engine = createDeltaEngine({ storage, duckdb, cache, tempDirectory: dir });
    const table = new DeltaTable(engine, new InMemoryCommitClaims(), 'cached', `deltatables/${randomUUID()}`);
    return { storage, table, snapshots: new SnapshotCache(storage) };
  }

  it('reads a version once, then only checks that it is still the latest', async () => {
    const { storage, table, snapshots } = await setUp();
    await table.commit({ operation: 'WRITE', add: [{ localPath: await parquet(5) }] });
    const first = await snapshots.get(table);
    expect(first.snapshot.version).toBe(0);
    expect(first.rows).toBe(5);
    const readsAfterFirst = storage.reads;
    expect(readsAfterFirst).toBeGreaterThan(0);
    const again = await snapshots.get(table);
    expect(again).toBe(first);
    expect(storage.reads).toBe(readsAfterFirst);
  });

  it('keeps at most as many versions and files as its limits allow, least recently used out', async () => {
    const { storage, table } = await setUp();
    await table.commit({ operation: 'WRITE', add: [{ localPath: await parquet(5) }] });
    await table.commit({ operation: 'WRITE', add: [{ localPath: await parquet(7) }] });
    const readsOf = async (work: () => Promise<unknown>) => {
      const before = storage.reads;
      await work();
      return storage.reads - before;
    };
    const oneVersion = new SnapshotCache(storage, { versions: 1, files: 100 });
    await oneVersion.get(table, 0);
    expect(await readsOf(() => oneVersion.get(table, 0))).toBe(0);
    await oneVersion.get(table);
    expect(await readsOf(() => oneVersion.get(table))).toBe(0);
    expect(await readsOf(() => oneVersion.get(table, 0))).toBeGreaterThan(0);
    // Version 1 has two files: with room for one file and its version, it is never kept.
    const fewFiles = new SnapshotCache(storage, { versions: 64, files: 2 });
    await fewFiles.get(table, 0);
    expect(await readsOf(() => fewFiles.get(table, 0))).toBe(0);
    await fewFiles.get(table);
    expect(await readsOf(() => fewFiles.get(table))).toBeGreaterThan(0);
  });

  it('sees a new commit at the next read, and keeps serving earlier versions as they were', async () => {
    const { table, snapshots } = await setUp();
    await table.commit({ operation: 'WRITE', add: [{ localPath: await parquet(5) }] });
    expect((await snapshots.get(table)).rows).toBe(5);
    await table.commit({ operation: 'WRITE', add: [{ localPath: await parquet(7) }] });
    const latest = await snapshots.get(table);
    expect(latest.snapshot.version).toBe(1);
    expect(latest.rows).toBe(12);
    const earlier = await snapshots.get(table, 0);
    expect(earlier.snapshot.version).toBe(0);
    expect(earlier.rows).toBe(5);
    expect((await snapshots.get(table)).snapshot.version).toBe(1);
  });

  it('reads a table dropped and written again anew, though its versions and commit sizes are as before', async () => {
    const { table, snapshots } = await setUp();
    await table.commit({ operation: 'WRITE', add: [{ localPath: await parquet(5) }] });
    await table.commit({ operation: 'WRITE', add: [{ localPath: await parquet(7) }] });
    const before = await snapshots.get(table);
    const beforeZero = await snapshots.get(table, 0);
    await table.drop();
    // Same row counts and as many digits: commits of the same size, likely within the same second.
    await table.commit({ operation: 'WRITE', add: [{ localPath: await parquet(5, 1) }] });
    await table.commit({ operation: 'WRITE', add: [{ localPath: await parquet(7, 2) }] });
    const after = await snapshots.get(table);
    expect(after.snapshot.version).toBe(before.snapshot.version);
    const paths = (read: typeof after) => read.snapshot.files.map((file) => file.path).sort();
    expect(paths(after)).not.toEqual(paths(before));
    expect(after.snapshot.files.map((file) => file.stats?.minValues?.id).sort()).toEqual([1, 2]);
    const zero = await snapshots.get(table, 0);
    expect(zero.rows).toBe(5);
    expect(paths(zero)).not.toEqual(paths(beforeZero));
  });
});
