import { setTimeout as sleep } from 'node:timers/promises';
import { type LogAction, serializeCommit } from './actions.js';
import { type CheckpointResult, writeCheckpoint } from './checkpoint-writer.js';
import {
  alreadyCommitted,
  assertCommittable,
  assertSamePartitions,
  type CommitRequest,
  type CommitResult,
  commitActions,
  committedResult,
  indexedColumns,
  type NewVersion,
  plannedChange,
} from './commit-actions.js';
import type { CommitClaims } from './commit-claims.js';
import type { DeltaEngine } from './engine.js';
import { CommitConflict, DeltaTableNotFound } from './errors.js';
import { commitKey } from './log-files.js';
import { LogReplay } from './replay.js';
import { type DeltaSnapshot, loadSnapshot, replayOf } from './snapshot.js';
import { assertNotNull, resolveSchema, type StagedFile, stageFiles } from './staging.js';

export type { CommitRequest, CommitResult } from './commit-actions.js';
export type { NewDataFile } from './staging.js';

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
  const { root } = request;
  // Staged once: a retry against a later version commits the same files.
  let staged: StagedFile[] | null = null;

  return engine.duckdb.withConnection(async (connection) => {
    for (let attempt = 1; ; attempt++) {
      const current = await latestOrNull(engine, root);
      assertCommittable(request, current);
      const skipped = alreadyCommitted(request, current, attempt);
      if (skipped !== null) return skipped;
      const change = plannedChange(request, current);
      staged ??= await stageFiles(
        engine,
        connection,
        root,
        request.add ?? [],
        change.partitionColumns,
        indexedColumns(current),
        now,
      );
      assertSamePartitions(root, staged, change.partitionColumns);
      const schema = resolveSchema(current, request.schema, staged, change.replacingAll, change.partitionColumns);
      await assertNotNull(connection, schema, staged);

      const next = { request, current, change, staged, schema, timestamp: now() };
      const version = (current?.version ?? -1) + 1;
      const actions = commitActions(next);
      if (await claimVersion(engine, claims, request, version, options)) {
        await engine.storage.put(commitKey(root, version), serializeCommit(actions), {
          contentType: 'application/x-ndjson',
        });
        const checkpoint = await checkpointIfDue(engine, next, version, actions, options);
        return committedResult(next, version, attempt, checkpoint);
      }
      if (attempt >= maxAttempts) {
        throw new CommitConflict(`gave up committing to ${root} after ${attempt} attempts: other writers kept winning`);
      }
      await sleep(Math.random() * Math.min(1000, 5 * 2 ** attempt));
    }
  });
}

/**
 * Whether this writer may write the version's log file: it claimed the version (or took over a
 * stale claim whose log file never appeared), and no other kind of writer (Spark, delta-rs) wrote
 * the version without a claim.
 */
async function claimVersion(
  engine: DeltaEngine,
  claims: CommitClaims,
  request: CommitRequest,
  version: number,
  options: CommitOptions,
): Promise<boolean> {
  const key = commitKey(request.root, version);
  const now = options.now ?? Date.now;
  const staleClaimMs = options.staleClaimMs ?? 5 * 60 * 1000;
  let won = await claims.claim(request.tableId, version);
  if (!won && claims.reclaimStale !== undefined && (await engine.storage.head(key)) === null) {
    won = await claims.reclaimStale(request.tableId, version, new Date(now() - staleClaimMs));
  }
  return won && (await engine.storage.head(key)) === null;
}

/** Writes a checkpoint at every `checkpointInterval`th version; a failed one leaves the commit standing. */
async function checkpointIfDue(
  engine: DeltaEngine,
  { current, request, timestamp }: NewVersion,
  version: number,
  actions: LogAction[],
  options: CommitOptions,
): Promise<CheckpointResult | null> {
  const checkpointInterval = options.checkpointInterval ?? 10;
  if (checkpointInterval <= 0 || version === 0 || version % checkpointInterval !== 0) return null;
  const state = current === null ? new LogReplay() : replayOf(current);
  state.applyCommit(actions);
  try {
    return await writeCheckpoint(engine, request.root, version, state, timestamp);
  } catch (error) {
    options.onCheckpointError?.(error);
    return null;
  }
}
