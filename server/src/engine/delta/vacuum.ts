import { parseCommit } from './actions.js';
import type { DeltaEngine } from './engine.js';
import { decodeDataPath, logPrefix, parseLogFileName } from './log-files.js';
import { loadSnapshot } from './snapshot.js';

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
  /** Data files kept. */
  kept: number;
}

/** Hidden files and directories (`_delta_log`, `_change_data`, `.crc` side files) are never data files to vacuum. */
function isHidden(path: string): boolean {
  return path.split('/').some((part) => part.startsWith('_') || part.startsWith('.'));
}

/**
 * Deletes the data files that no table version from the last `retentionMs` references: files
 * that are not active in the latest version, were not removed by a commit within the retention
 * (time travel back to then still needs them), and were written before the retention began (so
 * files of writes in flight stay).
 */
export async function vacuum(engine: DeltaEngine, root: string, options: VacuumOptions): Promise<VacuumResult> {
  if (!(options.retentionMs >= 0)) throw new RangeError('retentionMs must be a non-negative number');
  const now = options.now ?? Date.now();
  const cutoff = now - options.retentionMs;
  const snapshot = await loadSnapshot(engine, root);

  const keep = new Set(snapshot.files.map((file) => file.path));
  for (const tombstone of snapshot.tombstones) {
    if (tombstone.deletionTimestamp === null || tombstone.deletionTimestamp > cutoff) keep.add(tombstone.path);
  }

  const prefix = `${root}/`;
  const log = logPrefix(root);
  const candidates: { key: string; path: string; modifiedAt: number }[] = [];
  const recentCommits: string[] = [];
  for await (const object of engine.storage.list(prefix)) {
    if (object.key.startsWith(log)) {
      // Checkpoints may have dropped tombstones older than the table's own retention: removes in
      // recent commits the checkpoint covers must protect their files too.
      const file = parseLogFileName(object.key.slice(log.length));
      if (
        file?.kind === 'commit' &&
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
    candidates.push({ key: object.key, path, modifiedAt: object.modifiedAt.getTime() });
  }
  for (const key of recentCommits) {
    const actions = parseCommit((await engine.storage.getBuffer(key)).toString('utf8'), key);
    for (const action of actions) if ('remove' in action) keep.add(decodeDataPath(action.remove.path));
  }

  const deleted = candidates
    .filter((candidate) => !keep.has(candidate.path) && candidate.modifiedAt < cutoff)
    .map((candidate) => candidate.key);
  if (!options.dryRun) {
    for (let start = 0; start < deleted.length; start += 1000) {
      await engine.storage.delete(deleted.slice(start, start + 1000));
    }
  }
  return { deleted, kept: candidates.length - deleted.length };
}
