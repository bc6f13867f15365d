import { setTimeout as sleep } from 'node:timers/promises';
import { v7 as uuidv7 } from 'uuid';
import { type AddAction, type LogAction, type MetadataAction, type RemoveAction, serializeCommit } from './actions.js';
import { type CheckpointResult, writeCheckpoint } from './checkpoint-writer.js';
import type { CommitClaims } from './commit-claims.js';
import type { DeltaEngine } from './engine.js';
import { CommitConflict, DeltaTableNotFound, SchemaMismatch, UnsupportedTableFeature } from './errors.js';
import { commitKey } from './log-files.js';
import { assertWritable, isAppendOnly, READER_VERSION, WRITER_VERSION } from './protocol.js';
import { LogReplay } from './replay.js';
import { type StructType, serializeSchema } from './schema.js';
import { type DeltaFile, type DeltaSnapshot, loadSnapshot, replayOf } from './snapshot.js';
import { assertNotNull, type NewDataFile, resolveSchema, type StagedFile, stageFiles } from './staging.js';
import { DEFAULT_INDEXED_COLUMNS, parseStats } from './stats.js';

export type { NewDataFile } from './staging.js';

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

export interface CommitOptions {
  /** How many versions to try before giving up with `CommitConflict`; 30 by default. */
  maxAttempts?: number;
  /** Write a checkpoint at every version divisible by this; 10 by default, 0 never. */
  checkpointInterval?: number;
  /** A claim older than this whose log file never appeared may be taken over; 5 minutes by default. */
  staleClaimMs?: number;
  now?: () => number;
  /** Called when writing a checkpoint failed (the commit itself stands). */
  onCheckpointError?: (error: unknown) => void;
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

function operationParameters(parameters: Record<string, unknown> = {}): Record<string, string> {
  return Object.fromEntries(
    Object.entries(parameters).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]),
  );
}

async function latestOrNull(engine: DeltaEngine, root: string): Promise<DeltaSnapshot | null> {
  try {
    return await loadSnapshot(engine, root);
  } catch (error) {
    if (error instanceof DeltaTableNotFound) return null;
    throw error;
  }
}

/**
 * Commits one new version: uploads the new data files (with their statistics), then, against the
 * latest version N, claims N+1 and writes `_delta_log/N+1.json` in one put. A writer that loses
 * the claim re-reads the table and tries the next version (removed files must still be active).
 * Readers see the version only once its log file exists; a failed commit leaves the table as it
 * was, with unreferenced data files for VACUUM. Writes a checkpoint every `checkpointInterval`
 * versions.
 */
export async function commit(
  engine: DeltaEngine,
  claims: CommitClaims,
  request: CommitRequest,
  options: CommitOptions = {},
): Promise<CommitResult> {
  const now = options.now ?? Date.now;
  const maxAttempts = options.maxAttempts ?? 30;
  const checkpointInterval = options.checkpointInterval ?? 10;
  const staleClaimMs = options.staleClaimMs ?? 5 * 60 * 1000;
  const dataChange = request.dataChange ?? true;
  const root = request.root;
  let staged: StagedFile[] | null = null;

  return engine.duckdb.withConnection(async (connection) => {
    for (let attempt = 1; ; attempt++) {
      const current = await latestOrNull(engine, root);
      const currentVersion = current?.version ?? -1;
      if (request.expectedVersion !== undefined && request.expectedVersion !== currentVersion) {
        throw new CommitConflict(
          `the table at ${root} is at version ${currentVersion}, not the expected ${request.expectedVersion}`,
        );
      }
      if (current !== null) assertWritable(current.protocol, current.metadata, current.schema);
      const app = request.appTransaction;
      const done = app === undefined ? undefined : current?.appTransactions[app.appId];
      if (app !== undefined && done !== undefined && done.version >= app.version && current !== null) {
        return {
          version: current.version,
          skipped: true,
          added: [],
          removed: [],
          numRecords: 0,
          schema: current.schema,
          attempts: attempt,
          checkpoint: null,
        };
      }

      const partitionColumns = current?.partitionColumns ?? [...(request.partitionColumns ?? [])];
      const active = new Map((current?.files ?? []).map((file) => [file.path, file]));
      const removing = new Set<DeltaFile>(request.removeAll ? active.values() : []);
      for (const path of request.remove ?? []) {
        const file = active.get(path);
        if (file === undefined) {
          throw new CommitConflict(`file ${path} is not in version ${currentVersion} of ${root} (removed meanwhile?)`);
        }
        removing.add(file);
      }
      // Every file goes: the new files' columns become the schema (unless one is given).
      const replacingAll =
        current !== null && (request.removeAll === true || (active.size > 0 && removing.size === active.size));
      if (
        request.partitionColumns !== undefined &&
        current !== null &&
        !replacingAll &&
        request.partitionColumns.join('\0') !== current.partitionColumns.join('\0')
      ) {
        throw new SchemaMismatch(`the partition columns of ${root} can only change when every file is replaced`);
      }
      const newPartitionColumns =
        replacingAll && request.partitionColumns ? [...request.partitionColumns] : partitionColumns;
      if (current !== null && removing.size > 0 && dataChange && isAppendOnly(current.metadata)) {
        throw new UnsupportedTableFeature('appendOnly', `the table at ${root} is append-only (delta.appendOnly)`);
      }

      if (staged === null) {
        const indexed = Number(
          current?.metadata.configuration?.['delta.dataSkippingNumIndexedCols'] ?? DEFAULT_INDEXED_COLUMNS,
        );
        staged = await stageFiles(
          engine,
          connection,
          root,
          request.add ?? [],
          newPartitionColumns,
          Number.isFinite(indexed) && indexed >= 0 ? indexed : DEFAULT_INDEXED_COLUMNS,
          now,
        );
      }
      for (const file of staged) {
        if (Object.keys(file.add.partitionValues).join('\0') !== newPartitionColumns.join('\0')) {
          throw new CommitConflict(`the partition columns of ${root} changed while committing`);
        }
      }
      const schema = resolveSchema(current, request.schema, staged, replacingAll, newPartitionColumns);
      await assertNotNull(connection, schema, staged);

      const timestamp = now();
      const version = currentVersion + 1;
      const schemaString = serializeSchema(schema);
      const configuration = { ...(current?.metadata.configuration ?? {}), ...(request.configuration ?? {}) };
      const metadata: MetadataAction = {
        id: current?.metadata.id ?? uuidv7(),
        name: current?.metadata.name ?? null,
        description: current?.metadata.description ?? null,
        format: { provider: 'parquet', options: {} },
        schemaString,
        partitionColumns: newPartitionColumns,
        configuration,
        createdTime: current?.metadata.createdTime ?? timestamp,
      };
      const metadataChanged =
        current === null ||
        serializeSchema(current.schema) !== schemaString ||
        current.partitionColumns.join('\0') !== newPartitionColumns.join('\0') ||
        JSON.stringify(current.metadata.configuration ?? {}) !== JSON.stringify(configuration);

      const removes: RemoveAction[] = [...removing].map((file) => ({
        path: file.add.path,
        deletionTimestamp: timestamp,
        dataChange,
        extendedFileMetadata: true,
        partitionValues: file.add.partitionValues,
        size: file.size,
      }));
      const adds: AddAction[] = staged.map((file) => ({ ...file.add, dataChange }));
      const numRecords = staged.reduce((total, file) => total + file.numRecords, 0);
      const actions: LogAction[] = [
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
              numOutputRows: String(numRecords),
              numOutputBytes: String(adds.reduce((total, add) => total + add.size, 0)),
              numRemovedFiles: String(removes.length),
            },
            engineInfo: 'service-platform-delta/1',
            txnId: uuidv7(),
          },
        },
        ...(current === null
          ? [{ protocol: { minReaderVersion: READER_VERSION, minWriterVersion: WRITER_VERSION } }]
          : []),
        ...(metadataChanged ? [{ metaData: metadata }] : []),
        ...(app === undefined ? [] : [{ txn: { appId: app.appId, version: app.version, lastUpdated: timestamp } }]),
        ...removes.map((remove) => ({ remove })),
        ...adds.map((add) => ({ add })),
      ];

      const key = commitKey(root, version);
      let won = await claims.claim(request.tableId, version);
      if (!won && claims.reclaimStale !== undefined && (await engine.storage.head(key)) === null) {
        won = await claims.reclaimStale(request.tableId, version, new Date(now() - staleClaimMs));
      }
      // Another kind of writer (Spark, delta-rs) may have written the version without a claim.
      if (won && (await engine.storage.head(key)) === null) {
        await engine.storage.put(key, serializeCommit(actions), { contentType: 'application/x-ndjson' });
        let checkpoint: CheckpointResult | null = null;
        if (checkpointInterval > 0 && version > 0 && version % checkpointInterval === 0) {
          const state = current === null ? new LogReplay() : replayOf(current);
          state.applyCommit(actions);
          try {
            checkpoint = await writeCheckpoint(engine, root, version, state, timestamp);
          } catch (error) {
            options.onCheckpointError?.(error);
          }
        }
        return {
          version,
          skipped: false,
          added: staged.map((file) => ({
            path: file.path,
            key: file.key,
            size: file.add.size,
            modificationTime: file.add.modificationTime,
            partitionValues: file.add.partitionValues,
            stats: parseStats(file.add.stats),
            add: { ...file.add, dataChange },
          })),
          removed: [...removing].map((file) => file.path),
          numRecords,
          schema,
          attempts: attempt,
          checkpoint,
        };
      }
      if (attempt >= maxAttempts) {
        throw new CommitConflict(`gave up committing to ${root} after ${attempt} attempts: other writers kept winning`);
      }
      await sleep(Math.random() * Math.min(1000, 5 * 2 ** attempt));
    }
  });
}
