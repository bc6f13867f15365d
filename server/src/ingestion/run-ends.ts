import type { IngestionRun } from '@service/common';
import type { Kysely } from 'kysely';
import type { IngestionRunsTable, Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import type { EndedJobs } from '../jobs/queue.js';

type Step = IngestionRun['steps'][number];
type Ending = { status: 'failed' | 'cancelled'; error: { code: string; message: string } };

const ACTIVE: IngestionRunsTable['status'][] = ['pending', 'running'];

/** When a job that never got to finish its ingestion run has ended anyway (it never ran, or its worker vanished). */
const ORPHANED = { code: 'ingestion_failed', message: 'its job ended before the ingestion run did' };

/**
 * Ends one run that its own task will not end: a pending job cancelled before any worker took it,
 * or a job whose worker died. Steps left `running` end with the run. Conditional on the run still
 * being active, so a run its task already ended keeps its own outcome.
 */
async function endRun(db: Kysely<Tables>, run: { id: string; steps: string }, ending: Ending): Promise<void> {
  const now = isoNow();
  const steps = (JSON.parse(run.steps) as Step[]).map((step) =>
    step.status === 'running' ? { ...step, status: ending.status, finished_at: now } : step,
  );
  await db
    .updateTable('ingestion_runs')
    .set({ status: ending.status, finished_at: now, error: JSON.stringify(ending.error), steps: JSON.stringify(steps) })
    .where('id', '=', run.id)
    .where('status', 'in', ACTIVE)
    .execute();
}

/** Ends the active runs of jobs that just failed or were cancelled (a `JobQueue.onEnded` listener). */
export async function endRunsOfEndedJobs(db: Kysely<Tables>, ended: EndedJobs): Promise<void> {
  const runs = await db
    .selectFrom('ingestion_runs')
    .select(['id', 'steps'])
    .where('job_id', 'in', ended.jobIds)
    .where('status', 'in', ACTIVE)
    .execute();
  for (const run of runs) await endRun(db, run, ended);
}

/**
 * Ends runs still marked pending or running although their job has ended (or is gone): runs left
 * behind before jobs ended their runs, which would otherwise block the project's ingestion for
 * good. Answers how many it ended. Run at startup, and by the trigger for its project.
 */
export async function endOrphanedRuns(db: Kysely<Tables>, projectId?: string): Promise<number> {
  let query = db
    .selectFrom('ingestion_runs')
    .leftJoin('jobs', 'jobs.job_id', 'ingestion_runs.job_id')
    .select(['ingestion_runs.id', 'ingestion_runs.steps', 'jobs.status as job_status', 'jobs.error as job_error'])
    .where('ingestion_runs.job_id', 'is not', null)
    .where('ingestion_runs.status', 'in', ACTIVE)
    .where((eb) => eb.or([eb('jobs.job_id', 'is', null), eb('jobs.status', 'not in', ['pending', 'running'])]));
  if (projectId !== undefined) query = query.where('ingestion_runs.project_id', '=', projectId);
  const runs = await query.execute();
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
