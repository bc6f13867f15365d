import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { API_PREFIX } from '@service/server';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { killAllServices, startServe } from '../../../test/support/processes.js';
import { createTestBucket, type TestBucket, testS3Settings } from '../../../test/support/s3-storage.js';
import {
  ADMIN,
  createProjectWithUpload,
  createTestDatabase,
  login,
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

/**
 * Starts uploading `size` bytes as a file of `collectionId` and sends only the first `sent` of them:
 * the request stays in flight, its body half-stored, until its server dies.
 */
function beginUpload(server: { url: string }, token: string, collectionId: string, size: number, sent: number): void {
  const boundary = `----killed${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="path"\r\n\r\nt.csv\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.csv"\r\nContent-Type: text/csv\r\n\r\na,b\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL(`${server.url}${API_PREFIX}/datacollections/${collectionId}/files`);
  const request = httpRequest({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': head.length + size + tail.length,
    },
  });
  // The server is killed with the request in flight: its error is the point.
  request.on('error', () => undefined);
  request.write(head);
  request.write(Buffer.alloc(sent, '1,2\n'));
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
  afterEach(async () => {
    await killAllServices();
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

  it('removes what a server killed mid-upload left, once past the retention, and nothing before', async () => {
    const uploader = await startServe('uploader', {
      ...env,
      SERVICE_DATA_DIR: database.dataDir,
      SERVICE_DATABASE_URL: database.url,
      SERVICE_HOST: '127.0.0.1',
      SERVICE_PORT: '0',
      SERVICE_PUBLIC_URL: 'http://127.0.0.1:8058',
      SERVICE_BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      SERVICE_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      SERVICE_LOG_LEVEL: 'warn',
    });
    const { access_token: token } = await login(uploader, ADMIN.email, ADMIN.password);
    const { collectionId } = await createProjectWithUpload(uploader, token, 'killed mid-upload');
    expect(await abandonedWrites()).toBe(0);
    // Past S3's first part (8 MiB): the multipart upload has begun and stored a part.
    beginUpload(uploader, token, collectionId, 20 * 1024 * 1024, 9 * 1024 * 1024);
    await until(async () => (await abandonedWrites()) > 0);
    uploader.child.kill('SIGKILL');
    await uploader.exited;

    // Another server's vacuum: within the retention the write might still be someone's, so it stays.
    const now = await server.context.vacuum.run();
    expect(now.failures).toEqual([]);
    expect(await abandonedWrites()).toBe(1);
    const later = await server.context.vacuum.run({ now: Date.now() + PAST_RETENTION });
    expect(later.failures).toEqual([]);
    expect(later.removed_temporary).toBeGreaterThanOrEqual(1);
    expect(await abandonedWrites()).toBe(0);
  });
});
