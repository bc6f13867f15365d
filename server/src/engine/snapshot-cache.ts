import type { ObjectStorage, StoredObject } from '../storage/storage.js';
import type { DeltaSnapshot, DeltaTable, ParquetColumnsMemo } from './delta/index.js';
import { commitKey } from './delta/log-files.js';

/** What readers keep of one table version: it never changes once the version is committed. */
export interface TableVersion {
  snapshot: DeltaSnapshot;
  /** The row count from the files' statistics (`numRecords`), or null when a file has none. */
  rows: number | null;
  /** The Parquet files' columns, filled by the first scan of this version. */
  columns: ParquetColumnsMemo;
}

interface Entry extends TableVersion {
  /** The version's commit file as it was when the snapshot was read. */
  commit: StoredObject;
}

const sameObject = (a: StoredObject | null, b: StoredObject) =>
  a !== null && a.size === b.size && a.modifiedAt.getTime() === b.modifiedAt.getTime() && a.etag === b.etag;

/**
 * Snapshots of table versions for the read path, least recently used first out. A version is
 * served from memory only after checking storage cheaply (one or two HEADs, done together): its
 * commit file is still the one it was read from (same size, time and, on S3, ETag: a table dropped
 * and written again starts over at version 0 with other files), and, for the latest version, the
 * next commit does not exist yet. A new commit is therefore seen by the next read, whichever
 * process wrote it. Versions whose commit file is gone (log cleanup after a checkpoint) are read
 * from the log every time.
 */
export class SnapshotCache {
  private readonly entries = new Map<string, Entry>();
  /** The newest version cached per table root. */
  private readonly latest = new Map<string, number>();
  /** Files and tombstones of the cached snapshots: what their memory grows with. */
  private weight = 0;

  constructor(
    private readonly storage: ObjectStorage,
    private readonly limits: { versions: number; files: number } = { versions: 64, files: 100_000 },
  ) {}

  /** The table at `version`, the latest by default; errors as `DeltaTable.snapshot`. */
  async get(table: DeltaTable, version?: number): Promise<TableVersion> {
    const root = table.root;
    const candidate = version ?? this.latest.get(root);
    if (candidate !== undefined) {
      const entry = this.entries.get(key(root, candidate));
      if (entry !== undefined && (await this.current(root, entry, version === undefined))) {
        this.touch(key(root, candidate), entry);
        return entry;
      }
    }
    const snapshot = await table.snapshot(version === undefined ? {} : { version });
    const commit = await this.storage.head(commitKey(root, snapshot.version));
    const loaded: TableVersion = { snapshot, rows: rowCount(snapshot), columns: new Map() };
    if (commit === null || weightOf(snapshot) > this.limits.files) return loaded;
    const entry: Entry = { ...loaded, commit };
    this.touch(key(root, snapshot.version), entry);
    if (version === undefined || snapshot.version >= (this.latest.get(root) ?? -1)) {
      this.latest.set(root, snapshot.version);
    }
    return entry;
  }

  private async current(root: string, entry: Entry, latest: boolean): Promise<boolean> {
    const version = entry.snapshot.version;
    const [commit, next] = await Promise.all([
      this.storage.head(commitKey(root, version)),
      latest ? this.storage.head(commitKey(root, version + 1)) : null,
    ]);
    return next === null && sameObject(commit, entry.commit);
  }

  private touch(id: string, entry: Entry): void {
    const previous = this.entries.get(id);
    if (previous !== undefined) {
      this.entries.delete(id);
      this.weight -= weightOf(previous.snapshot);
    }
    this.entries.set(id, entry);
    this.weight += weightOf(entry.snapshot);
    for (const [oldest, evicted] of this.entries) {
      if (this.entries.size <= this.limits.versions && this.weight <= this.limits.files) break;
      this.entries.delete(oldest);
      this.weight -= weightOf(evicted.snapshot);
      const { root, version } = evicted.snapshot;
      if (this.latest.get(root) === version) this.latest.delete(root);
    }
  }
}

function weightOf(snapshot: DeltaSnapshot): number {
  return 1 + snapshot.files.length + snapshot.tombstones.length;
}

function key(root: string, version: number): string {
  return `${root}\0${version}`;
}

function rowCount(snapshot: DeltaSnapshot): number | null {
  let rows = 0;
  for (const file of snapshot.files) {
    const records = file.stats?.numRecords;
    if (typeof records !== 'number' || !Number.isSafeInteger(records) || records < 0) return null;
    rows += records;
  }
  return rows;
}
