import type { IngestionRun } from '@service/common';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import type { EndedJobs } from '../jobs/queue.js';
import { ingestionRunRows } from '../tables/ingestion-runs.js';

type Step = IngestionRun['steps'][number];
type Ending = { status: 'failed' | 'cancelled'; error: { code: string; message: string } };

/** When a job that never got to finish its ingestion run has ended anyway (it never ran, or its worker vanished). */
const ORPHANED = { code: 'ingestion_failed', message: 'its job ended before the ingestion run did' };

/** When a synchronous run's server stopped renewing its lease (killed, machine lost). */
export const SERVER_LOST = {
  code: 'server_lost',
  message: 'the server running it stopped before the ingestion run ended (its lease expired)',
};

/**
 * How long a synchronous run written without a lease (by a version before leases) may stay active:
 * longer than such a run takes, so one still running on an older replica is left alone.
 */
const UNLEASED_RUN_HOURS = 1;

/**
 * Ends one run that its own task will not end: a pending job cancelled before any worker took it,
 * or a job whose worker died. Steps left `running` end with the run. Conditional on the run still
 * being active, so a run its task already ended keeps its own outcome.
 */
async function endRun(
  db: Kysely<Tables>,
  run: { id: string; steps: string },
  ending: Ending,
  expiredBefore?: string,
): Promise<void> {
  const now = isoNow();
  const steps = (JSON.parse(run.steps) as Step[]).map((step) =>
    step.status === 'running' ? { ...step, status: ending.status, finished_at: now } : step,
  );
  await ingestionRunRows.end(
    db,
    run.id,
    { status: ending.status, finished_at: now, error: JSON.stringify(ending.error), steps: JSON.stringify(steps) },
    expiredBefore,
  );
}

/** Ends the active runs of jobs that just failed or were cancelled (a `JobQueue.onEnded` listener). */
export async function endRunsOfEndedJobs(db: Kysely<Tables>, ended: EndedJobs): Promise<void> {
  const runs = await ingestionRunRows.activeOfJobs(db, ended.jobIds);
  for (const run of runs) await endRun(db, run, ended);
}

/**
 * Ends runs still marked pending or running although their job has ended (or is gone): runs left
 * behind before jobs ended their runs, which would otherwise block the project's ingestion for
 * good. Answers how many it ended. Run at startup, and by the trigger for its project.
 */
export async function endOrphanedRuns(db: Kysely<Tables>, projectId?: string): Promise<number> {
  const runs = await ingestionRunRows.activeOfEndedJobs(db, projectId);
  for (const run of runs) {
    const cancelled = run.job_status === 'cancelled';
    const error = cancelled
      ? { code: 'cancelled', message: 'the job was cancelled' }
      : run.job_error !== null && run.job_status === 'failed'
        ? (JSON.parse(run.job_error) as Ending['error'])
        : ORPHANED;
    await endRun(db, run, { status: cancelled ? 'cancelled' : 'failed', error });
  }
  return runs.length;
}

/**
 * Ends synchronous runs (no job) whose server stopped renewing their lease: they would otherwise
 * stay `running` and hold their project's one active slot for good. Their steps left `running`
 * fail with them; what the run had not committed was never committed (an upsert commits its Delta
 * version last, in one step). Safe to run anywhere, any time: a run whose server still renews its
 * lease is not touched. Answers how many it ended.
 */
export async function endExpiredRuns(db: Kysely<Tables>, projectId?: string, now = Date.now()): Promise<number> {
  const nowIso = new Date(now).toISOString();
  const unleasedBefore = new Date(now - UNLEASED_RUN_HOURS * 60 * 60 * 1000).toISOString();
  const runs = await ingestionRunRows.activeUnleased(db, nowIso, unleasedBefore, projectId);
  for (const run of runs) await endRun(db, run, { status: 'failed', error: SERVER_LOST }, nowIso);
  return runs.length;
}
