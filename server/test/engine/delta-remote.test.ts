import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestBucket, s3Available, type TestBucket } from '../../../test/support/s3-storage.js';
import { InMemoryCommitClaims } from '../../src/engine/delta/commit-claims.js';
import { createDeltaEngine } from '../../src/engine/delta/engine.js';
import { loadSnapshot } from '../../src/engine/delta/snapshot.js';
import { DeltaTable } from '../../src/engine/delta/table.js';
import { DuckDB, type SqlConnection } from '../../src/engine/duckdb.js';
import { LocalFileCache } from '../../src/engine/file-cache.js';
import { quoteString } from '../../src/engine/sql.js';
import { LocalStorage } from '../../src/storage/local.js';
import type { ObjectStorage } from '../../src/storage/storage.js';
import { parquetGlob, rowsOf } from './support.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'delta');

/** A storage DuckDB can't read in place, like S3: everything goes through the cache. */
function withoutLocalPaths(inner: ObjectStorage): ObjectStorage {
  return {
    kind: 's3',
    put: (key, body, options) => inner.put(key, body, options),
    putFile: (key, path) => inner.putFile(key, path),
    get: (key, range) => inner.get(key, range),
    getBuffer: (key) => inner.getBuffer(key),
    head: (key) => inner.head(key),
    list: (prefix) => inner.list(prefix),
    delete: (keys) => inner.delete(keys),
    removeAbandonedWrites: (before, dryRun) => inner.removeAbandonedWrites(before, dryRun),
    localPath: () => null,
  };
}

let duckdb: DuckDB;
let connection: SqlConnection;
let dir: string;

beforeAll(async () => {
  duckdb = await DuckDB.open();
  connection = await duckdb.connect();
  dir = await mkdtemp(join(tmpdir(), 'delta-remote-'));
});

afterAll(async () => {
  connection.close();
  duckdb.close();
  await rm(dir, { recursive: true, force: true });
});

/** Writes, checkpoints, reads back and vacuums a table on the given storage. */
async function roundTrip(storage: ObjectStorage, cache: LocalFileCache) {
  const engine = createDeltaEngine({ storage, duckdb, cache, tempDirectory: dir });
  const table = new DeltaTable(engine, new InMemoryCommitClaims(), 'remote', `deltatables/${randomUUID()}`);
  await mkdir(join(dir, 'staging'), { recursive: true });
  const parquet = async (from: number) => {
    const path = join(dir, 'staging', `${randomUUID()}.parquet`);
    await connection.run(
      `COPY (SELECT i::BIGINT AS id FROM range(${from}, ${from + 5}) t(i)) TO ${quoteString(path)} (FORMAT parquet)`,
    );
    return path;
  };
  let first = '';
  for (let n = 0; n <= 11; n++) {
    const result = await table.commit({
      operation: 'WRITE',
      ...(n === 11 ? { remove: [first] } : {}),
      add: [{ localPath: await parquet(n * 5) }],
    });
    if (n === 0) first = result.added[0]!.path;
  }
  const snapshot = await table.snapshot();
  expect(snapshot).toMatchObject({ version: 11, checkpointVersion: 10 });
  const scan = await table.scan(connection, snapshot);
  try {
    const [row] = await connection.query(`SELECT count(*)::INTEGER AS n, sum(id)::INTEGER AS total FROM (${scan.sql})`);
    expect(row).toEqual({ n: 55, total: (59 * 60) / 2 - 10 });
  } finally {
    scan.release();
  }
  const vacuumed = await table.vacuum({ retentionMs: 0, now: Date.now() + 1000 });
  expect(vacuumed.deleted).toEqual([`${table.root}/${first}`]);
  await table.drop();
  expect(await table.exists()).toBe(false);
}

describe('Delta tables on storage DuckDB cannot read in place', () => {
  it('reads the fixtures through the local file cache', async () => {
    const cache = await LocalFileCache.open({ directory: join(dir, 'cache-fixtures'), maxBytes: 1 << 20 });
    const engine = createDeltaEngine({ storage: withoutLocalPaths(new LocalStorage(FIXTURES)), duckdb, cache });
    for (const table of [
      'basic-with-inserts-deletes-checkpoint',
      'app-txn-checkpoint',
      'data-reader-partition-values',
    ]) {
      const snapshot = await loadSnapshot(engine, `${table}/delta`);
      const scan = await new DeltaTable(engine, new InMemoryCommitClaims(), table, `${table}/delta`).scan(
        connection,
        snapshot,
      );
      try {
        const rows = await rowsOf(connection, scan.sql);
        expect(rows.length).toBeGreaterThan(0);
        if (table === 'basic-with-inserts-deletes-checkpoint') {
          expect(rows).toEqual(
            await rowsOf(connection, parquetGlob(join(FIXTURES, table, 'expected', 'latest', '*.parquet'))),
          );
        }
      } finally {
        scan.release();
      }
    }
    expect(cache.size).toBeGreaterThan(0);
  });

  it('writes, checkpoints, reads and vacuums through the cache', async () => {
    const cache = await LocalFileCache.open({ directory: join(dir, 'cache-write'), maxBytes: 1 << 20 });
    await roundTrip(withoutLocalPaths(new LocalStorage(join(dir, 'storage'))), cache);
  });

  describe.skipIf(!s3Available())('on S3', () => {
    let bucket: TestBucket;
    beforeAll(async () => {
      bucket = await createTestBucket();
    });
    afterAll(async () => {
      await bucket?.drop();
    });

    it('writes, checkpoints, reads and vacuums', async () => {
      const cache = await LocalFileCache.open({ directory: join(dir, 'cache-s3'), maxBytes: 1 << 20 });
      await roundTrip(bucket.storage(), cache);
    });
  });
});
