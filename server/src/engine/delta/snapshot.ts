import { ObjectNotFound, type ObjectStorage, type StoredObject } from '../../storage/storage.js';
import type { AddAction, LogAction, MetadataAction, ProtocolAction, RemoveAction, TxnAction } from './actions.js';
import { parseCommit } from './actions.js';
import { readCheckpoint } from './checkpoint-reader.js';
import type { DeltaEngine } from './engine.js';
import { DeltaLogCorrupt, DeltaTableNotFound, DeltaVersionNotFound } from './errors.js';
import {
  checkpointKey,
  checkpointPartKey,
  commitKey,
  dataFileKey,
  lastCheckpointKey,
  logPrefix,
  parseLogFileName,
} from './log-files.js';
import { normalizePartitionValue } from './partition-values.js';
import { assertReadable } from './protocol.js';
import { LogReplay } from './replay.js';
import { parseSchemaString, type StructType } from './schema.js';
import { type FileStats, parseStats } from './stats.js';

/** An active data file of a snapshot. */
export interface DeltaFile {
  /** Path relative to the table root, percent-decoded. */
  path: string;
  /** Its storage key. */
  key: string;
  size: number;
  modificationTime: number;
  /** Serialized partition values (strings as in the log, null for null or ""); typed by the reader. */
  partitionValues: Record<string, string | null>;
  stats: FileStats | null;
  /** The add action as logged (kept for checkpoints). */
  add: AddAction;
}

/** A file removed from the table that VACUUM must keep until its retention passes. */
export interface Tombstone {
  path: string;
  deletionTimestamp: number | null;
  remove: RemoveAction;
}

/** One table version: what a reader sees. */
export interface DeltaSnapshot {
  root: string;
  version: number;
  /** When this version was committed (commitInfo timestamp, else the log file's time), in ms. */
  timestamp: number;
  protocol: ProtocolAction;
  metadata: MetadataAction;
  schema: StructType;
  partitionColumns: string[];
  files: DeltaFile[];
  tombstones: Tombstone[];
  /** The last `txn` version per application id. */
  appTransactions: Record<string, TxnAction>;
  /** The checkpoint the state was read from, if any. */
  checkpointVersion: number | null;
  /** The JSON commits applied on top of the checkpoint, with their timestamps. */
  commits: { version: number; timestamp: number }[];
}

export interface SnapshotOptions {
  /** Time travel: the table as of this version; the latest by default. */
  version?: number;
}

interface LastCheckpoint {
  version: number;
  parts: number;
}

async function readLastCheckpoint(storage: ObjectStorage, root: string): Promise<LastCheckpoint | null> {
  try {
    const json: unknown = JSON.parse((await storage.getBuffer(lastCheckpointKey(root))).toString('utf8'));
    if (typeof json !== 'object' || json === null) return null;
    const { version, parts } = json as { version?: unknown; parts?: unknown };
    if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) return null;
    return { version, parts: typeof parts === 'number' && parts > 1 ? parts : 1 };
  } catch {
    // Only a hint: absent or unreadable means "list the log".
    return null;
  }
}

function checkpointKeys(root: string, checkpoint: LastCheckpoint): string[] {
  if (checkpoint.parts === 1) return [checkpointKey(root, checkpoint.version)];
  return Array.from({ length: checkpoint.parts }, (_, index) =>
    checkpointPartKey(root, checkpoint.version, index + 1, checkpoint.parts),
  );
}

interface Commit {
  version: number;
  actions: LogAction[];
  timestamp: number | null;
}

async function readCommit(storage: ObjectStorage, root: string, version: number): Promise<Commit | null> {
  const key = commitKey(root, version);
  let text: string;
  try {
    text = (await storage.getBuffer(key)).toString('utf8');
  } catch (error) {
    if (error instanceof ObjectNotFound) return null;
    throw error;
  }
  const actions = parseCommit(text, key);
  let timestamp: number | null = null;
  for (const action of actions) {
    if ('commitInfo' in action && typeof action.commitInfo.timestamp === 'number')
      timestamp = action.commitInfo.timestamp;
  }
  return { version, actions, timestamp };
}

/** Runs `work` over items, `limit` at a time, keeping their order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

interface LogListing {
  commits: Map<number, StoredObject>;
  /** Complete checkpoints (every part present) by version. */
  checkpoints: Map<number, LastCheckpoint>;
  latest: number;
}

/** Lists `_delta_log/`: its commits and its complete classic or multi-part checkpoints. */
export async function listLog(storage: ObjectStorage, root: string): Promise<LogListing> {
  const commits = new Map<number, StoredObject>();
  const parts = new Map<string, Set<number>>();
  const prefix = logPrefix(root);
  for await (const object of storage.list(prefix)) {
    const file = parseLogFileName(object.key.slice(prefix.length));
    if (file === null) continue;
    if (file.kind === 'commit') commits.set(file.version, object);
    else {
      const id = `${file.version}/${file.parts}`;
      const seen = parts.get(id) ?? new Set<number>();
      seen.add(file.part);
      parts.set(id, seen);
    }
  }
  const checkpoints = new Map<number, LastCheckpoint>();
  for (const [id, seen] of parts) {
    const [version, count] = id.split('/').map(Number) as [number, number];
    if (seen.size === count) checkpoints.set(version, { version, parts: count });
  }
  const versions = [...commits.keys(), ...checkpoints.keys()];
  if (versions.length === 0) throw new DeltaTableNotFound(root);
  return { commits, checkpoints, latest: Math.max(...versions) };
}

/** The table's latest version, or null when there is no table. */
export async function latestVersion(storage: ObjectStorage, root: string): Promise<number | null> {
  try {
    return (await listLog(storage, root)).latest;
  } catch (error) {
    if (error instanceof DeltaTableNotFound) return null;
    throw error;
  }
}

interface LoadedLog {
  checkpoint: { version: number; actions: LogAction[] } | null;
  commits: Commit[];
  /** Modification times from a listing, when the log was listed. */
  listed: Map<number, StoredObject> | null;
}

/** Fast path: start at `_last_checkpoint` and read the commits after it until one is missing. */
async function loadFromHint(
  engine: DeltaEngine,
  root: string,
  hint: LastCheckpoint,
  target: number | undefined,
): Promise<LoadedLog | null> {
  const actions = await readCheckpoint(engine.duckdb, engine.files, checkpointKeys(root, hint));
  // A stale hint naming a deleted checkpoint: list the log instead.
  if (actions === null) return null;
  const commits: Commit[] = [];
  for (let version = hint.version + 1; target === undefined || version <= target; version++) {
    const commit = await readCommit(engine.storage, root, version);
    if (commit === null) break;
    commits.push(commit);
  }
  const reached = hint.version + commits.length;
  if (target !== undefined && reached < target) {
    throw new DeltaVersionNotFound(root, target, `does not exist (the latest version is ${reached})`);
  }
  return { checkpoint: { version: hint.version, actions }, commits, listed: null };
}

async function loadFromListing(engine: DeltaEngine, root: string, target: number | undefined): Promise<LoadedLog> {
  const listing = await listLog(engine.storage, root);
  const version = target ?? listing.latest;
  if (version > listing.latest) {
    throw new DeltaVersionNotFound(root, version, `does not exist (the latest version is ${listing.latest})`);
  }
  const usable = [...listing.checkpoints.keys()].filter((candidate) => candidate <= version);
  const start = usable.length === 0 ? null : Math.max(...usable);
  const wanted: number[] = [];
  for (let next = (start ?? -1) + 1; next <= version; next++) {
    if (!listing.commits.has(next)) {
      throw new DeltaVersionNotFound(
        root,
        version,
        `can't be reconstructed: commit ${next} is missing and no checkpoint covers it`,
      );
    }
    wanted.push(next);
  }
  let checkpoint: LoadedLog['checkpoint'] = null;
  if (start !== null) {
    const actions = await readCheckpoint(
      engine.duckdb,
      engine.files,
      checkpointKeys(root, listing.checkpoints.get(start)!),
    );
    if (actions === null) throw new DeltaLogCorrupt(`checkpoint ${start} of ${root} disappeared while reading`);
    checkpoint = { version: start, actions };
  }
  const commits = await mapLimited(wanted, 16, async (next) => {
    const commit = await readCommit(engine.storage, root, next);
    if (commit === null) throw new DeltaLogCorrupt(`commit ${next} of ${root} disappeared while reading`);
    return commit;
  });
  return { checkpoint, commits, listed: listing.commits };
}

async function modifiedAt(storage: ObjectStorage, key: string): Promise<number | null> {
  return (await storage.head(key))?.modifiedAt.getTime() ?? null;
}

/**
 * Replays the log up to a version (the latest by default): the newest checkpoint at or below it
 * (`_last_checkpoint` first, a listing otherwise), then the JSON commits after it. Refuses, before
 * any data file is touched, tables this reader can't read (`UnsupportedTableFeature`).
 */
export async function loadSnapshot(
  engine: DeltaEngine,
  root: string,
  options: SnapshotOptions = {},
): Promise<DeltaSnapshot> {
  const target = options.version;
  if (target !== undefined && (!Number.isSafeInteger(target) || target < 0)) {
    throw new DeltaVersionNotFound(root, target, 'is not a valid version');
  }
  const hint = await readLastCheckpoint(engine.storage, root);
  const loaded =
    (hint !== null && (target === undefined || hint.version <= target)
      ? await loadFromHint(engine, root, hint, target)
      : null) ?? (await loadFromListing(engine, root, target));

  const replay = new LogReplay();
  if (loaded.checkpoint !== null) replay.applyCheckpoint(loaded.checkpoint.actions);
  const commits: { version: number; timestamp: number }[] = [];
  for (const commit of loaded.commits) {
    replay.applyCommit(commit.actions);
    const timestamp =
      commit.timestamp ??
      loaded.listed?.get(commit.version)?.modifiedAt.getTime() ??
      (await modifiedAt(engine.storage, commitKey(root, commit.version))) ??
      0;
    commits.push({ version: commit.version, timestamp });
  }
  const version = loaded.commits.at(-1)?.version ?? loaded.checkpoint?.version;
  if (version === undefined) throw new DeltaTableNotFound(root);

  const where = `version ${version} of ${root}`;
  const { protocol, metadata } = replay.required(where);
  const schema = parseSchemaString(metadata.schemaString);
  assertReadable(protocol, metadata, schema);
  replay.assertPlainFiles();

  let timestamp = commits.at(-1)?.timestamp;
  if (timestamp === undefined) {
    // The version is the checkpoint's: its commit (if kept) says when, else the checkpoint file.
    const commit = await readCommit(engine.storage, root, version);
    timestamp =
      commit?.timestamp ??
      (await modifiedAt(engine.storage, commitKey(root, version))) ??
      (await modifiedAt(engine.storage, checkpointKeys(root, { version, parts: 1 })[0]!)) ??
      0;
  }

  const partitionColumns = metadata.partitionColumns;
  return {
    root,
    version,
    timestamp,
    protocol,
    metadata,
    schema,
    partitionColumns,
    files: activeFiles(root, replay, partitionColumns),
    tombstones: [...replay.tombstones].map(([path, remove]) => ({
      path,
      deletionTimestamp: remove.deletionTimestamp ?? null,
      remove,
    })),
    appTransactions: Object.fromEntries(replay.transactions),
    checkpointVersion: loaded.checkpoint?.version ?? null,
    commits,
  };
}

/** The replayed log's active data files, their partition values normalized. */
function activeFiles(root: string, replay: LogReplay, partitionColumns: readonly string[]): DeltaFile[] {
  return [...replay.files].map(([path, add]) => {
    const partitionValues: Record<string, string | null> = {};
    for (const column of partitionColumns) {
      partitionValues[column] = normalizePartitionValue(add.partitionValues[column]);
    }
    return {
      path,
      key: dataFileKey(root, path),
      size: add.size,
      modificationTime: add.modificationTime,
      partitionValues,
      stats: parseStats(add.stats),
      add,
    };
  });
}

/** Rebuilds a snapshot's replay state, to apply a new commit on top of it. */
export function replayOf(snapshot: DeltaSnapshot): LogReplay {
  const replay = new LogReplay();
  replay.protocol = snapshot.protocol;
  replay.metadata = snapshot.metadata;
  for (const file of snapshot.files) replay.files.set(file.path, file.add);
  for (const tombstone of snapshot.tombstones) replay.tombstones.set(tombstone.path, tombstone.remove);
  for (const [appId, txn] of Object.entries(snapshot.appTransactions)) replay.transactions.set(appId, txn);
  return replay;
}
