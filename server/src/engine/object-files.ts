import type { ObjectStorage } from '../storage/storage.js';
import type { FileLease, LocalFileCache, ObjectRef } from './file-cache.js';

/** Characters DuckDB would read as a glob pattern in a file path. */
const GLOB = /[*?[\]{}]/;

/**
 * Local paths DuckDB can read for stored objects: the object itself on local storage, otherwise a
 * copy in the local cache, pinned until the lease is released.
 */
export class ObjectFiles {
  constructor(
    readonly storage: ObjectStorage,
    private readonly cache: LocalFileCache | null,
  ) {}

  async acquire(objects: readonly ObjectRef[]): Promise<FileLease> {
    const direct = objects.map((object) => {
      const path = this.storage.localPath(object.key);
      return path !== null && !GLOB.test(path) ? path : null;
    });
    const remote = objects.filter((_, index) => direct[index] === null);
    if (remote.length === 0) return { paths: direct as string[], release: () => undefined };
    if (this.cache === null) {
      throw new Error(`storage ${this.storage.kind} needs a local file cache for DuckDB to read ${remote[0]!.key}`);
    }
    const lease = await this.cache.acquire(this.storage, remote);
    let next = 0;
    const paths = direct.map((path) => path ?? lease.paths[next++]!);
    return { paths, release: () => lease.release() };
  }

  /** Keys of the objects with a local copy (none on local storage). */
  cachedKeys(): string[] {
    return this.cache?.keys() ?? [];
  }

  /** Forgets local copies of deleted objects (see `LocalFileCache.discard`); local storage has none. */
  async discard(matches: (key: string) => boolean): Promise<void> {
    await this.cache?.discard(matches);
  }
}
