import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isTreeFile } from '@service/common';
import type { Config } from '../config/config.js';
import type { DataCollectionsService } from '../datacollections/service.js';
import type { Database } from '../db/database.js';
import type { DataCollectionsTable, FilesTable, WorkflowsTable } from '../db/tables.js';
import {
  CommitConflict,
  type DeltaEngine,
  type DeltaFile,
  type DeltaTable,
  deltaSchemaOf,
  type NewDataFile,
  writableSelectList,
} from '../engine/delta/index.js';
import type { SqlColumn, SqlConnection } from '../engine/duckdb.js';
import { quoteIdentifier, quoteString } from '../engine/sql.js';
import { DomainError } from '../errors.js';
import type { JobTools } from '../jobs/handlers.js';
import type { Actor } from '../policy/actor.js';
import { dataCollectionRows } from '../tables/data-collections.js';
import { mergeColumns, sqlTypeText } from './schema-merge.js';
import { recordedSources, recordSources } from './source-records.js';
import {
  FILE_ID,
  type FileView,
  RUN_ID,
  readingRefusal,
  readSources,
  runIdInFile,
  SampleTooSmall,
  type SourceFile,
} from './sources.js';

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

/**
 * Both are constant within a data file (one data file per source file), so they are partition
 * values, stored once per file in the log rather than on every row of the Parquet file. Tables
 * written before `_run_id` became one hold it as a data column; their next write rewrites them.
 */
const PARTITION_COLUMNS = [FILE_ID, RUN_ID];
const MAX_ATTEMPTS = 5;

/**
 * Builds or updates a data collection's Delta table from its registered files (docs/architecture.md "Data collections").
 * One Parquet file per source file, partitioned by `_file_id` (and `_run_id`), so a changed file replaces exactly
 * the rows that came from it. With `keys`, rows with the same key are replaced (merge). Every write
 * is one commit; the same upsert twice leaves the table as it was.
 */
export class UpsertService {
  constructor(
    private readonly database: Database,
    private readonly config: Pick<Config, 'dataDir' | 'ingestion'>,
    private readonly dataCollections: Pick<DataCollectionsService, 'access' | 'matchingFiles'>,
    private readonly delta: Pick<DeltaEngine, 'duckdb' | 'files'>,
    private readonly tableOf: (dataCollectionId: string) => DeltaTable,
  ) {}

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

  private async attempt(
    collection: DataCollectionsTable,
    request: UpsertRequest,
    fullSample: boolean,
    signal?: AbortSignal,
    beforeCommit?: () => Promise<void>,
  ): Promise<UpsertAnswer> {
    const table = this.tableOf(collection.id);
    const snapshot = (await table.exists()) ? await table.snapshot() : null;
    // A collection's tree files are drawn by tree figures, not read into rows (docs/data.md "Trees").
    const matching = (await this.dataCollections.matchingFiles(collection)) as SourceFile[];
    const registered = matching.filter((file) => !isTreeFile(file.path));
    const wanted = request.file_ids === undefined ? registered : chosenFiles(registered, request.file_ids);

    const recorded = await recordedSources(this.database.db, collection.id);
    const dataFilesOf = new Map<string, DeltaFile[]>();
    for (const file of snapshot?.files ?? []) {
      const source = file.partitionValues[FILE_ID] ?? '';
      dataFilesOf.set(source, [...(dataFilesOf.get(source) ?? []), file]);
    }
    const overwrite = request.overwrite === true || snapshot === null;
    const changed = overwrite ? wanted : wanted.filter((file) => recorded.get(file.id) !== file.sha256);
    const registeredIds = new Set(registered.map((file) => file.id));
    // Without a file list, the table follows the registered files: rows of files gone are dropped.
    const gone =
      request.file_ids === undefined
        ? [...new Set([...dataFilesOf.keys(), ...recorded.keys()])].filter((id) => !registeredIds.has(id))
        : [];
    if (!overwrite && changed.length === 0 && gone.length === 0) {
      return this.describe(collection, table, snapshot?.version ?? null, 0, 0);
    }
    signal?.throwIfAborted();

    const workDirectory = join(this.config.dataDir, 'tmp', `upsert-${randomUUID()}`);
    await mkdir(workDirectory, { recursive: true });
    const connection = await this.delta.duckdb.connect();
    const leases: { release(): void }[] = [];
    // Local paths DuckDB reads → the files' own paths, to name them in errors without revealing where they sit.
    const names = new Map<string, string>();
    try {
      const sources = await readSources(
        {
          connection,
          collection,
          allowedRoots: this.config.ingestion.allowedRoots,
          files: this.delta.files,
          leases,
          fullSample,
          names,
          signal,
        },
        changed,
      );
      const keys = collection.keys === null ? null : (JSON.parse(collection.keys) as string[]);

      // The table's columns from now on: today's, widened and extended by the new files'. An
      // overwrite starts from the files alone, so it may change a column's type (a fixed schema).
      const existing = snapshot && !overwrite ? await this.tableColumns(connection, table) : [];
      let columns = existing.filter((column) => column.name !== FILE_ID);
      for (const source of sources) {
        const merged = mergeColumns(columns, source.columns);
        if (merged.conflict) {
          const { column, existing: had, incoming } = merged.conflict;
          throw new DomainError(
            'validation_failed',
            `${source.file.path}: column ${column} holds ${incoming} where the table holds ${had}; the types cannot be combined without losing data`,
            [{ path: source.file.path, message: `column ${column}: ${incoming} does not fit ${had}` }],
          );
        }
        columns = merged.columns;
      }
      for (const key of keys ?? []) {
        if (!columns.some((column) => column.name === key)) {
          throw new DomainError('validation_failed', `the key column ${key} is in none of the files`, [
            { path: 'keys', message: `no column ${key}` },
          ]);
        }
      }
      if (columns.length === 0) {
        // Only empty files so far: there is nothing to store, and no table to create yet.
        await this.recordSources(collection.id, sources, changed, gone, overwrite);
        return this.describe(collection, table, snapshot?.version ?? null, 0, 0);
      }
      // A column whose type widened means the old data files must be rewritten too.
      const widened = existing.some((old) => {
        const now = columns.find((column) => column.name === old.name);
        return now !== undefined && sqlTypeText(now.type) !== sqlTypeText(old.type);
      });
      // A table that still holds the run id in its data files moves it into partition values.
      const runIdInData = snapshot !== null && !snapshot.partitionColumns.includes(RUN_ID);
      const rewriteAll = !overwrite && (widened || runIdInData);

      // What the Parquet files hold: every column but the partition values.
      const dataColumns = columns.filter((column) => column.name !== RUN_ID);
      const select = (relation: string, available: SqlColumn[], where = '', wanted = dataColumns) => {
        const casts = wanted.map((column) => {
          const has = available.some((candidate) => candidate.name === column.name);
          return `CAST(${has ? quoteIdentifier(column.name) : 'NULL'} AS ${sqlTypeText(column.type)}) AS ${quoteIdentifier(column.name)}`;
        });
        return `SELECT ${writableSelectList(wanted)} FROM (SELECT ${casts.join(', ')} FROM ${relation} ${where})`;
      };

      const add: NewDataFile[] = [];
      const remove = new Set<string>();
      const write = async (
        relation: string,
        available: SqlColumn[],
        fileId: string,
        runId: string | null,
        where = '',
      ) => {
        const path = join(workDirectory, `${randomUUID()}.parquet`);
        await connection.run(`COPY (${select(relation, available, where)}) TO ${quoteString(path)} (FORMAT parquet)`);
        const [{ n } = { n: 0 }] = (await connection.query(
          `SELECT count(*)::INTEGER AS n FROM read_parquet(${quoteString(path)})`,
        )) as {
          n: number;
        }[];
        // The file is ours (in the work directory): local storage takes it as it is, without a copy.
        if (n > 0) add.push({ localPath: path, partitionValues: { [FILE_ID]: fileId, [RUN_ID]: runId }, move: true });
      };

      // New rows. With keys, a later file's row wins over an earlier file's row with the same key.
      const keyList = (keys ?? []).map(quoteIdentifier).join(', ');
      if (keys !== null && sources.length > 0) {
        const union = sources
          .map(
            (source, order) =>
              `SELECT *, ${order} AS __order FROM (${select(source.table, source.columns)}) AS s${order}`,
          )
          .join(' UNION ALL BY NAME ');
        await connection.run(
          `CREATE TEMP TABLE __incoming AS SELECT * EXCLUDE (__rank) FROM (SELECT *, row_number() OVER (PARTITION BY ${keyList} ORDER BY __order DESC) AS __rank FROM (${union})) WHERE __rank = 1`,
        );
      }
      for (const [order, source] of sources.entries()) {
        signal?.throwIfAborted();
        try {
          if (keys === null) await write(source.table, source.columns, source.file.id, source.file.run_id);
          else await write('__incoming', dataColumns, source.file.id, source.file.run_id, `WHERE __order = ${order}`);
        } catch (error) {
          // The file is read while it is written: name it in whatever goes wrong.
          if (error instanceof Error) error.message = `${source.file.path}: ${error.message}`;
          throw error;
        }
        for (const old of dataFilesOf.get(source.file.id) ?? []) remove.add(old.path);
      }
      for (const id of gone) for (const old of dataFilesOf.get(id) ?? []) remove.add(old.path);

      // Existing rows that stay: untouched files are kept as they are, unless a merge removes some
      // of their rows (then the file is rewritten without them) or every file must be rewritten.
      if (snapshot !== null && !overwrite && (keys !== null || rewriteAll)) {
        const scan = await table.scan(connection, snapshot);
        leases.push(scan);
        for (const { file, localPath } of scan.localFiles) {
          if (remove.has(file.path)) continue;
          const fileId = file.partitionValues[FILE_ID] ?? '';
          const relation = `read_parquet(${quoteString(localPath)})`;
          const fileColumns = await connection.describe(`SELECT * FROM ${relation}`);
          const runId = runIdInData ? await runIdInFile(connection, relation) : (file.partitionValues[RUN_ID] ?? null);
          const collides =
            keys !== null && sources.length > 0 ? `(${keyList}) IN (SELECT (${keyList}) FROM __incoming)` : null;
          if (collides !== null && !rewriteAll) {
            const [{ hit } = { hit: 0 }] = (await connection.query(
              `SELECT count(*)::INTEGER AS hit FROM ${relation} WHERE ${collides}`,
            )) as { hit: number }[];
            if (hit === 0) continue;
          }
          // coalesce: a row whose key is NULL matches nothing and stays.
          await write(
            relation,
            fileColumns,
            fileId,
            runId,
            collides === null ? '' : `WHERE NOT coalesce(${collides}, false)`,
          );
          remove.add(file.path);
        }
      }

      signal?.throwIfAborted();
      await beforeCommit?.();
      const fileIdField = { name: FILE_ID, type: 'string' as const, nullable: true, metadata: {} };
      const schema = deltaSchemaOf(await connection.describe(select('(SELECT 1)', [], '', columns)));
      const result = await table.commit({
        operation: overwrite ? 'WRITE' : keys !== null ? 'MERGE' : 'WRITE',
        operationParameters: { mode: overwrite ? 'Overwrite' : 'Append', source: 'upsert' },
        add,
        // An empty table in the old layout has no file to list, yet its partition columns change.
        ...(overwrite || (runIdInData && snapshot.files.length === 0) ? { removeAll: true } : { remove: [...remove] }),
        // Accepted by the writer only when every file is replaced (an overwrite, or the rewrite above).
        ...(overwrite || runIdInData ? { partitionColumns: PARTITION_COLUMNS } : {}),
        schema: { ...schema, fields: [...schema.fields, fileIdField] },
      });

      await this.recordSources(collection.id, sources, changed, gone, overwrite);
      const replaced = sources.filter((source) => recorded.has(source.file.id)).length;
      return this.describe(collection, table, result.version, sources.length - replaced, replaced);
    } catch (error) {
      throw (await readingRefusal(error, connection, collection, names)) ?? error;
    } finally {
      for (const lease of leases) lease.release();
      connection.close();
      await rm(workDirectory, { recursive: true, force: true });
    }
  }

  /** Remembers which content of each source file the table now holds. */
  private recordSources(
    dataCollectionId: string,
    sources: FileView[],
    changed: FilesTable[],
    gone: string[],
    overwrite: boolean,
  ): Promise<void> {
    const taken = [...sources.map((source) => source.file), ...changed.filter((file) => file.size === 0)];
    return recordSources(this.database.db, dataCollectionId, taken, gone, overwrite);
  }

  private async tableColumns(connection: SqlConnection, table: DeltaTable): Promise<SqlColumn[]> {
    const view = await table.view(connection, `__current_${randomUUID().replaceAll('-', '')}`);
    try {
      return await connection.describe(`SELECT * FROM ${view.name}`);
    } finally {
      await view.release();
    }
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

/**
 * The registered files among `fileIds`; any other id (missing, or a file of another collection or
 * user) is refused with the same answer, so it tells nothing of what exists elsewhere.
 */
function chosenFiles<File extends { id: string }>(registered: File[], fileIds: readonly string[]): File[] {
  const unknown = fileIds.filter((id) => !registered.some((file) => file.id === id));
  if (unknown.length > 0) {
    throw new DomainError(
      'validation_failed',
      'some files are not registered files of this data collection',
      unknown.map((id) => ({ path: 'body.file_ids', message: `unknown file ${id}` })),
    );
  }
  return registered.filter((file) => fileIds.includes(file.id));
}
