import type { Readable } from 'node:stream';

export interface StoredObject {
  key: string;
  size: number;
  modifiedAt: Date;
  /** The content's tag where the backend gives one (S3's ETag from `head`): tells objects apart within a second. */
  etag?: string;
}

/**
 * Object storage as the rest of the server sees it: keys are `/`-separated relative paths
 * (never absolute, never `..`). Writes are atomic: a reader sees the old object or the whole new
 * one, never a part. Two backends: a local directory and S3.
 */
export interface ObjectStorage {
  readonly kind: 'local' | 's3';
  /** Writes an object from a stream or buffer; a failed write leaves nothing behind. */
  put(key: string, body: Readable | Buffer | string, options?: { contentType?: string }): Promise<{ size: number }>;
  /**
   * Stores a local file (e.g. a Parquet file DuckDB wrote). With `move`, the caller gives the file
   * up: a local directory renames it into place (no copy; across filesystems it copies, then deletes
   * it), S3 uploads it and leaves it where it is.
   */
  putFile(key: string, localPath: string, options?: { move?: boolean }): Promise<{ size: number }>;
  /** Reads an object, optionally a byte range (inclusive `end`); `ObjectNotFound` when absent. */
  get(key: string, range?: { start: number; end?: number }): Promise<Readable>;
  /** Reads a whole (small) object into memory; `ObjectNotFound` when absent. */
  getBuffer(key: string): Promise<Buffer>;
  /** Size and modification time, or null when absent. */
  head(key: string): Promise<StoredObject | null>;
  /** Every object whose key starts with `prefix`, in key order. */
  list(prefix: string): AsyncIterable<StoredObject>;
  /** Deletes objects; absent ones are ignored. */
  delete(keys: string[]): Promise<void>;
  /**
   * Removes (unless `dryRun`) what writes cut short by a crashed process left behind, if they were
   * started before `before`: a local directory's temporary files, S3's incomplete multipart uploads
   * (whose parts are stored, and billed, until aborted). Answers how many, and their bytes where known.
   */
  removeAbandonedWrites(before: Date, dryRun: boolean): Promise<AbandonedWrites>;
  /**
   * Where DuckDB can read the object directly, when the backend is a local directory;
   * null for remote backends, whose objects go through the local cache instead.
   */
  localPath(key: string): string | null;
}

export interface AbandonedWrites {
  count: number;
  bytes: number;
}

export class ObjectNotFound extends Error {
  constructor(readonly key: string) {
    super(`object not found: ${key}`);
    this.name = 'ObjectNotFound';
  }
}

/** Refuses keys that could escape the storage root or address nothing. */
export function assertSafeKey(key: string): void {
  const parts = key.split('/');
  if (
    key === '' ||
    key.startsWith('/') ||
    key.includes('\\') ||
    key.includes('\0') ||
    parts.some((part) => part === '' || part === '.' || part === '..')
  ) {
    throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
  }
}
