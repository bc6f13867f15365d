import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestBucket, s3Available, type TestBucket, testS3Settings } from '../../../test/support/s3-storage.js';
import { loadConfig } from '../../src/config/config.js';
import { openStorage } from '../../src/storage/index.js';
import { LocalStorage } from '../../src/storage/local.js';
import { S3Storage, S3StorageError } from '../../src/storage/s3.js';
import { ObjectNotFound } from '../../src/storage/storage.js';

const MiB = 1024 * 1024;

/** Names of the SDK commands a storage sends, in order. */
function recordCommands(storage: S3Storage): string[] {
  const sent: string[] = [];
  const send = storage.client.send.bind(storage.client);
  vi.spyOn(storage.client, 'send').mockImplementation(((command: object, ...rest: never[]) => {
    sent.push(command.constructor.name);
    return (send as (command: object, ...rest: never[]) => Promise<unknown>)(command, ...rest);
  }) as typeof storage.client.send);
  return sent;
}

async function keysOf(iterable: AsyncIterable<{ key: string }>): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of iterable) keys.push(object.key);
  return keys;
}

describe('openStorage', () => {
  it('opens the backend SERVICE_STORAGE_URL names', () => {
    const s3 = openStorage(
      loadConfig(
        { SERVICE_STORAGE_URL: 's3://bucket-name/some/prefix', SERVICE_S3_ENDPOINT: 'http://127.0.0.1:9' },
        '/srv',
      ),
    );
    expect(s3).toBeInstanceOf(S3Storage);
    expect(s3.kind).toBe('s3');
    expect(s3.localPath('a/b')).toBeNull();
    const local = openStorage(loadConfig({ SERVICE_STORAGE_URL: '/srv/objects' }, '/srv'));
    expect(local).toBeInstanceOf(LocalStorage);
    expect(local.localPath('a/b')).toBe('/srv/objects/a/b');
  });
});

describe('S3 storage against an unreachable service', () => {
  let closedPort: number;
  let silent: Server;
  let silentPort: number;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    // Accepts connections and never answers: what a hung service looks like.
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  const storageAt = (port: number, options: { socketTimeoutMs?: number; maxAttempts?: number } = {}) =>
    new S3Storage({
      bucket: 'some-bucket',
      prefix: 'p',
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      accessKeyId: 'id',
      secretAccessKey: 'secret',
      forcePathStyle: true,
      ...options,
    });

  it('fails every operation with a clear error after bounded retries (connection refused)', async () => {
    const storage = storageAt(closedPort);
    const expected = new RegExp(
      `^S3 \\w+ s3://some-bucket/p/\\S* failed after 5 attempts: cannot reach http://127\\.0\\.0\\.1:${closedPort}: connect ECONNREFUSED`,
    );
    await expect(storage.getBuffer('a/b')).rejects.toThrow(expected);
    await expect(storage.get('a/b', { start: 1 })).rejects.toThrow(expected);
    await expect(storage.head('a/b')).rejects.toThrow(expected);
    await expect(storage.put('a/b', 'x')).rejects.toThrow(expected);
    await expect(storage.put('a/b', Readable.from([randomBytes(100)]))).rejects.toThrow(expected);
    await expect(keysOf(storage.list('a/'))).rejects.toThrow(expected);
    await expect(storage.delete(['a/b'])).rejects.toThrow(expected);
    await expect(storage.getBuffer('a/b')).rejects.toBeInstanceOf(S3StorageError);
    storage.client.destroy();
  });

  it('gives up on a service that accepts connections but never answers', async () => {
    // Without the socket timeout this would hang until the test's own timeout fails it.
    const storage = storageAt(silentPort, { socketTimeoutMs: 300, maxAttempts: 2 });
    await expect(storage.getBuffer('a/b')).rejects.toThrow(
      new RegExp(
        `^S3 GetObject s3://some-bucket/p/a/b failed after 2 attempts: cannot reach http://127\\.0\\.0\\.1:${silentPort}`,
      ),
    );
    storage.client.destroy();
  });
});

describe.skipIf(!s3Available())('S3 storage specifics', () => {
  let bucket: TestBucket;

  beforeAll(async () => {
    bucket = await createTestBucket();
  });
  afterAll(async () => {
    await bucket?.drop();
  });

  it('keeps objects under its prefix and lists only the keys it can address', async () => {
    const storage = bucket.storage({ prefix: '/tenant/one/' });
    await storage.put('a/b.txt', 'inside');
    const put = (Key: string) =>
      bucket.client.send(new PutObjectCommand({ Bucket: bucket.bucket, Key, Body: 'outside' }));
    await put('tenant/other/a/c.txt');
    await put('tenant/onex/a/d.txt');
    await put('tenant/one/a/folder/');
    await put('tenant/one/a//double');
    await put('top-level');

    expect(await bucket.keys()).toContain('tenant/one/a/b.txt');
    expect(await keysOf(storage.list(''))).toEqual(['a/b.txt']);
    expect(await keysOf(storage.list('a/'))).toEqual(['a/b.txt']);
    expect((await storage.head('a/b.txt'))?.key).toBe('a/b.txt');

    const root = bucket.storage({ prefix: '' });
    expect(await keysOf(root.list('tenant/'))).toEqual([
      'tenant/one/a/b.txt',
      'tenant/onex/a/d.txt',
      'tenant/other/a/c.txt',
    ]);
    expect((await root.getBuffer('top-level')).toString()).toBe('outside');
  });

  it('pages through long listings', async () => {
    const storage = bucket.storage({ prefix: 'paged', listPageSize: 2 });
    const keys = ['k/1', 'k/2', 'k/3', 'k/4', 'k/5'];
    for (const key of keys) await storage.put(key, key);
    const sent = recordCommands(storage);
    expect(await keysOf(storage.list('k/'))).toEqual(keys);
    expect(sent).toEqual(['ListObjectsV2Command', 'ListObjectsV2Command', 'ListObjectsV2Command']);
  });

  it('deletes in DeleteObjects batches (the service supports it)', async () => {
    const storage = bucket.storage({ prefix: 'batched', deleteBatchSize: 2 });
    const keys = ['d/1', 'd/2', 'd/3', 'd/4'];
    for (const key of keys) await storage.put(key, key);
    await storage.put('d/keep', 'keep');
    const sent = recordCommands(storage);
    await storage.delete([...keys, 'd/absent']);
    expect(sent).toEqual(['DeleteObjectsCommand', 'DeleteObjectsCommand', 'DeleteObjectsCommand']);
    expect(await keysOf(storage.list('d/'))).toEqual(['d/keep']);
  });

  it('uploads large bodies in parts, and aborts the upload when the body fails', { timeout: 60_000 }, async () => {
    const storage = bucket.storage({ prefix: 'multipart', partSize: 5 * MiB });
    const body = randomBytes(11 * MiB);
    let sent = recordCommands(storage);
    expect(await storage.put('big', Readable.from([body.subarray(0, 7 * MiB), body.subarray(7 * MiB)]))).toEqual({
      size: 11 * MiB,
    });
    expect(sent.filter((name) => name !== 'UploadPartCommand')).toEqual([
      'CreateMultipartUploadCommand',
      'CompleteMultipartUploadCommand',
    ]);
    expect(sent.filter((name) => name === 'UploadPartCommand')).toHaveLength(3);
    expect((await storage.getBuffer('big')).equals(body)).toBe(true);

    vi.restoreAllMocks();
    sent = recordCommands(storage);
    async function* failing() {
      yield body.subarray(0, 6 * MiB);
      // Fails once the multipart upload exists on the service, so there is one to abort.
      await vi.waitFor(async () => expect(await bucket.pendingUploads()).toEqual(['multipart/big']), {
        timeout: 20_000,
        interval: 50,
      });
      throw new Error('body failed');
    }
    await expect(storage.put('big', Readable.from(failing()))).rejects.toThrow('body failed');
    expect(sent).toContain('CreateMultipartUploadCommand');
    expect(sent).toContain('AbortMultipartUploadCommand');
    expect(sent).not.toContain('CompleteMultipartUploadCommand');
    expect(await bucket.pendingUploads()).toEqual([]);
    expect((await storage.getBuffer('big')).equals(body)).toBe(true);
  });

  it('says so when the credentials are wrong', async () => {
    const storage = bucket.storage({ secretAccessKey: 'not-the-secret' });
    await expect(storage.getBuffer('a')).rejects.toThrow(
      /^S3 GetObject s3:\/\/t-\w+\/a failed: SignatureDoesNotMatch \(HTTP 403\)/,
    );
    await expect(storage.head('a')).rejects.toThrow(/failed: HTTP 403 Forbidden \(check the credentials/);
  });

  it('tells a missing bucket apart from a missing object', async () => {
    const storage = new S3Storage({ ...testS3Settings(), bucket: `missing-${bucket.bucket}`, prefix: '' });
    await expect(storage.getBuffer('a')).rejects.toThrow(/NoSuchBucket/);
    await expect(storage.getBuffer('a')).rejects.not.toBeInstanceOf(ObjectNotFound);
    await expect(storage.put('a', 'x')).rejects.toThrow(/^S3 upload s3:\/\/missing-t-\w+\/a failed: NoSuchBucket/);
    await expect(keysOf(storage.list(''))).rejects.toThrow(/NoSuchBucket/);
    storage.client.destroy();
  });
});
