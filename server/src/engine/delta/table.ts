import type { SqlConnection } from '../duckdb.js';
import type { CommitClaims } from './commit-claims.js';
import type { DeltaEngine } from './engine.js';
import { DeltaTableNotFound } from './errors.js';
import { createDeltaView, type DeltaScan, type DeltaView, openScan, type ParquetColumnsMemo } from './reader.js';
import { type DeltaSnapshot, latestVersion, listLog, loadSnapshot, type SnapshotOptions } from './snapshot.js';
import { type VacuumOptions, type VacuumResult, vacuum } from './vacuum.js';
import { type CommitOptions, type CommitRequest, type CommitResult, commit } from './writer.js';

/** One Delta table in storage: the handle services use. */
export class DeltaTable {
  constructor(
    private readonly engine: DeltaEngine,
    private readonly claims: CommitClaims,
    /** The id commits are claimed under (the data collection id). */
    readonly tableId: string,
    /** The key prefix, e.g. `deltatables/<id>`. */
    readonly root: string,
  ) {}

  /** The latest version, or null when the table has no commit yet. */
  latestVersion(): Promise<number | null> {
    return latestVersion(this.engine.storage, this.root);
  }

  async exists(): Promise<boolean> {
    return (await this.latestVersion()) !== null;
  }

  /** The table at a version (the latest by default). */
  snapshot(options: SnapshotOptions = {}): Promise<DeltaSnapshot> {
    return loadSnapshot(this.engine, this.root, options);
  }

  /** A SELECT over a snapshot (see `openScan`); release it when the queries are done. */
  async scan(connection: SqlConnection, snapshot?: DeltaSnapshot, memo?: ParquetColumnsMemo): Promise<DeltaScan> {
    return openScan(this.engine, connection, snapshot ?? (await this.snapshot()), memo);
  }

  /** A temporary view over a snapshot in the connection (see `createDeltaView`). */
  async view(connection: SqlConnection, name: string, snapshot?: DeltaSnapshot): Promise<DeltaView> {
    return createDeltaView(this.engine, connection, name, snapshot ?? (await this.snapshot()));
  }

  commit(request: Omit<CommitRequest, 'tableId' | 'root'>, options?: CommitOptions): Promise<CommitResult> {
    return commit(this.engine, this.claims, { ...request, tableId: this.tableId, root: this.root }, options);
  }

  vacuum(options: VacuumOptions): Promise<VacuumResult> {
    return vacuum(this.engine, this.root, options);
  }

  /** Versions still in the log, with the times their commit files were written. */
  async history(): Promise<{ version: number; modifiedAt: Date }[]> {
    try {
      const listing = await listLog(this.engine.storage, this.root);
      return [...listing.commits]
        .map(([version, object]) => ({ version, modifiedAt: object.modifiedAt }))
        .sort((a, b) => a.version - b.version);
    } catch (error) {
      if (error instanceof DeltaTableNotFound) return [];
      throw error;
    }
  }

  /** Deletes every object of the table and its commit claims. */
  async drop(): Promise<void> {
    const keys: string[] = [];
    for await (const object of this.engine.storage.list(`${this.root}/`)) keys.push(object.key);
    for (let start = 0; start < keys.length; start += 1000) {
      await this.engine.storage.delete(keys.slice(start, start + 1000));
    }
    await this.claims.forget(this.tableId);
  }
}
