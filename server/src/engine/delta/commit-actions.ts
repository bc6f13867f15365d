import { v7 as uuidv7 } from 'uuid';
import type { AddAction, LogAction, MetadataAction, RemoveAction } from './actions.js';
import type { CheckpointResult } from './checkpoint-writer.js';
import { CommitConflict, SchemaMismatch, UnsupportedTableFeature } from './errors.js';
import { assertWritable, isAppendOnly, READER_VERSION, WRITER_VERSION } from './protocol.js';
import { type StructType, serializeSchema } from './schema.js';
import type { DeltaFile, DeltaSnapshot } from './snapshot.js';
import type { NewDataFile, StagedFile } from './staging.js';
import { DEFAULT_INDEXED_COLUMNS, parseStats } from './stats.js';

/*
 * The parts of a commit (`writer.ts`) that only look at the table and the request (no storage, no
 * DuckDB): what is asked, what is refused, the log actions written and the answer.
 */

export interface CommitRequest {
  /** The id the commit claims are made under (the data collection id). */
  tableId: string;
  /** The table's key prefix in storage, e.g. `deltatables/<id>`. */
  root: string;
  /** `commitInfo.operation`, e.g. `WRITE`, `MERGE`, `DELETE`, `CREATE TABLE`. */
  operation: string;
  /** `commitInfo.operationParameters`; values other than strings are JSON-encoded. */
  operationParameters?: Record<string, unknown>;
  add?: readonly NewDataFile[];
  /** Paths (`DeltaFile.path`) of active files to remove; each must still be active when committing. */
  remove?: readonly string[];
  /** Removes every file active at commit time (overwrite). */
  removeAll?: boolean;
  /**
   * The table schema from this version on. By default: the current schema plus the new files'
   * new columns, or only the new files' columns when every file is replaced.
   */
  schema?: StructType;
  /** Partition columns; only when creating the table (or replacing all of it). */
  partitionColumns?: readonly string[];
  /** Table properties merged into the table's configuration. */
  configuration?: Readonly<Record<string, string>>;
  /** Idempotency: commits a `txn` action, and commits nothing when the table already has this or a later version for the app. */
  appTransaction?: { appId: string; version: number };
  /** Fail with `CommitConflict` unless the table is exactly at this version (-1: it must not exist yet). */
  expectedVersion?: number;
  /** `dataChange` of the add/remove actions; false only for rewrites that keep the rows (compaction). */
  dataChange?: boolean;
}

export interface CommitResult {
  /** The new version; the current one when `skipped`. */
  version: number;
  /** True when `appTransaction` was already committed: nothing was written. */
  skipped: boolean;
  added: DeltaFile[];
  /** Paths of the removed files. */
  removed: string[];
  /** Rows in the added files. */
  numRecords: number;
  schema: StructType;
  /** Versions tried (1 unless other writers won some). */
  attempts: number;
  checkpoint: CheckpointResult | null;
}

/** Refuses a commit the table cannot take as it is: another version than expected, or features we cannot write. */
export function assertCommittable(request: CommitRequest, current: DeltaSnapshot | null): void {
  const currentVersion = current?.version ?? -1;
  if (request.expectedVersion !== undefined && request.expectedVersion !== currentVersion) {
    throw new CommitConflict(
      `the table at ${request.root} is at version ${currentVersion}, not the expected ${request.expectedVersion}`,
    );
  }
  if (current !== null) assertWritable(current.protocol, current.metadata, current.schema);
}

/** The answer when the request's app transaction is already in the table: nothing is written. */
export function alreadyCommitted(
  request: CommitRequest,
  current: DeltaSnapshot | null,
  attempts: number,
): CommitResult | null {
  const app = request.appTransaction;
  const done = app === undefined ? undefined : current?.appTransactions[app.appId];
  if (app === undefined || done === undefined || done.version < app.version || current === null) return null;
  return {
    version: current.version,
    skipped: true,
    added: [],
    removed: [],
    numRecords: 0,
    schema: current.schema,
    attempts,
    checkpoint: null,
  };
}

export interface PlannedChange {
  /** The active files the commit removes. */
  removing: Set<DeltaFile>;
  /** Every file goes: the new files' columns become the schema (unless one is given). */
  replacingAll: boolean;
  /** The partition columns from this version on. */
  partitionColumns: string[];
}

/** Which files go and which partition columns hold, refusing what the current version does not allow. */
export function plannedChange(request: CommitRequest, current: DeltaSnapshot | null): PlannedChange {
  const { root } = request;
  const active = new Map((current?.files ?? []).map((file) => [file.path, file]));
  const removing = new Set<DeltaFile>(request.removeAll ? active.values() : []);
  for (const path of request.remove ?? []) {
    const file = active.get(path);
    if (file === undefined) {
      throw new CommitConflict(
        `file ${path} is not in version ${current?.version ?? -1} of ${root} (removed meanwhile?)`,
      );
    }
    removing.add(file);
  }
  const replacingAll =
    current !== null && (request.removeAll === true || (active.size > 0 && removing.size === active.size));
  const requested = request.partitionColumns;
  if (requested !== undefined && current !== null && !replacingAll && !sameList(requested, current.partitionColumns)) {
    throw new SchemaMismatch(`the partition columns of ${root} can only change when every file is replaced`);
  }
  const kept = current?.partitionColumns ?? [...(requested ?? [])];
  const partitionColumns = replacingAll && requested ? [...requested] : kept;
  if (current !== null && removing.size > 0 && (request.dataChange ?? true) && isAppendOnly(current.metadata)) {
    throw new UnsupportedTableFeature('appendOnly', `the table at ${root} is append-only (delta.appendOnly)`);
  }
  return { removing, replacingAll, partitionColumns };
}

/** How many leading columns get statistics (`delta.dataSkippingNumIndexedCols`). */
export function indexedColumns(current: DeltaSnapshot | null): number {
  const indexed = Number(
    current?.metadata.configuration?.['delta.dataSkippingNumIndexedCols'] ?? DEFAULT_INDEXED_COLUMNS,
  );
  return Number.isFinite(indexed) && indexed >= 0 ? indexed : DEFAULT_INDEXED_COLUMNS;
}

/** Staged files were made for these partition columns; another writer may have changed them since. */
export function assertSamePartitions(root: string, staged: readonly StagedFile[], partitionColumns: string[]): void {
  for (const file of staged) {
    if (!sameList(Object.keys(file.add.partitionValues), partitionColumns)) {
      throw new CommitConflict(`the partition columns of ${root} changed while committing`);
    }
  }
}

export interface NewVersion {
  request: CommitRequest;
  current: DeltaSnapshot | null;
  change: PlannedChange;
  staged: readonly StagedFile[];
  schema: StructType;
  timestamp: number;
}

/** The log file's actions: commit info, protocol (a new table), metadata (if changed), txn, removes, adds. */
export function commitActions(next: NewVersion): LogAction[] {
  const { request, current, timestamp } = next;
  const removes = removeActions(next);
  const adds = addActions(next);
  const metadata = metadataOf(next);
  const app = request.appTransaction;
  return [
    {
      commitInfo: {
        timestamp,
        operation: request.operation,
        operationParameters: operationParameters(request.operationParameters),
        ...(current === null ? {} : { readVersion: current.version }),
        isolationLevel: 'Serializable',
        isBlindAppend: removes.length === 0,
        operationMetrics: {
          numFiles: String(adds.length),
          numOutputRows: String(numRecordsOf(next.staged)),
          numOutputBytes: String(adds.reduce((total, add) => total + add.size, 0)),
          numRemovedFiles: String(removes.length),
        },
        engineInfo: 'service-platform-delta/1',
        txnId: uuidv7(),
      },
    },
    ...(current === null ? [{ protocol: { minReaderVersion: READER_VERSION, minWriterVersion: WRITER_VERSION } }] : []),
    ...(metadata === null ? [] : [{ metaData: metadata }]),
    ...(app === undefined ? [] : [{ txn: { appId: app.appId, version: app.version, lastUpdated: timestamp } }]),
    ...removes.map((remove) => ({ remove })),
    ...adds.map((add) => ({ add })),
  ];
}

/** The answer for a version written. */
export function committedResult(
  next: NewVersion,
  version: number,
  attempts: number,
  checkpoint: CheckpointResult | null,
): CommitResult {
  const dataChange = next.request.dataChange ?? true;
  return {
    version,
    skipped: false,
    added: next.staged.map((file) => ({
      path: file.path,
      key: file.key,
      size: file.add.size,
      modificationTime: file.add.modificationTime,
      partitionValues: file.add.partitionValues,
      stats: parseStats(file.add.stats),
      add: { ...file.add, dataChange },
    })),
    removed: [...next.change.removing].map((file) => file.path),
    numRecords: numRecordsOf(next.staged),
    schema: next.schema,
    attempts,
    checkpoint,
  };
}

/** The table's metadata from this version on, or null when it stays as it is. */
function metadataOf({ request, current, change, schema, timestamp }: NewVersion): MetadataAction | null {
  const schemaString = serializeSchema(schema);
  const configuration = { ...(current?.metadata.configuration ?? {}), ...(request.configuration ?? {}) };
  const changed =
    current === null ||
    serializeSchema(current.schema) !== schemaString ||
    !sameList(current.partitionColumns, change.partitionColumns) ||
    JSON.stringify(current.metadata.configuration ?? {}) !== JSON.stringify(configuration);
  if (!changed) return null;
  return {
    id: current?.metadata.id ?? uuidv7(),
    name: current?.metadata.name ?? null,
    description: current?.metadata.description ?? null,
    format: { provider: 'parquet', options: {} },
    schemaString,
    partitionColumns: change.partitionColumns,
    configuration,
    createdTime: current?.metadata.createdTime ?? timestamp,
  };
}

function removeActions({ request, change, timestamp }: NewVersion): RemoveAction[] {
  return [...change.removing].map((file) => ({
    path: file.add.path,
    deletionTimestamp: timestamp,
    dataChange: request.dataChange ?? true,
    extendedFileMetadata: true,
    partitionValues: file.add.partitionValues,
    size: file.size,
  }));
}

function addActions({ request, staged }: NewVersion): AddAction[] {
  return staged.map((file) => ({ ...file.add, dataChange: request.dataChange ?? true }));
}

function numRecordsOf(staged: readonly StagedFile[]): number {
  return staged.reduce((total, file) => total + file.numRecords, 0);
}

function operationParameters(parameters: Record<string, unknown> = {}): Record<string, string> {
  return Object.fromEntries(
    Object.entries(parameters).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]),
  );
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.join('\0') === b.join('\0');
}
