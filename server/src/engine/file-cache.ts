import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ObjectStorage } from '../storage/storage.js';

/** An object to have on local disk: its key and its size (part of the identity, objects are immutable). */
export interface ObjectRef {
  key: string;
  size: number;
}

/** Local paths for objects, valid until `release()`. */
export interface FileLease {
  readonly paths: string[];
  release(): void;
}

export interface LocalFileCacheOptions {
  /** A directory the cache owns; whatever it holds at `open` is deleted. */
  directory: string;
  /** Total size of the cached files; files in use may push it over for a while. */
  maxBytes: number;
}

interface Entry {
  key: string;
  path: string;
  size: number;
  pins: number;
  /** Resolves once the file is complete; rejects when the download failed. */
  ready: Promise<void>;
  /** Discarded while pinned: the file goes when the last lease lets go. */
  discarded: boolean;
}

/**
 * Local copies of remote objects for DuckDB, which reads only local files. Bounded in size, least
 * recently used first out; a file leased to a running query is never evicted. Entries are keyed by
 * object key and size, which is safe for the immutable objects of Delta tables (data files,
 * checkpoints); don't use it for objects that are overwritten in place.
 */
export class LocalFileCache {
  /** In least-recently-used order (a Map keeps insertion order; a hit re-inserts). */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  private constructor(private readonly options: LocalFileCacheOptions) {}

  static async open(options: LocalFileCacheOptions): Promise<LocalFileCache> {
    await rm(options.directory, { recursive: true, force: true });
    await mkdir(options.directory, { recursive: true });
    return new LocalFileCache(options);
  }

  /** Bytes of the files currently cached (complete or downloading). */
  get size(): number {
    return this.bytes;
  }

  /** Downloads what is missing and pins every file until the lease is released. */
  async acquire(storage: ObjectStorage, objects: readonly ObjectRef[]): Promise<FileLease> {
    const pinned: Entry[] = [];
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      for (const entry of pinned) {
        entry.pins -= 1;
        if (entry.discarded && entry.pins === 0) void removeFile(entry);
      }
      this.evict();
    };
    try {
      for (const object of objects) pinned.push(this.pin(storage, object));
      await Promise.all(pinned.map((entry) => entry.ready));
    } catch (error) {
      release();
      throw error;
    }
    return { paths: pinned.map((entry) => entry.path), release };
  }

  private pin(storage: ObjectStorage, object: ObjectRef): Entry {
    const id = `${object.key}\0${object.size}`;
    const existing = this.entries.get(id);
    if (existing !== undefined) {
      this.entries.delete(id);
      this.entries.set(id, existing);
      existing.pins += 1;
      return existing;
    }
    const name = createHash('sha256').update(id).digest('hex').slice(0, 40) + safeExtension(object.key);
    const path = join(this.options.directory, name);
    const entry: Entry = {
      key: object.key,
      path,
      size: object.size,
      pins: 1,
      ready: Promise.resolve(),
      discarded: false,
    };
    entry.ready = this.download(storage, object, path).catch(async (error: unknown) => {
      if (this.entries.get(id) === entry) {
        this.entries.delete(id);
        this.bytes -= entry.size;
      }
      throw error;
    });
    this.entries.set(id, entry);
    this.bytes += entry.size;
    this.evict();
    return entry;
  }

  private async download(storage: ObjectStorage, object: ObjectRef, path: string): Promise<void> {
    const temporary = `${path}.${randomUUID()}.part`;
    try {
      await pipeline(await storage.get(object.key), createWriteStream(temporary, { flags: 'wx' }));
      const written = (await stat(temporary)).size;
      if (written !== object.size) {
        throw new Error(`object ${object.key} has ${written} bytes, expected ${object.size}`);
      }
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  private evict(): void {
    for (const [id, entry] of this.entries) {
      if (this.bytes <= this.options.maxBytes) return;
      if (entry.pins > 0) continue;
      this.entries.delete(id);
      this.bytes -= entry.size;
      // A settled, unpinned entry: its download finished (or failed and already left).
      void entry.ready.then(
        () => rm(entry.path, { force: true }),
        () => undefined,
      );
    }
  }

  /** Keys of the objects copied here. */
  keys(): string[] {
    return [...new Set([...this.entries.values()].map((entry) => entry.key))];
  }

  /**
   * Drops the copies of the objects `matches` picks (their objects were deleted, e.g. with their
   * project), so no local copy outlives them; a copy a query still reads goes when it is released.
   */
  async discard(matches: (key: string) => boolean): Promise<void> {
    const removals: Promise<void>[] = [];
    for (const [id, entry] of this.entries) {
      if (!matches(entry.key)) continue;
      this.entries.delete(id);
      this.bytes -= entry.size;
      entry.discarded = true;
      if (entry.pins === 0) removals.push(removeFile(entry));
    }
    await Promise.all(removals);
  }

  /** Forgets every unpinned file. */
  async clear(): Promise<void> {
    const removals: Promise<void>[] = [];
    for (const [id, entry] of this.entries) {
      if (entry.pins > 0) continue;
      this.entries.delete(id);
      this.bytes -= entry.size;
      removals.push(entry.ready.then(() => rm(entry.path, { force: true })).catch(() => undefined));
    }
    await Promise.all(removals);
  }
}

/** Deletes a settled entry's file (a failed download left none). */
function removeFile(entry: Entry): Promise<void> {
  return entry.ready.then(() => rm(entry.path, { force: true })).catch(() => undefined);
}

function safeExtension(key: string): string {
  const extension = extname(key);
  return /^\.[A-Za-z0-9]{1,12}$/.test(extension) ? extension : '';
}
