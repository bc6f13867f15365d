import { isTreeFile } from '@service/common';
import type { Config } from '../config/config.js';
import type { DataCollectionsService } from '../datacollections/service.js';
import type { Database } from '../db/database.js';
import type { DataCollectionsTable, FilesTable, WorkflowsTable } from '../db/tables.js';
import { CommitConflict, type DeltaEngine, type DeltaTable } from '../engine/delta/index.js';
import type { ImageStore } from '../images/store.js';
import type { JobTools } from '../jobs/handlers.js';
import type { Actor } from '../policy/actor.js';
import { dataCollectionRows } from '../tables/data-collections.js';
import { recordedSources, recordSources } from './source-records.js';
import { type FileView, SampleTooSmall, type SourceFile } from './sources.js';
import { chosenFiles, planColumns, planRewrite, planUpsert, type UpsertPlan, upsertCommit } from './upsert-plan.js';
import { UpsertWriter } from './upsert-writer.js';

export interface UpsertRequest {
  data_collection_id: string;
  file_ids?: string[] | undefined;
  overwrite?: boolean | undefined;
}

export interface UpsertAnswer {
  data_collection_id: string;
  version: number | null;
  rows: number;
  files_added: number;
  files_replaced: number;
  columns: string[];
}

const MAX_ATTEMPTS = 5;

/** Told of every new table version once it is committed (the live stream, docs/live-data.md). */
export type VersionListener = (collection: DataCollectionsTable, version: number) => void;

/**
 * Builds or updates a data collection's Delta table from its registered files (docs/architecture.md "Data collections").
 * One Parquet file per source file, partitioned by `_file_id` (and `_run_id`), so a changed file replaces exactly
 * the rows that came from it. With `keys`, rows with the same key are replaced (merge). Every write
 * is one commit; the same upsert twice leaves the table as it was.
 */
export class UpsertService {
  private readonly versionListeners: VersionListener[] = [];

  constructor(
    private readonly database: Database,
    private readonly config: Pick<Config, 'dataDir' | 'ingestion'>,
    private readonly dataCollections: Pick<DataCollectionsService, 'access' | 'matchingFiles'>,
    private readonly delta: Pick<DeltaEngine, 'duckdb' | 'files'>,
    private readonly tableOf: (dataCollectionId: string) => DeltaTable,
    private readonly images?: Pick<ImageStore, 'putThumbnail'>,
  ) {}

  onVersion(listener: VersionListener): void {
    this.versionListeners.push(listener);
  }

  async upsert(actor: Actor, request: UpsertRequest, signal?: AbortSignal): Promise<UpsertAnswer> {
    const { row } = await this.dataCollections.access(actor, request.data_collection_id, 'resource.edit');
    return this.run(row, request, signal);
  }

  /**
   * What an upsert run later (a job) needs checked now: the caller may edit the collection, and
   * every file named is one of its registered files, so a job is never queued for another's files.
   */
  async authorizeLater(actor: Actor, request: UpsertRequest): Promise<WorkflowsTable> {
    const { row, workflow } = await this.dataCollections.access(actor, request.data_collection_id, 'resource.edit');
    if (request.file_ids !== undefined) chosenFiles(await this.dataCollections.matchingFiles(row), request.file_ids);
    return workflow;
  }

  /** A queued upsert (a `deltatable.upsert` job), whose caller `authorizeLater` checked when queueing it. */
  async runQueued(request: UpsertRequest, tools: JobTools): Promise<UpsertAnswer> {
    const collection = await dataCollectionRows.find(this.database.db, request.data_collection_id);
    if (collection === undefined) throw new Error(`no data collection ${request.data_collection_id}`);
    await tools.report({ step: 'upsert', detail: `building ${collection.tag}`, progress: null });
    return this.run(collection, request, tools.signal, tools.checkpoint);
  }

  /** The upsert itself, for callers that already checked permissions (ingestion jobs). */
  async run(
    collection: DataCollectionsTable,
    request: UpsertRequest,
    signal?: AbortSignal,
    beforeCommit?: () => Promise<void>,
  ): Promise<UpsertAnswer> {
    let fullSample = false;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(collection, request, fullSample, signal, beforeCommit);
      } catch (error) {
        // Another writer changed the files we meant to replace: start over from its version.
        if (error instanceof CommitConflict && attempt < MAX_ATTEMPTS) continue;
        // A value past the type sample did not fit: read again with the whole file as sample.
        if (error instanceof SampleTooSmall && !fullSample) {
          fullSample = true;
          continue;
        }
        throw error instanceof SampleTooSmall ? error.refusal : error;
      }
    }
  }

  /**
   * One try: plan which files to read and which rows to drop, read the files, settle the columns,
   * write the new rows, keep (or rewrite) the rows that stay, and commit it all as one version.
   */
  private async attempt(
    collection: DataCollectionsTable,
    request: UpsertRequest,
    fullSample: boolean,
    signal?: AbortSignal,
    beforeCommit?: () => Promise<void>,
  ): Promise<UpsertAnswer> {
    const table = this.tableOf(collection.id);
    const snapshot = (await table.exists()) ? await table.snapshot() : null;
    const recorded = await recordedSources(this.database.db, collection.id);
    const plan = planUpsert({
      registered: await this.registeredFiles(collection),
      fileIds: request.file_ids,
      overwrite: request.overwrite,
      tableFiles: snapshot?.files ?? null,
      recorded,
    });
    if (plan.unchanged) return this.describe(collection, table, snapshot?.version ?? null, 0, 0);
    signal?.throwIfAborted();

    const writer = await UpsertWriter.open(this.config.dataDir, this.delta.duckdb);
    try {
      const { allowedRoots } = this.config.ingestion;
      const reading = { collection, allowedRoots, files: this.delta.files, fullSample, signal, images: this.images };
      const sources = await writer.readSources(reading, plan.changed);
      const keys = collection.keys === null ? null : (JSON.parse(collection.keys) as string[]);
      const existing = snapshot !== null && !plan.overwrite ? await writer.tableColumns(table) : [];
      const columns = planColumns(existing, sources, keys);
      if (columns.length === 0) {
        // Only empty files so far: there is nothing to store, and no table to create yet.
        await this.recordSources(collection.id, sources, plan);
        return this.describe(collection, table, snapshot?.version ?? null, 0, 0);
      }
      const rewrite = planRewrite(existing, columns, snapshot?.partitionColumns ?? null, plan.overwrite);

      const layout = { columns, keys };
      await writer.writeNewRows(sources, layout, plan.dataFilesOf, signal);
      for (const id of plan.gone) writer.removeAll(plan.dataFilesOf.get(id));
      if (snapshot !== null && !plan.overwrite && (keys !== null || rewrite.rewriteAll)) {
        await writer.keepExistingRows(table, snapshot, layout, rewrite, sources.length > 0);
      }

      signal?.throwIfAborted();
      await beforeCommit?.();
      const result = await table.commit(
        upsertCommit({
          overwrite: plan.overwrite,
          merge: keys !== null,
          rewrite,
          tableFileCount: snapshot?.files.length ?? 0,
          add: writer.add,
          remove: writer.remove,
          schema: await writer.schemaOf(columns),
        }),
      );
      await this.recordSources(collection.id, sources, plan);
      for (const listener of this.versionListeners) listener(collection, result.version);
      const replaced = sources.filter((source) => recorded.has(source.file.id)).length;
      return this.describe(collection, table, result.version, sources.length - replaced, replaced);
    } catch (error) {
      throw (await writer.refusal(error, collection)) ?? error;
    } finally {
      await writer.close();
    }
  }

  /** The collection's registered files; its tree files are drawn by tree figures, not read into rows (docs/data.md "Trees"). */
  private async registeredFiles(collection: DataCollectionsTable): Promise<SourceFile[]> {
    const matching = (await this.dataCollections.matchingFiles(collection)) as SourceFile[];
    return matching.filter((file) => !isTreeFile(file.path));
  }

  /** Remembers which content of each source file the table now holds. */
  private recordSources(
    dataCollectionId: string,
    sources: FileView[],
    { changed, gone, overwrite }: Pick<UpsertPlan<FilesTable>, 'changed' | 'gone' | 'overwrite'>,
  ): Promise<void> {
    const taken = [...sources.map((source) => source.file), ...changed.filter((file) => file.size === 0)];
    return recordSources(this.database.db, dataCollectionId, taken, gone, overwrite);
  }

  private async describe(
    collection: DataCollectionsTable,
    table: DeltaTable,
    version: number | null,
    filesAdded: number,
    filesReplaced: number,
  ): Promise<UpsertAnswer> {
    if (version === null) {
      return {
        data_collection_id: collection.id,
        version: null,
        rows: 0,
        files_added: 0,
        files_replaced: 0,
        columns: [],
      };
    }
    const snapshot = await table.snapshot({ version });
    return {
      data_collection_id: collection.id,
      version,
      rows: snapshot.files.reduce((total, file) => total + (file.stats?.numRecords ?? 0), 0),
      files_added: filesAdded,
      files_replaced: filesReplaced,
      columns: snapshot.schema.fields.map((field) => field.name),
    };
  }
}
