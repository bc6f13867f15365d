import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalFileCache } from '../../src/engine/file-cache.js';
import { ObjectFiles } from '../../src/engine/object-files.js';
import { LocalStorage } from '../../src/storage/local.js';
import type { ObjectStorage } from '../../src/storage/storage.js';

let dir: string;
let local: LocalStorage;
let gets: string[];
let remote: ObjectStorage;

/** Local storage that pretends to be remote: no local paths, and counts downloads. */
function remoteView(inner: ObjectStorage): ObjectStorage {
  return {
    kind: 's3',
    put: (key, body, options) => inner.put(key, body, options),
    putFile: (key, path) => inner.putFile(key, path),
    get: (key, range) => {
      gets.push(key);
      return inner.get(key, range);
    },
    getBuffer: (key) => inner.getBuffer(key),
    head: (key) => inner.head(key),
    list: (prefix) => inner.list(prefix),
    delete: (keys) => inner.delete(keys),
    removeAbandonedWrites: (before, dryRun) => inner.removeAbandonedWrites(before, dryRun),
    localPath: () => null,
  };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'file-cache-'));
  local = new LocalStorage(join(dir, 'storage'));
  gets = [];
  remote = remoteView(local);
  for (const name of ['a', 'b', 'c']) await local.put(`objects/${name}.parquet`, name.repeat(100));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ref = (name: string) => ({ key: `objects/${name}.parquet`, size: 100 });

describe('LocalFileCache', () => {
  it('discards copies of deleted objects, a leased one once it is released', async () => {
    const cache = await LocalFileCache.open({ directory: join(dir, 'cache'), maxBytes: 1000 });
    const held = await cache.acquire(remote, [ref('a')]);
    (await cache.acquire(remote, [ref('b'), ref('c')])).release();
    expect((await readdir(join(dir, 'cache'))).length).toBe(3);

    await cache.discard((key) => key !== 'objects/c.parquet');
    // b went at once; a is still being read, so it stays until released.
    expect((await readdir(join(dir, 'cache'))).length).toBe(2);
    expect(await readFile(held.paths[0]!, 'utf8')).toBe('a'.repeat(100));
    expect(cache.size).toBe(100);
    held.release();
    await expect.poll(async () => (await readdir(join(dir, 'cache'))).length).toBe(1);

    // A discarded object is fetched again if asked for (here it still exists).
    (await cache.acquire(remote, [ref('b')])).release();
    expect(gets.filter((key) => key === 'objects/b.parquet')).toHaveLength(2);
  });

  it('downloads once and serves the local copy after', async () => {
    const cache = await LocalFileCache.open({ directory: join(dir, 'cache'), maxBytes: 1000 });
    const first = await cache.acquire(remote, [ref('a'), ref('b')]);
    expect(await readFile(first.paths[0]!, 'utf8')).toBe('a'.repeat(100));
    expect(first.paths[1]!.endsWith('.parquet')).toBe(true);
    first.release();
    const second = await cache.acquire(remote, [ref('a')]);
    expect(second.paths[0]).toBe(first.paths[0]);
    second.release();
    expect(gets).toEqual(['objects/a.parquet', 'objects/b.parquet']);
    expect(cache.size).toBe(200);
  });

  it('evicts the least recently used unpinned file, never a pinned one', async () => {
    const cache = await LocalFileCache.open({ directory: join(dir, 'cache'), maxBytes: 200 });
    const a = await cache.acquire(remote, [ref('a')]);
    const b = await cache.acquire(remote, [ref('b')]);
    b.release();
    // a is pinned, b is not: c pushes b out.
    const c = await cache.acquire(remote, [ref('c')]);
    expect(cache.size).toBe(200);
    // The evicted file is removed in the background.
    await expect.poll(async () => (await readdir(join(dir, 'cache'))).length).toBe(2);
    expect(await readFile(a.paths[0]!, 'utf8')).toBe('a'.repeat(100));
    a.release();
    c.release();
    // Everything in use may go over the bound for a while.
    const all = await cache.acquire(remote, [ref('a'), ref('b'), ref('c')]);
    expect(cache.size).toBe(300);
    all.release();
    expect(cache.size).toBe(200);
    await cache.clear();
    expect(cache.size).toBe(0);
  });

  it('refuses an object whose size is not the expected one, and forgets it', async () => {
    const cache = await LocalFileCache.open({ directory: join(dir, 'cache'), maxBytes: 1000 });
    await expect(cache.acquire(remote, [{ key: 'objects/a.parquet', size: 99 }])).rejects.toThrow(/has 100 bytes/);
    expect(cache.size).toBe(0);
    expect(await readdir(join(dir, 'cache'))).toEqual([]);
  });
});

describe('ObjectFiles', () => {
  it('reads local storage in place and remote storage through the cache', async () => {
    const inPlace = await new ObjectFiles(local, null).acquire([ref('a')]);
    expect(inPlace.paths).toEqual([local.localPath('objects/a.parquet')]);
    await expect(new ObjectFiles(remote, null).acquire([ref('a')])).rejects.toThrow(/needs a local file cache/);
    const cache = await LocalFileCache.open({ directory: join(dir, 'cache'), maxBytes: 1000 });
    const cached = await new ObjectFiles(remote, cache).acquire([ref('a')]);
    expect(cached.paths[0]!.startsWith(join(dir, 'cache'))).toBe(true);
    cached.release();
  });

  it('copies local files whose path DuckDB would take for a glob', async () => {
    await local.put('objects/odd[1].parquet', 'x');
    const cache = await LocalFileCache.open({ directory: join(dir, 'cache'), maxBytes: 1000 });
    const lease = await new ObjectFiles(local, cache).acquire([ref('a'), { key: 'objects/odd[1].parquet', size: 1 }]);
    expect(lease.paths[0]).toBe(local.localPath('objects/a.parquet'));
    expect(lease.paths[1]!.startsWith(join(dir, 'cache'))).toBe(true);
    lease.release();
  });
});
