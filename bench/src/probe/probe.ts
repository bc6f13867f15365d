/**
 * `queue.probe`: the `jobs` benchmark's own job kind. It does no work, so that what is measured is
 * the queue itself (claim, lease, finish). It is not part of the product: only workers started
 * from `worker.ts` here register it, and `/jobs` never shows one (nor does any route create one).
 * With `record`, each execution adds a row to `queue_probe_runs` (a job that ran twice would have
 * two; the fault tests count them); with `hold_ms`, the job keeps its worker that long (a job that
 * is running while something breaks), and stops early when cancelled.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '@service/server';
import { type Kysely, sql } from 'kysely';

export const PROBE_KIND = 'queue.probe';

export interface ProbePayload {
  hold_ms?: number;
  record?: boolean;
}

function parsePayload(payload: unknown): ProbePayload {
  if (typeof payload !== 'object' || payload === null) throw new Error('queue.probe: the payload is not an object');
  const { hold_ms, record, ...rest } = payload as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw new Error(`queue.probe: unknown fields ${Object.keys(rest).join(', ')}`);
  if (
    hold_ms !== undefined &&
    !(Number.isInteger(hold_ms) && (hold_ms as number) >= 0 && (hold_ms as number) <= 600_000)
  )
    throw new Error('queue.probe: hold_ms must be an integer from 0 to 600000');
  if (record !== undefined && typeof record !== 'boolean') throw new Error('queue.probe: record must be a boolean');
  return { ...(hold_ms === undefined ? {} : { hold_ms: hold_ms as number }), ...(record ? { record } : {}) };
}

/** Creates `queue_probe_runs` (one row per execution of a recorded probe) unless it exists. */
export async function createProbeTable<Tables>(db: Kysely<Tables>): Promise<void> {
  await db.schema
    .createTable('queue_probe_runs')
    .ifNotExists()
    .addColumn('job_id', 'text', (col) => col.notNull().references('jobs.job_id').onDelete('cascade'))
    .addColumn('worker', 'text', (col) => col.notNull())
    .addColumn('attempt', 'integer', (col) => col.notNull())
    .addColumn('ran_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('queue_probe_runs_job_idx')
    .ifNotExists()
    .on('queue_probe_runs')
    .column('job_id')
    .execute();
}

/** Lets `context`'s workers run `queue.probe` jobs. */
export function registerProbe(context: AppContext): void {
  const { db } = context.database;
  context.jobHandlers.registerExtra(PROBE_KIND, async (job, tools) => {
    const payload = parsePayload(job.payload);
    if (payload.record) {
      await sql`insert into queue_probe_runs (job_id, worker, attempt, ran_at)
        values (${job.jobId}, ${job.worker}, ${job.attempt}, ${new Date().toISOString()})`.execute(db);
    }
    if (payload.hold_ms) await sleep(payload.hold_ms, undefined, { signal: tools.signal });
    return { held_ms: payload.hold_ms ?? 0 };
  });
}
