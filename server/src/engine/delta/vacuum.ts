import { parseCommit } from './actions.js';
import type { DeltaEngine } from './engine.js';
import { DeltaTableNotFound } from './errors.js';
import { decodeDataPath, logPrefix, parseLogFileName } from './log-files.js';
import { type DeltaSnapshot, loadSnapshot } from './snapshot.js';

export interface VacuumOptions {
  /** Files removed from the table less than this long ago, and files written less than this long ago, stay. */
  retentionMs: number;
  /** List what would be deleted without deleting it. */
  dryRun?: boolean;
  now?: number;
}

export interface VacuumResult {
  /** Storage keys deleted (or, in a dry run, to delete). */
  deleted: string[];
  /** Bytes of the deleted files. */
  deletedBytes: number;
  /** Data files kept. */
  kept: number;
}

/** Hidden files and directories (`_delta_log`, `_change_data`, `.crc` side files) are never data files to vacuum. */
function isHidden(path: string): boolean {
  return path.split('/').some((part) => part.startsWith('_') || part.startsWith('.'));
}

async function snapshotOrNull(engine: DeltaEngine, root: string): Promise<DeltaSnapshot | null> {
  try {
    return await loadSnapshot(engine, root);
  } catch (error) {
    // Data files but no commit: a first write that failed. Nothing references them.
    if (error instanceof DeltaTableNotFound) return null;
    throw error;
  }
}

/**
 * Deletes the data files that no table version from the last `retentionMs` references: files
 * that are not active in the latest version, were not removed by a commit within the retention
 * (time travel back to then still needs them), and were written before the retention began.
 *
 * That last condition is what makes vacuum safe beside a concurrent writer: a writer uploads its
 * data files first and names them in the log only when its commit lands, so a file of a commit in
 * flight is unreferenced in the snapshot read here. It is also younger than the retention (its
 * storage time is when it was uploaded), so it stays, as long as no write takes longer than the
 * retention (hours, see SERVICE_DELTATABLES_VACUUM_RETENTION_HOURS). The snapshot is read before
 * the listing, so a file that a commit landing in between removes was still active when read.
 */
export async function vacuum(engine: DeltaEngine, root: string, options: VacuumOptions): Promise<VacuumResult> {
  if (!(options.retentionMs >= 0)) throw new RangeError('retentionMs must be a non-negative number');
  const now = options.now ?? Date.now();
  const cutoff = now - options.retentionMs;
  const snapshot = await snapshotOrNull(engine, root);

  const keep = new Set((snapshot?.files ?? []).map((file) => file.path));
  for (const tombstone of snapshot?.tombstones ?? []) {
    if (tombstone.deletionTimestamp === null || tombstone.deletionTimestamp > cutoff) keep.add(tombstone.path);
  }

  const prefix = `${root}/`;
  const log = logPrefix(root);
  const candidates: { key: string; path: string; size: number; modifiedAt: number }[] = [];
  const recentCommits: string[] = [];
  for await (const object of engine.storage.list(prefix)) {
    if (object.key.startsWith(log)) {
      // Checkpoints may have dropped tombstones older than the table's own retention: removes in
      // recent commits the checkpoint covers must protect their files too.
      const file = parseLogFileName(object.key.slice(log.length));
      if (
        file?.kind === 'commit' &&
        snapshot !== null &&
        snapshot.checkpointVersion !== null &&
        file.version <= snapshot.checkpointVersion &&
        object.modifiedAt.getTime() > cutoff
      ) {
        recentCommits.push(object.key);
      }
      continue;
    }
    const path = object.key.slice(prefix.length);
    if (isHidden(path)) continue;
    candidates.push({ key: object.key, path, size: object.size, modifiedAt: object.modifiedAt.getTime() });
  }
  for (const key of recentCommits) {
    const actions = parseCommit((await engine.storage.getBuffer(key)).toString('utf8'), key);
    for (const action of actions) if ('remove' in action) keep.add(decodeDataPath(action.remove.path));
  }

  const doomed = candidates.filter((candidate) => !keep.has(candidate.path) && candidate.modifiedAt < cutoff);
  const deleted = doomed.map((candidate) => candidate.key);
  if (!options.dryRun) {
    for (let start = 0; start < deleted.length; start += 1000) {
      await engine.storage.delete(deleted.slice(start, start + 1000));
    }
    // No local copy may keep serving a version vacuum made unreadable.
    const gone = new Set(deleted);
    await engine.files.discard((key) => gone.has(key));
  }
  return {
    deleted,
    deletedBytes: doomed.reduce((total, candidate) => total + candidate.size, 0),
    kept: candidates.length - deleted.length,
  };
}
