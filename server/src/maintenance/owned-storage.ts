import type { Kysely } from 'kysely';
import { chunks } from '../db/chunks.js';
import type { Tables } from '../db/tables.js';
import type { CommitClaims } from '../engine/delta/commit-claims.js';
import type { ObjectFiles } from '../engine/object-files.js';
import { TABLES_PREFIX, tableRoot, thumbnailKey, thumbnailsRoot, UPLOADS_PREFIX } from '../storage/layout.js';
import type { ObjectStorage, StoredObject } from '../storage/storage.js';
import { dataCollectionRows } from '../tables/data-collections.js';
import { fileRows } from '../tables/files.js';
import { runRows } from '../tables/runs.js';
import { workflowRows } from '../tables/workflows.js';

/** Storage that belonged to database rows about to be deleted: uploads, Delta tables and thumbnails. */
export interface OwnedStorage {
  uploadKeys: string[];
  /** Data collection ids; each owns the table under `tableRoot(id)` and (images) the thumbnails under `thumbnailsRoot(id)`. */
  tableIds: string[];
  /** Thumbnails of deleted files in image collections that stay (a run deleted, not its workflow). */
  thumbnailKeys?: string[];
}

export type Scope =
  | { projects: string[] }
  | { workflows: string[] }
  | { dataCollections: string[] }
  | { runs: string[] };

/**
 * The storage of projects, workflows, data collections or runs (and of everything below them that
 * the database's cascades would delete with them). Read it in the transaction that deletes them.
 */
export async function ownedStorage(db: Kysely<Tables>, scope: Scope): Promise<OwnedStorage> {
  let workflowIds: string[] = [];
  let runIds: string[] = [];
  let tableIds: string[] = [];
  if ('projects' in scope) {
    for (const ids of chunks(scope.projects)) {
      workflowIds.push(...(await workflowRows.idsOfProjects(db, ids)));
    }
  } else if ('workflows' in scope) {
    workflowIds = scope.workflows;
  } else if ('dataCollections' in scope) {
    tableIds = scope.dataCollections;
  } else {
    runIds = scope.runs;
  }
  for (const ids of chunks(workflowIds)) {
    tableIds.push(...(await dataCollectionRows.idsOfWorkflows(db, ids)));
    runIds.push(...(await runRows.idsOfWorkflows(db, ids)));
  }
  const uploadKeys: string[] = [];
  for (const ids of chunks(runIds)) {
    uploadKeys.push(...(await fileRows.uploadKeysOfRuns(db, ids)));
  }
  if (!('runs' in scope)) return { uploadKeys, tableIds };
  // The runs' collections stay: only their deleted files' thumbnails go (the others' with their collections).
  const thumbnailKeys: string[] = [];
  for (const ids of chunks(runIds)) {
    for (const file of await fileRows.imageFilesOfRuns(db, ids)) {
      thumbnailKeys.push(thumbnailKey(file.data_collection_id, file.file_id));
    }
  }
  return { uploadKeys, tableIds, thumbnailKeys };
}

export interface PurgeLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * Deletes storage whose rows are gone: called after the deleting transaction committed, never
 * before (a rolled-back delete must leave the data). Idempotent: absent objects are skipped, so a
 * repeat, or vacuum later, finishes what a failure interrupted. A failure is logged, not thrown:
 * the rows are already gone, and vacuum collects objects whose owner row no longer exists.
 */
export class StoragePurger {
  log: PurgeLog | null = null;

  constructor(
    readonly storage: ObjectStorage,
    readonly files: ObjectFiles,
    private readonly claims: CommitClaims,
  ) {}

  async purge(owned: OwnedStorage): Promise<void> {
    const roots = owned.tableIds.map((id) => `${tableRoot(id)}/`);
    const uploads = new Set(owned.uploadKeys);
    try {
      for (const keys of chunks(owned.uploadKeys)) await this.storage.delete(keys);
      for (const keys of chunks(owned.thumbnailKeys ?? [])) await this.storage.delete(keys);
      for (const id of owned.tableIds) {
        await this.dropTable(id);
        await this.dropThumbnails(id);
      }
    } catch (error) {
      this.log?.warn(
        { err: error, tables: owned.tableIds.length, uploads: owned.uploadKeys.length },
        'deleting the storage of deleted rows failed; POST /internal/vacuum removes what is left',
      );
    } finally {
      // Local copies of remote objects go too (this process's; see docs/data.md for the others).
      await this.files.discard((key) => uploads.has(key) || roots.some((root) => key.startsWith(root)));
    }
  }

  /**
   * Drops this process's local copies of objects whose owner row is gone. Deletion drops the
   * copies of the process that deleted; every other replica and worker catches up with this.
   */
  async sweepLocalCopies(db: Kysely<Tables>): Promise<number> {
    const keys = this.files.cachedKeys();
    if (keys.length === 0) return 0;
    const tableIds = new Set<string>();
    const uploads: string[] = [];
    for (const key of keys) {
      if (key.startsWith(TABLES_PREFIX)) tableIds.add(key.slice(TABLES_PREFIX.length).split('/')[0]!);
      else if (key.startsWith(UPLOADS_PREFIX)) uploads.push(key);
    }
    const livingTables = new Set<string>();
    for (const ids of chunks([...tableIds])) {
      for (const id of await dataCollectionRows.existingIds(db, ids)) livingTables.add(id);
    }
    const livingUploads = new Set<string>();
    for (const batch of chunks(uploads)) {
      for (const key of await fileRows.namedUploadKeys(db, batch)) livingUploads.add(key);
    }
    const orphaned = new Set(
      keys.filter((key) =>
        key.startsWith(TABLES_PREFIX)
          ? !livingTables.has(key.slice(TABLES_PREFIX.length).split('/')[0]!)
          : key.startsWith(UPLOADS_PREFIX) && !livingUploads.has(key),
      ),
    );
    if (orphaned.size > 0) await this.files.discard((key) => orphaned.has(key));
    return orphaned.size;
  }

  /** Every object of a data collection's table, and its commit claims. */
  async dropTable(dataCollectionId: string, options: { dryRun?: boolean } = {}): Promise<StoredObject[]> {
    const objects: StoredObject[] = [];
    for await (const object of this.storage.list(`${tableRoot(dataCollectionId)}/`)) objects.push(object);
    if (options.dryRun) return objects;
    for (const batch of chunks(objects)) await this.storage.delete(batch.map((object) => object.key));
    await this.claims.forget(dataCollectionId);
    return objects;
  }

  /** Every thumbnail of a data collection (an image collection's: docs/dashboards.md "Images"). */
  async dropThumbnails(dataCollectionId: string, options: { dryRun?: boolean } = {}): Promise<StoredObject[]> {
    const objects: StoredObject[] = [];
    for await (const object of this.storage.list(thumbnailsRoot(dataCollectionId))) objects.push(object);
    if (options.dryRun) return objects;
    for (const batch of chunks(objects)) await this.storage.delete(batch.map((object) => object.key));
    return objects;
  }
}
