import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestBucket, s3Available } from '../../../test/support/s3-storage.js';
import { LocalStorage } from '../../src/storage/local.js';
import { ObjectNotFound, type ObjectStorage } from '../../src/storage/storage.js';

/**
 * The behaviour every ObjectStorage backend promises, run against each of them: a local directory,
 * and a fresh bucket on the S3 service the global setup found (skipped when there is none).
 */
interface Harness {
  storage: ObjectStorage;
  /** Traces of unfinished writes: temporary files, multipart uploads, objects outside the prefix. */
  leftovers(): Promise<string[]>;
  close(): Promise<void>;
}

const MiB = 1024 * 1024;
const S3_PREFIX = 'tenant/contract';

const backends: { name: string; skip: boolean; open(): Promise<Harness> }[] = [
  {
    name: 'local',
    skip: false,
    async open() {
      const root = await mkdtemp(join(tmpdir(), 'storage-contract-'));
      return {
        storage: new LocalStorage(root),
        async leftovers() {
          try {
            return await readdir(join(root, '.tmp'));
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
            throw error;
          }
        },
        close: () => rm(root, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 's3',
    skip: !s3Available(),
    async open() {
      const bucket = await createTestBucket();
      return {
        storage: bucket.storage({ prefix: S3_PREFIX }),
        async leftovers() {
          const uploads = (await bucket.pendingUploads()).map((key) => `pending multipart upload: ${key}`);
          const stray = (await bucket.keys()).filter((key) => !key.startsWith(`${S3_PREFIX}/`));
          return [...uploads, ...stray];
        },
        close: () => bucket.drop(),
      };
    },
  },
];

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function sha256(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/**
 * `total` random bytes in chunks of an odd size (so parts never line up with chunks); `failAt`
 * makes the stream error once that many bytes are out; `holdAt` stops it once that many bytes are
 * out (`held` resolves then) until `release()`.
 */
function generated(total: number, options: { failAt?: number; holdAt?: number; chunkSize?: number } = {}) {
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let reached = () => {};
  const held = new Promise<void>((resolve) => {
    reached = resolve;
  });
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  async function* produce(): AsyncGenerator<Buffer> {
    let sent = 0;
    let holding = options.holdAt !== undefined;
    while (sent < total) {
      if (options.failAt !== undefined && sent >= options.failAt) throw new Error('source failed midway');
      if (holding && sent >= (options.holdAt ?? 0)) {
        holding = false;
        reached();
        await released;
      }
      const chunk = randomBytes(Math.min(total - sent, options.chunkSize ?? 1_000_003));
      hash.update(chunk);
      chunks.push(chunk);
      sent += chunk.length;
      yield chunk;
    }
    if (options.failAt !== undefined) throw new Error('source failed midway');
  }
  return {
    stream: Readable.from(produce(), { objectMode: false }),
    sha256: () => hash.digest('hex'),
    bytes: () => Buffer.concat(chunks),
    held,
    release,
  };
}

/** A directory on another filesystem than the temp dir (a tmpfs), to move files across devices; null without one. */
const crossDevice = (() => {
  try {
    return statSync('/dev/shm').isDirectory() && statSync('/dev/shm').dev !== statSync(tmpdir()).dev
      ? '/dev/shm'
      : null;
  } catch {
    return null;
  }
})();

const UNSAFE_KEYS = ['../x', '/abs', 'a//b', 'a/./b', 'a/../b', '', 'a/', 'a\\b'];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`storage contract: ${backend.name}`, () => {
    let harness: Harness;
    let storage: ObjectStorage;
    /** A key namespace of its own for each test. */
    let ns: string;

    beforeAll(async () => {
      harness = await backend.open();
      storage = harness.storage;
    });
    afterAll(async () => {
      await harness?.close();
    });
    const fresh = () => {
      ns = `t-${randomUUID()}`;
      return ns;
    };

    it('round-trips buffers, strings and streams', async () => {
      fresh();
      const buffer = randomBytes(4096);
      expect(await storage.put(`${ns}/buffer.bin`, buffer)).toEqual({ size: 4096 });
      expect(await storage.put(`${ns}/text.txt`, 'grüße, world', { contentType: 'text/plain' })).toEqual({
        size: Buffer.byteLength('grüße, world'),
      });
      expect(
        await storage.put(`${ns}/deep/er/stream.bin`, Readable.from([Buffer.from('ab'), Buffer.from('cd')])),
      ).toEqual({ size: 4 });

      expect((await storage.getBuffer(`${ns}/buffer.bin`)).equals(buffer)).toBe(true);
      expect((await readAll(await storage.get(`${ns}/buffer.bin`))).equals(buffer)).toBe(true);
      expect((await storage.getBuffer(`${ns}/text.txt`)).toString()).toBe('grüße, world');
      expect((await storage.getBuffer(`${ns}/deep/er/stream.bin`)).toString()).toBe('abcd');
    });

    it('stores empty objects', async () => {
      fresh();
      expect(await storage.put(`${ns}/empty-buffer`, Buffer.alloc(0))).toEqual({ size: 0 });
      expect(await storage.put(`${ns}/empty-stream`, Readable.from([]))).toEqual({ size: 0 });
      expect((await storage.getBuffer(`${ns}/empty-buffer`)).length).toBe(0);
      expect((await readAll(await storage.get(`${ns}/empty-stream`))).length).toBe(0);
      expect((await storage.head(`${ns}/empty-stream`))?.size).toBe(0);
    });

    it('uploads local files', async () => {
      fresh();
      const dir = await mkdtemp(join(tmpdir(), 'storage-putfile-'));
      try {
        const file = join(dir, 'data.parquet');
        const content = randomBytes(70_000);
        await writeFile(file, content);
        expect(await storage.putFile(`${ns}/data.parquet`, file)).toEqual({ size: 70_000 });
        expect((await storage.getBuffer(`${ns}/data.parquet`)).equals(content)).toBe(true);
        await expect(storage.putFile(`${ns}/missing`, join(dir, 'missing'))).rejects.toThrow(/ENOENT/);
        expect(await storage.head(`${ns}/missing`)).toBeNull();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('takes over local files given up with move, and leaves them when the move fails', async () => {
      fresh();
      const dir = await mkdtemp(join(tmpdir(), 'storage-move-'));
      try {
        const file = join(dir, 'data.parquet');
        const content = randomBytes(70_000);
        await writeFile(file, content);
        const before = await stat(file);
        expect(await storage.putFile(`${ns}/moved.parquet`, file, { move: true })).toEqual({ size: 70_000 });
        expect((await storage.getBuffer(`${ns}/moved.parquet`)).equals(content)).toBe(true);
        if (storage.kind === 'local') {
          // Renamed, not copied: the same file, now under the storage root, and gone from where it was.
          expect((await stat(storage.localPath(`${ns}/moved.parquet`) as string)).ino).toBe(before.ino);
          await expect(stat(file)).rejects.toThrow(/ENOENT/);
        } else {
          expect((await readFile(file)).equals(content)).toBe(true);
        }
        // Over an existing object: replaced whole.
        const second = randomBytes(1000);
        await writeFile(file, second);
        expect(await storage.putFile(`${ns}/moved.parquet`, file, { move: true })).toEqual({ size: 1000 });
        expect((await storage.getBuffer(`${ns}/moved.parquet`)).equals(second)).toBe(true);

        await expect(storage.putFile(`${ns}/missing`, join(dir, 'missing'), { move: true })).rejects.toThrow(/ENOENT/);
        await expect(storage.putFile(`${ns}/a-directory`, dir, { move: true })).rejects.toThrow();
        expect(await storage.head(`${ns}/missing`)).toBeNull();
        expect(await storage.head(`${ns}/a-directory`)).toBeNull();
        expect((await stat(dir)).isDirectory()).toBe(true);
        expect(await harness.leftovers()).toEqual([]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it.runIf(backend.name === 'local' && crossDevice !== null)(
      'moves a file from another filesystem by copying it, then deleting it',
      async () => {
        fresh();
        const dir = await mkdtemp(join(crossDevice as string, 'storage-move-'));
        try {
          const file = join(dir, 'data.parquet');
          const content = randomBytes(50_000);
          await writeFile(file, content);
          expect(await storage.putFile(`${ns}/crossed.parquet`, file, { move: true })).toEqual({ size: 50_000 });
          expect((await storage.getBuffer(`${ns}/crossed.parquet`)).equals(content)).toBe(true);
          await expect(stat(file)).rejects.toThrow(/ENOENT/);
          expect(await harness.leftovers()).toEqual([]);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    );

    it('overwrites atomically: readers see the old object until the new one is complete', async () => {
      fresh();
      const key = `${ns}/object`;
      await storage.put(key, 'old content, longer than the new one');
      const slow = generated(64 * 1024, { holdAt: 32 * 1024, chunkSize: 4096 });
      const writing = storage.put(key, slow.stream);
      // Half the new content is out of the source; the rest is held back until the read is done.
      try {
        const first = await Promise.race([slow.held.then(() => 'held'), writing.then(() => 'write ended')]);
        expect(first).toBe('held');
        expect((await storage.getBuffer(key)).toString()).toBe('old content, longer than the new one');
      } finally {
        slow.release();
      }
      expect(await writing).toEqual({ size: 64 * 1024 });
      expect((await storage.getBuffer(key)).equals(slow.bytes())).toBe(true);
      expect((await storage.head(key))?.size).toBe(64 * 1024);
      expect(await harness.leftovers()).toEqual([]);
    });

    it('reads byte ranges (inclusive end)', async () => {
      fresh();
      const key = `${ns}/letters`;
      await storage.put(key, 'abcdefghij');
      const range = async (start: number, end?: number) =>
        (await readAll(await storage.get(key, end === undefined ? { start } : { start, end }))).toString();
      expect(await range(2, 5)).toBe('cdef');
      expect(await range(0, 0)).toBe('a');
      expect(await range(7)).toBe('hij');
      expect(await range(0)).toBe('abcdefghij');
      expect(await range(8, 100)).toBe('ij');
      expect(await range(10)).toBe('');
      await expect(storage.get(`${ns}/absent`, { start: 0, end: 3 })).rejects.toBeInstanceOf(ObjectNotFound);
    });

    it('heads objects: size and modification time, null when absent', async () => {
      fresh();
      const before = Date.now();
      await storage.put(`${ns}/x`, randomBytes(1234));
      const info = await storage.head(`${ns}/x`);
      expect(info).toMatchObject({ key: `${ns}/x`, size: 1234 });
      expect(info?.modifiedAt).toBeInstanceOf(Date);
      // S3 keeps whole seconds; clocks of a remote service may drift a little.
      expect(Math.abs(info!.modifiedAt.getTime() - before)).toBeLessThan(5 * 60_000);
      expect(await storage.head(`${ns}/y`)).toBeNull();
      expect(await storage.head(`${ns}`)).toBeNull();
    });

    it('lists by prefix, in key order, with sizes', async () => {
      fresh();
      const sizes: Record<string, number> = {
        [`${ns}/b.txt`]: 1,
        [`${ns}/a/2`]: 2,
        [`${ns}/a/10`]: 10,
        [`${ns}/a/1`]: 3,
        [`${ns}/ab`]: 4,
        [`${ns}/c/d/e`]: 5,
      };
      for (const [key, size] of Object.entries(sizes)) await storage.put(key, Buffer.alloc(size, 1));
      await storage.put(`${ns}x/outside`, 'sibling namespace');

      const list = async (prefix: string) => {
        const found = [];
        for await (const object of storage.list(prefix)) found.push(object);
        return found;
      };
      const keys = async (prefix: string) => (await list(prefix)).map((object) => object.key);

      expect(await keys(`${ns}/a/`)).toEqual([`${ns}/a/1`, `${ns}/a/10`, `${ns}/a/2`]);
      expect(await keys(`${ns}/a`)).toEqual([`${ns}/a/1`, `${ns}/a/10`, `${ns}/a/2`, `${ns}/ab`]);
      expect(await keys(`${ns}/a/1`)).toEqual([`${ns}/a/1`, `${ns}/a/10`]);
      expect(await keys(`${ns}/c/`)).toEqual([`${ns}/c/d/e`]);
      expect(await keys(`${ns}/nothing/`)).toEqual([]);
      const all = await list(`${ns}/`);
      expect(all.map((object) => object.key)).toEqual(Object.keys(sizes).sort());
      for (const object of all) {
        expect(object.size).toBe(sizes[object.key]);
        expect(object.modifiedAt).toBeInstanceOf(Date);
      }
      expect(await keys(ns)).toEqual([...Object.keys(sizes).sort(), `${ns}x/outside`]);
    });

    it('deletes objects, ignoring absent ones', async () => {
      fresh();
      for (const name of ['a', 'b', 'c/d', 'e']) await storage.put(`${ns}/${name}`, name);
      await storage.delete([`${ns}/a`, `${ns}/c/d`, `${ns}/never-existed`, `${ns}/a`]);
      await storage.delete([]);
      expect(await storage.head(`${ns}/a`)).toBeNull();
      expect(await storage.head(`${ns}/c/d`)).toBeNull();
      const left = [];
      for await (const object of storage.list(`${ns}/`)) left.push(object.key);
      expect(left).toEqual([`${ns}/b`, `${ns}/e`]);
      await storage.delete([`${ns}/a`]);
    });

    it('lands writes that race deletes of the last object in the same folder', async () => {
      fresh();
      // The window is small: many rounds locally, where they are cheap.
      const rounds = storage.kind === 'local' ? 500 : 10;
      for (let round = 0; round < rounds; round++) {
        await storage.put(`${ns}/d/last`, 'x');
        await Promise.all([storage.delete([`${ns}/d/last`]), storage.put(`${ns}/d/new-${round}`, 'y')]);
        expect(await storage.head(`${ns}/d/new-${round}`)).not.toBeNull();
        await storage.delete([`${ns}/d/new-${round}`]);
      }
    });

    it('reports absent objects as ObjectNotFound', async () => {
      fresh();
      const key = `${ns}/absent`;
      await expect(storage.get(key)).rejects.toBeInstanceOf(ObjectNotFound);
      await expect(storage.getBuffer(key)).rejects.toMatchObject({ name: 'ObjectNotFound', key });
      await storage.put(key, 'now here');
      await storage.delete([key]);
      await expect(storage.getBuffer(key)).rejects.toBeInstanceOf(ObjectNotFound);
    });

    it('refuses unsafe keys in every operation', async () => {
      for (const key of UNSAFE_KEYS) {
        const invalid = /invalid storage key/;
        await expect(storage.put(key, 'x'), key).rejects.toThrow(invalid);
        await expect(storage.put(key, Readable.from(['x'])), key).rejects.toThrow(invalid);
        await expect(storage.putFile(key, '/etc/hostname'), key).rejects.toThrow(invalid);
        await expect(storage.get(key), key).rejects.toThrow(invalid);
        await expect(storage.getBuffer(key), key).rejects.toThrow(invalid);
        await expect(storage.head(key), key).rejects.toThrow(invalid);
        await expect(storage.delete(['fine', key]), key).rejects.toThrow(invalid);
      }
      expect(await harness.leftovers()).toEqual([]);
    });

    it('round-trips a large object (multipart on S3) with the same SHA-256', { timeout: 180_000 }, async () => {
      fresh();
      const size = 20 * MiB + 12_345;
      const source = generated(size);
      expect(await storage.put(`${ns}/large.bin`, source.stream)).toEqual({ size });
      const expected = source.sha256();
      expect((await storage.head(`${ns}/large.bin`))?.size).toBe(size);
      expect(await sha256(await storage.get(`${ns}/large.bin`))).toBe(expected);
      // A range across the first 8 MiB part boundary.
      const bytes = source.bytes();
      const slice = await readAll(await storage.get(`${ns}/large.bin`, { start: 8 * MiB - 100, end: 8 * MiB + 99 }));
      expect(slice.equals(bytes.subarray(8 * MiB - 100, 8 * MiB + 100))).toBe(true);
      await storage.delete([`${ns}/large.bin`]);
    });

    it('leaves nothing behind when the source fails midway', { timeout: 120_000 }, async () => {
      fresh();
      // Past the first 8 MiB part, so that S3 has started a multipart upload when the source fails.
      const failing = generated(20 * MiB, { failAt: 10 * MiB });
      await expect(storage.put(`${ns}/new`, failing.stream)).rejects.toThrow('source failed midway');
      expect(await storage.head(`${ns}/new`)).toBeNull();
      await expect(storage.getBuffer(`${ns}/new`)).rejects.toBeInstanceOf(ObjectNotFound);

      await storage.put(`${ns}/existing`, 'old content');
      const small = generated(1000, { failAt: 500 });
      await expect(storage.put(`${ns}/existing`, small.stream)).rejects.toThrow('source failed midway');
      const large = generated(20 * MiB, { failAt: 17 * MiB });
      await expect(storage.put(`${ns}/existing`, large.stream)).rejects.toThrow('source failed midway');
      expect((await storage.getBuffer(`${ns}/existing`)).toString()).toBe('old content');

      const listed = [];
      for await (const object of storage.list(`${ns}/`)) listed.push(object.key);
      expect(listed).toEqual([`${ns}/existing`]);
      expect(await harness.leftovers()).toEqual([]);
    });

    it('leaves nothing behind when the source fails before its first byte', async () => {
      fresh();
      // As an upload refused as too large does: the write may still be opening its file.
      for (let attempt = 0; attempt < 50; attempt++) {
        const failing = new Readable({
          read() {
            this.destroy(new Error('refused at once'));
          },
        });
        await expect(storage.put(`${ns}/never`, failing)).rejects.toThrow('refused at once');
        expect(await harness.leftovers(), `attempt ${attempt}`).toEqual([]);
      }
      expect(await storage.head(`${ns}/never`)).toBeNull();
    });
  });
}

describe('local storage', () => {
  it('removes the folders a delete leaves empty, up to its root', async () => {
    const root = await mkdtemp(join(tmpdir(), 'storage-local-'));
    try {
      const storage = new LocalStorage(root);
      await storage.put('tables/t1/_log/0.json', '{}');
      await storage.put('tables/t1/part-0.parquet', 'p');
      await storage.put('tables/t2/part-0.parquet', 'p');
      await storage.delete(['tables/t1/_log/0.json', 'tables/t1/part-0.parquet']);
      expect(await readdir(join(root, 'tables'))).toEqual(['t2']);
      await storage.delete(['tables/t2/part-0.parquet']);
      // Only the storage's own folder for writes in progress is left.
      expect(await readdir(root)).toEqual(['.tmp']);
      // The root itself stays, and writing goes on.
      await storage.put('tables/t3/x', 'x');
      expect(await storage.head('tables/t3/x')).not.toBeNull();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
