import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ObjectNotFound } from '../../storage/storage.js';
import { quoteString } from '../sql.js';
import type { AddAction, MetadataAction, ProtocolAction, RemoveAction, TxnAction } from './actions.js';
import type { DeltaEngine } from './engine.js';
import { checkpointKey, lastCheckpointKey } from './log-files.js';
import type { LogReplay } from './replay.js';

/** The checkpoint columns (PROTOCOL.md "Checkpoint Schema") for a reader-1/writer-2 table. */
const CHECKPOINT_COLUMNS: Record<string, string> = {
  protocol: 'STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER)',
  metaData:
    'STRUCT(id VARCHAR, "name" VARCHAR, description VARCHAR, format STRUCT(provider VARCHAR, "options" MAP(VARCHAR, VARCHAR)), schemaString VARCHAR, partitionColumns VARCHAR[], "configuration" MAP(VARCHAR, VARCHAR), createdTime BIGINT)',
  txn: 'STRUCT(appId VARCHAR, "version" BIGINT, lastUpdated BIGINT)',
  add: 'STRUCT(path VARCHAR, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, stats VARCHAR, tags MAP(VARCHAR, VARCHAR))',
  remove:
    'STRUCT(path VARCHAR, deletionTimestamp BIGINT, dataChange BOOLEAN, extendedFileMetadata BOOLEAN, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT)',
};

const DAY = 24 * 60 * 60 * 1000;
const UNITS: Record<string, number> = {
  millisecond: 1,
  second: 1000,
  minute: 60 * 1000,
  hour: 60 * 60 * 1000,
  day: DAY,
  week: 7 * DAY,
};

/** `delta.deletedFileRetentionDuration` (`interval 1 week`) in ms; a week by default. */
export function tombstoneRetentionMs(metadata: MetadataAction): number {
  const value = metadata.configuration?.['delta.deletedFileRetentionDuration'];
  const match = value == null ? null : /^\s*interval\s+(\d+)\s+(\w+?)s?\s*$/i.exec(value);
  const unit = match === null ? undefined : UNITS[match[2]!.toLowerCase()];
  return match === null || unit === undefined ? 7 * DAY : Number(match[1]) * unit;
}

function protocolRow(protocol: ProtocolAction) {
  return { minReaderVersion: protocol.minReaderVersion, minWriterVersion: protocol.minWriterVersion };
}

function metadataRow(metadata: MetadataAction) {
  return {
    id: metadata.id,
    name: metadata.name ?? null,
    description: metadata.description ?? null,
    format: { provider: metadata.format?.provider ?? 'parquet', options: metadata.format?.options ?? {} },
    schemaString: metadata.schemaString,
    partitionColumns: metadata.partitionColumns,
    configuration: metadata.configuration ?? {},
    createdTime: metadata.createdTime ?? null,
  };
}

function txnRow(txn: TxnAction) {
  return { appId: txn.appId, version: txn.version, lastUpdated: txn.lastUpdated ?? null };
}

function addRow(add: AddAction) {
  return {
    path: add.path,
    partitionValues: add.partitionValues,
    size: add.size,
    modificationTime: add.modificationTime,
    // Checkpoint adds describe state, not a change.
    dataChange: false,
    stats: add.stats ?? null,
    tags: add.tags ?? null,
  };
}

function removeRow(remove: RemoveAction) {
  return {
    path: remove.path,
    deletionTimestamp: remove.deletionTimestamp ?? null,
    dataChange: false,
    extendedFileMetadata: remove.extendedFileMetadata ?? null,
    partitionValues: remove.partitionValues ?? null,
    size: remove.size ?? null,
  };
}

export interface CheckpointResult {
  key: string;
  /** Actions in the checkpoint. */
  size: number;
  sizeInBytes: number;
  numOfAddFiles: number;
}

/**
 * Writes the classic single-file checkpoint of `version` from its reconciled state: one row per
 * action (protocol, metaData, txn, add, unexpired remove tombstones), written by DuckDB, then
 * `_last_checkpoint`, unless that already names a newer checkpoint.
 */
export async function writeCheckpoint(
  engine: DeltaEngine,
  root: string,
  version: number,
  state: LogReplay,
  now: number = Date.now(),
): Promise<CheckpointResult> {
  const { protocol, metadata } = state.required(`version ${version} of ${root}`);
  const expiry = now - tombstoneRetentionMs(metadata);
  const rows: Record<string, unknown>[] = [{ protocol: protocolRow(protocol) }, { metaData: metadataRow(metadata) }];
  for (const txn of state.transactions.values()) rows.push({ txn: txnRow(txn) });
  for (const add of state.files.values()) rows.push({ add: addRow(add) });
  for (const remove of state.tombstones.values()) {
    if (remove.deletionTimestamp == null || remove.deletionTimestamp > expiry) rows.push({ remove: removeRow(remove) });
  }

  const directory = await mkdtemp(join(engine.tempDirectory ?? tmpdir(), 'delta-checkpoint-'));
  try {
    const staged = join(directory, 'actions.ndjson');
    const parquet = join(directory, 'checkpoint.parquet');
    await writeFile(staged, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
    const columns = Object.entries(CHECKPOINT_COLUMNS)
      .map(([name, type]) => `${quoteString(name)}: ${quoteString(type)}`)
      .join(', ');
    await engine.duckdb.withConnection((connection) =>
      connection.run(
        `COPY (SELECT protocol, metaData, txn, "add", remove FROM read_json(${quoteString(staged)}, format = 'newline_delimited', columns = {${columns}}, maximum_object_size = 1073741824))
         TO ${quoteString(parquet)} (FORMAT parquet)`,
      ),
    );
    const key = checkpointKey(root, version);
    const { size: sizeInBytes } = await engine.storage.putFile(key, parquet);
    const numOfAddFiles = state.files.size;
    const current = await readHintVersion(engine, root);
    if (current === null || current < version) {
      await engine.storage.put(
        lastCheckpointKey(root),
        JSON.stringify({ version, size: rows.length, sizeInBytes, numOfAddFiles }),
        { contentType: 'application/json' },
      );
    }
    return { key, size: rows.length, sizeInBytes, numOfAddFiles };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

async function readHintVersion(engine: DeltaEngine, root: string): Promise<number | null> {
  try {
    const json = JSON.parse((await engine.storage.getBuffer(lastCheckpointKey(root))).toString('utf8')) as {
      version?: unknown;
    };
    return typeof json.version === 'number' ? json.version : null;
  } catch (error) {
    if (error instanceof ObjectNotFound || error instanceof SyntaxError) return null;
    throw error;
  }
}
