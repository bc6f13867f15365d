import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createTestBucket, type TestBucket, testS3Settings } from '../../../test/support/s3-storage.js';
import {
  createTestDatabase,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from '../../../test/support/test-server.js';
import { describeEachBackend, INTERNAL_KEY } from './support.js';

// A hang guard, not a speed check: 9 MiB go to S3 on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

// The default retention (7 days) and an hour.
const PAST_RETENTION = 169 * 60 * 60 * 1000;

/** Polls `condition` until it holds: what a killed process left is there to find. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 25));
}

/*
 * Issue 23 (reliability): a process that dies mid-upload leaves a temporary file in a local store, or
 * an incomplete multipart upload in S3 whose parts stay stored (and billed); a process killed
 * mid-query or mid-upsert leaves DuckDB spill files and work directories under its data directory.
 * The vacuum removes them once older than its retention, and nothing younger.
 */
describeEachBackend('the vacuum collects what a killed process left', (dialect, storage) => {
  let database: TestDatabase;
  let bucket: TestBucket | null = null;
  let server: TestServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    env = { SERVICE_JOBS_ENABLED: 'false', SERVICE_AUTH_INTERNAL_API_KEY_ENV: INTERNAL_KEY };
    if (storage === 's3') {
      bucket = await createTestBucket();
      const settings = testS3Settings();
      Object.assign(env, {
        SERVICE_STORAGE_URL: `s3://${bucket.bucket}/tenant`,
        SERVICE_S3_ENDPOINT: settings.endpoint as string,
        SERVICE_S3_ACCESS_KEY_ID: settings.accessKeyId as string,
        SERVICE_S3_SECRET_ACCESS_KEY: settings.secretAccessKey as string,
      });
    }
    server = await startTestServer(database, env);
  });
  afterAll(async () => {
    await server?.stop();
    await bucket?.drop();
    await database?.drop();
  });

  /** What a killed upload left: the local store's temporary files, or S3's incomplete uploads. */
  const abandonedWrites = async (): Promise<number> => {
    if (bucket !== null) return (await bucket.pendingUploads()).length;
    const files = await readdir(join(database.dataDir, 'storage', '.tmp')).catch(() => [] as string[]);
    return files.length;
  };

  it('removes a write that never finished and work files older than the retention', async () => {
    // A write whose process stops mid-way: the body stops coming and nothing ever ends it. (Past
    // S3's first part, 8 MiB, so that the multipart upload has begun and stored a part.)
    const body = new PassThrough();
    const write = server.context.purger.storage.put('uploads/interrupted', body).catch(() => undefined);
    body.write(Buffer.alloc(9 * 1024 * 1024, 'x'));
    await until(async () => (await abandonedWrites()) > 0);

    // Work files of the dead replica's kind under this server's data directory, and one in use.
    const tmp = join(database.dataDir, 'tmp');
    await mkdir(join(tmp, 'duckdb'), { recursive: true });
    await mkdir(join(tmp, 'upsert-dead'), { recursive: true });
    await mkdir(join(tmp, 'copies'), { recursive: true });
    await writeFile(join(tmp, 'duckdb', 'duckdb_temp_storage-0.tmp'), 'x'.repeat(100));
    await writeFile(join(tmp, 'upsert-dead', 'part-0.parquet'), 'x'.repeat(50));
    await writeFile(join(tmp, 'copies', 'v1.duckdb.partial'), 'x'.repeat(10));
    await writeFile(join(tmp, 'copies', 'v0.duckdb'), 'a finished copy its manager owns');

    const now = await server.context.vacuum.run();
    expect(now.removed_temporary, 'nothing is older than the retention yet').toBe(0);
    expect(await abandonedWrites()).toBeGreaterThan(0);

    const dry = await server.context.vacuum.run({ now: Date.now() + PAST_RETENTION, dryRun: true });
    expect(dry.removed_temporary).toBeGreaterThanOrEqual(4);
    expect(await abandonedWrites()).toBeGreaterThan(0);

    const later = await server.context.vacuum.run({ now: Date.now() + PAST_RETENTION });
    expect(later.failures).toEqual([]);
    expect(later.removed_temporary).toBe(dry.removed_temporary);
    expect(later.removed_temporary_bytes).toBeGreaterThanOrEqual(160);
    expect(await abandonedWrites()).toBe(0);
    expect((await readdir(join(tmp, 'duckdb'))).sort()).toEqual([]);
    expect((await readdir(tmp)).filter((name) => name.startsWith('upsert-'))).toEqual([]);
    const copies = await readdir(join(tmp, 'copies'));
    expect(copies).toContain('v0.duckdb');
    expect(copies).not.toContain('v1.duckdb.partial');
    expect((await stat(join(tmp, 'copies', 'v0.duckdb'))).isFile()).toBe(true);
    body.destroy();
    await write;
  });
});
