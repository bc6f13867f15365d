import type { Kysely, Updateable } from 'kysely';
import type { FilesTable, Tables } from '../db/tables.js';

/** A registered file as the scanner compares it with what it finds. */
export type ScannedRecord = Pick<
  FilesTable,
  'id' | 'path' | 'size' | 'sha256' | 'modified_at' | 'origin' | 'source_path' | 'created_at' | 'updated_at'
>;

/**
 * Every query on `files` (docs/architecture.md "Table owners"). Each function takes the database
 * or a transaction, so callers keep their work atomic.
 */
export const fileRows = {
  /** The file with the workflow of its run (which decides who may read it). */
  findWithWorkflow(db: Kysely<Tables>, id: string): Promise<(FilesTable & { workflow_id: string }) | undefined> {
    return db
      .selectFrom('files')
      .innerJoin('runs', 'runs.id', 'files.run_id')
      .selectAll('files')
      .select('runs.workflow_id')
      .where('files.id', '=', id)
      .executeTakeFirst();
  },

  /** The file at `path` of the workflow's run tagged `runTag`. */
  findByRunTag(db: Kysely<Tables>, workflowId: string, runTag: string, path: string): Promise<FilesTable> {
    return db
      .selectFrom('files')
      .innerJoin('runs', 'runs.id', 'files.run_id')
      .selectAll('files')
      .where('runs.workflow_id', '=', workflowId)
      .where('runs.tag', '=', runTag)
      .where('files.path', '=', path)
      .executeTakeFirstOrThrow();
  },

  /** The run's file at `path`: its id and stored upload. */
  findInRun(
    db: Kysely<Tables>,
    runId: string,
    path: string,
  ): Promise<Pick<FilesTable, 'id' | 'storage_key'> | undefined> {
    return db
      .selectFrom('files')
      .select(['id', 'storage_key'])
      .where('run_id', '=', runId)
      .where('path', '=', path)
      .executeTakeFirst();
  },

  /** Every file of the workflow's runs, newest first. */
  ofWorkflow(db: Kysely<Tables>, workflowId: string): Promise<FilesTable[]> {
    return db
      .selectFrom('files')
      .innerJoin('runs', 'runs.id', 'files.run_id')
      .selectAll('files')
      .where('runs.workflow_id', '=', workflowId)
      .orderBy('files.created_at', 'desc')
      .orderBy('files.id', 'desc')
      .execute();
  },

  /** What the scanner compares with a run's folder. */
  scannedOfRun(db: Kysely<Tables>, runId: string): Promise<ScannedRecord[]> {
    return db
      .selectFrom('files')
      .select(['id', 'path', 'size', 'sha256', 'modified_at', 'origin', 'source_path', 'created_at', 'updated_at'])
      .where('run_id', '=', runId)
      .execute();
  },

  /** Report files by id, with their run's tag, in the order of their runs. */
  reportFiles(db: Kysely<Tables>, fileIds: readonly string[]) {
    return db
      .selectFrom('files')
      .innerJoin('runs', 'runs.id', 'files.run_id')
      .select([
        'files.id as file_id',
        'files.run_id as run_id',
        'runs.tag as run_tag',
        'files.sha256 as sha256',
        'files.size as size',
        'files.storage_key as storage_key',
        'files.source_path as source_path',
      ])
      .where('files.id', 'in', [...fileIds])
      .orderBy('runs.created_at')
      .orderBy('runs.id')
      .execute();
  },

  async anyInProject(db: Kysely<Tables>, projectId: string): Promise<boolean> {
    const file = await db
      .selectFrom('files')
      .innerJoin('runs', 'runs.id', 'files.run_id')
      .innerJoin('workflows', 'workflows.id', 'runs.workflow_id')
      .select('files.id')
      .where('workflows.project_id', '=', projectId)
      .executeTakeFirst();
    return file !== undefined;
  },

  async countInProject(db: Kysely<Tables>, projectId: string): Promise<number> {
    const row = await db
      .selectFrom('files')
      .innerJoin('runs', 'runs.id', 'files.run_id')
      .innerJoin('workflows', 'workflows.id', 'runs.workflow_id')
      .select((eb) => eb.fn.countAll().as('total'))
      .where('workflows.project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  },

  /** The stored uploads of these runs' files. */
  async uploadKeysOfRuns(db: Kysely<Tables>, runIds: readonly string[]): Promise<string[]> {
    if (runIds.length === 0) return [];
    const rows = await db
      .selectFrom('files')
      .select('storage_key')
      .where('run_id', 'in', [...runIds])
      .where('storage_key', 'is not', null)
      .execute();
    return rows.flatMap((row) => (row.storage_key === null ? [] : [row.storage_key]));
  },

  /** These runs' files that image collections of their workflows may hold, with those collections' ids. */
  async imageFilesOfRuns(
    db: Kysely<Tables>,
    runIds: readonly string[],
  ): Promise<{ file_id: string; data_collection_id: string }[]> {
    if (runIds.length === 0) return [];
    return db
      .selectFrom('files')
      .innerJoin('runs', 'runs.id', 'files.run_id')
      .innerJoin('data_collections', 'data_collections.workflow_id', 'runs.workflow_id')
      .select(['files.id as file_id', 'data_collections.id as data_collection_id'])
      .where('files.run_id', 'in', [...runIds])
      .where('data_collections.type', '=', 'image')
      .execute();
  },

  /** Of these upload keys, those a file still names. */
  async namedUploadKeys(db: Kysely<Tables>, keys: readonly string[]): Promise<string[]> {
    if (keys.length === 0) return [];
    const rows = await db
      .selectFrom('files')
      .select('storage_key')
      .where('storage_key', 'in', [...keys])
      .execute();
    return rows.flatMap((row) => (row.storage_key === null ? [] : [row.storage_key]));
  },

  async insert(db: Kysely<Tables>, row: FilesTable): Promise<void> {
    await db.insertInto('files').values(row).execute();
  },

  async update(db: Kysely<Tables>, id: string, changes: Updateable<FilesTable>): Promise<void> {
    await db.updateTable('files').set(changes).where('id', '=', id).execute();
  },

  /**
   * Inserts or updates scanned files by (run, path). A concurrent scan of the same run writes the
   * same rows; an upload that took the path meanwhile is left alone.
   */
  async writeScanned(db: Kysely<Tables>, rows: FilesTable[]): Promise<void> {
    await db
      .insertInto('files')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['run_id', 'path'])
          .doUpdateSet((eb) => ({
            size: eb.ref('excluded.size'),
            sha256: eb.ref('excluded.sha256'),
            modified_at: eb.ref('excluded.modified_at'),
            content_type: eb.ref('excluded.content_type'),
            source_path: eb.ref('excluded.source_path'),
            updated_at: eb.ref('excluded.updated_at'),
          }))
          .where('files.origin', '=', 'scan'),
      )
      .execute();
  },

  /** Unregisters the run's scanned files (uploads stay); answers how many went. */
  async deleteScannedOfRun(db: Kysely<Tables>, runId: string): Promise<number> {
    const result = await db
      .deleteFrom('files')
      .where('run_id', '=', runId)
      .where('origin', '=', 'scan')
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Unregisters those of these files that were scanned (uploads stay); answers how many went. */
  async deleteScanned(db: Kysely<Tables>, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await db
      .deleteFrom('files')
      .where('id', 'in', [...ids])
      .where('origin', '=', 'scan')
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
