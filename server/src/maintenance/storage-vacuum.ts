import { join } from 'node:path';
import { VACUUM_LISTED_KEYS, type VacuumAnswer } from '@service/common';
import type { Kysely } from 'kysely';
import { chunks } from '../db/chunks.js';
import type { Tables } from '../db/tables.js';
import { KyselyCommitClaims } from '../engine/delta/kysely-commit-claims.js';
import type { DeltaTable } from '../engine/delta/table.js';
import { TABLES_PREFIX, THUMBNAILS_PREFIX, UPLOADS_PREFIX } from '../storage/layout.js';
import { type LeftoverPlace, removeLeftovers } from '../storage/leftover-files.js';
import type { StoredObject } from '../storage/storage.js';
import { dataCollectionRows } from '../tables/data-collections.js';
import { fileRows } from '../tables/files.js';
import type { StoragePurger } from './owned-storage.js';

const HOUR = 60 * 60 * 1000;

export interface VacuumRunOptions {
  dryRun?: boolean;
  /** The clock (ms); now by default. */
  now?: number;
}

/**
 * Where the processes on a data directory keep work files they remove themselves when they finish
 * (context.ts creates them): DuckDB's spill directory, upsert and Delta checkpoint work directories,
 * downloads being sent, and a native copy's unfinished files (the finished copies stay: their
 * manager owns them).
 */
export function workFilePlaces(dataDir: string): LeftoverPlace[] {
  const tmp = join(dataDir, 'tmp');
  return [
    { directory: join(tmp, 'duckdb') },
    { directory: tmp, entries: /^(upsert-|delta-checkpoint-|preview-)/ },
    { directory: join(tmp, 'downloads') },
    { directory: join(tmp, 'copies'), entries: /\.(partial|partial\.wal|staging|staging\.wal|spill)$/ },
  ];
}

/**
 * `POST /internal/vacuum`: vacuums every data collection's Delta table, and removes what deleted
 * rows left in storage. Safe to run on several replicas at once (deleting is idempotent) and
 * beside writers (see the comments on each part).
 */
/** One vacuum run: its answer, what it removed so far, where failures go, and its clock. */
interface VacuumPass {
  answer: VacuumAnswer;
  removed: StoredObject[];
  fail: (target: string, error: unknown) => void;
  now: number;
  retentionMs: number;
  dryRun: boolean;
}

export class StorageVacuum {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly purger: StoragePurger,
    private readonly tableOf: (dataCollectionId: string) => DeltaTable,
    readonly retentionHours: number,
    /** Where processes keep work files under the data directory (see `removeLeftovers`). */
    private readonly leftovers: readonly LeftoverPlace[] = [],
  ) {}

  async run(options: VacuumRunOptions = {}): Promise<VacuumAnswer> {
    const dryRun = options.dryRun === true;
    const now = options.now ?? Date.now();
    const retentionMs = this.retentionHours * HOUR;
    const removed: StoredObject[] = [];
    const answer: VacuumAnswer = {
      dry_run: dryRun,
      retention_hours: this.retentionHours,
      tables_vacuumed: 0,
      removed_data_files: 0,
      removed_tables: 0,
      removed_uploads: 0,
      removed_thumbnails: 0,
      removed_temporary: 0,
      removed_temporary_bytes: 0,
      removed_objects: 0,
      removed_bytes: 0,
      removed_keys: [],
      removed_keys_truncated: false,
      failures: [],
    };
    const fail = (target: string, error: unknown) =>
      answer.failures.push({ target, message: error instanceof Error ? error.message : String(error) });

    const pass: VacuumPass = { answer, removed, fail, now, retentionMs, dryRun };
    await this.vacuumTables(pass);
    await this.removeOrphanUploads(pass);
    await this.removeOrphanThumbnails(pass);
    await this.removeAbandonedWork(answer, now - retentionMs, fail);

    if (!dryRun) {
      const gone = new Set(removed.map((object) => object.key));
      await this.purger.files.discard((key) => gone.has(key));
    }
    answer.removed_objects = removed.length;
    answer.removed_bytes = removed.reduce((total, object) => total + object.size, 0);
    answer.removed_keys = removed.slice(0, VACUUM_LISTED_KEYS).map((object) => object.key);
    answer.removed_keys_truncated = removed.length > VACUUM_LISTED_KEYS;
    return answer;
  }

  /** Vacuums the tables of living collections and drops those of deleted ones. */
  private async vacuumTables({ answer, removed, fail, now, retentionMs, dryRun }: VacuumPass): Promise<void> {
    // Storage is listed before the database is asked who owns what: a collection's row exists
    // before anything is written under its table, so an object listed here whose row is missing
    // afterwards belongs to a deleted collection, never to one being created meanwhile.
    const tables = new Map<string, StoredObject[]>();
    for await (const object of this.purger.storage.list(TABLES_PREFIX)) {
      const id = object.key.slice(TABLES_PREFIX.length).split('/')[0]!;
      if (id === object.key.slice(TABLES_PREFIX.length)) continue;
      const objects = tables.get(id) ?? [];
      objects.push(object);
      tables.set(id, objects);
    }
    const living = await this.existing([...tables.keys()], (ids) =>
      dataCollectionRows.existingIds(this.db, ids).then((found) => found.map((value) => ({ value }))),
    );
    for (const [id, objects] of tables) {
      try {
        if (living.has(id)) {
          const result = await this.tableOf(id).vacuum({ retentionMs, now, dryRun });
          const sizes = new Map(objects.map((object) => [object.key, object]));
          answer.tables_vacuumed += 1;
          answer.removed_data_files += result.deleted.length;
          for (const key of result.deleted) removed.push(sizes.get(key) ?? { key, size: 0, modifiedAt: new Date(now) });
        } else {
          // The collection is gone, so are its readers: no retention to keep, whatever the age.
          removed.push(...(await this.purger.dropTable(id, { dryRun })));
          answer.removed_tables += 1;
        }
      } catch (error) {
        fail(`deltatables/${id}`, error);
      }
    }
    if (!dryRun) {
      // Claims of tables whose collection is gone (a table never written has no objects to find).
      await KyselyCommitClaims.over(this.db).forgetAllBut(dataCollectionRows.allIds(this.db));
    }
  }

  /** Removes the thumbnails of image collections that no longer exist (a deletion whose purge failed). */
  private async removeOrphanThumbnails({ answer, removed, fail, dryRun }: VacuumPass): Promise<void> {
    // Listed before the database is asked, as the tables are: a collection's row exists before
    // its first thumbnail is written.
    const collections = new Set<string>();
    try {
      for await (const object of this.purger.storage.list(THUMBNAILS_PREFIX)) {
        const [id, rest] = object.key.slice(THUMBNAILS_PREFIX.length).split('/');
        if (id !== undefined && rest !== undefined) collections.add(id);
      }
      const living = await this.existing([...collections], (ids) =>
        dataCollectionRows.existingIds(this.db, ids).then((found) => found.map((value) => ({ value }))),
      );
      for (const id of collections) {
        if (living.has(id)) continue;
        const thumbnails = await this.purger.dropThumbnails(id, { dryRun });
        answer.removed_thumbnails += thumbnails.length;
        removed.push(...thumbnails);
      }
    } catch (error) {
      fail(THUMBNAILS_PREFIX, error);
    }
  }

  /** Removes the uploads no file record names, once older than the retention. */
  private async removeOrphanUploads({ answer, removed, fail, now, retentionMs, dryRun }: VacuumPass): Promise<void> {
    // An upload is stored before its file record is written, so an unnamed upload may be one in
    // flight: only those older than the retention go.
    const uploads: StoredObject[] = [];
    for await (const object of this.purger.storage.list(UPLOADS_PREFIX)) {
      if (object.modifiedAt.getTime() < now - retentionMs) uploads.push(object);
    }
    const named = await this.existing(
      uploads.map((object) => object.key),
      (keys) => fileRows.namedUploadKeys(this.db, keys).then((found) => found.map((value) => ({ value }))),
    );
    const orphans = uploads.filter((object) => !named.has(object.key));
    try {
      if (!dryRun) {
        for (const batch of chunks(orphans)) await this.purger.storage.delete(batch.map((object) => object.key));
      }
      answer.removed_uploads = orphans.length;
      removed.push(...orphans);
    } catch (error) {
      fail(UPLOADS_PREFIX, error);
    }
  }

  /**
   * What processes killed mid-run left behind, last written before `before` (the retention keeps
   * whatever a running process may still be writing): work files under the data directory, the
   * store's temporary files or incomplete multipart uploads.
   */
  private async removeAbandonedWork(
    answer: VacuumAnswer,
    before: number,
    fail: (target: string, error: unknown) => void,
  ): Promise<void> {
    try {
      const files = await removeLeftovers(this.leftovers, before, answer.dry_run);
      answer.removed_temporary += files.length;
      answer.removed_temporary_bytes += files.reduce((total, file) => total + file.size, 0);
    } catch (error) {
      fail('temporary files', error);
    }
    try {
      const writes = await this.purger.storage.removeAbandonedWrites(new Date(before), answer.dry_run);
      answer.removed_temporary += writes.count;
      answer.removed_temporary_bytes += writes.bytes;
    } catch (error) {
      fail('abandoned writes', error);
    }
  }

  /** Which of `values` the query finds, asked in chunks. */
  private async existing(
    values: string[],
    query: (chunk: string[]) => Promise<{ value: string | null }[]>,
  ): Promise<Set<string>> {
    const found = new Set<string>();
    for (const chunk of chunks(values)) {
      for (const row of await query(chunk)) if (row.value !== null) found.add(row.value);
    }
    return found;
  }
}
