import { setTimeout as sleep } from 'node:timers/promises';
import { queueProbePayloadSchema } from '@service/common';
import type { Database } from '../db/database.js';
import { isoNow } from '../db/time.js';
import type { JobHandler } from './handlers.js';

/**
 * `queue.probe`: a job that does no user-visible work, so that what is measured is the queue
 * itself (claim, lease, finish). Fault tests and `npm run bench -- jobs` enqueue it through the
 * queue module; no route creates it and `/jobs` never shows it. With `record`, each execution
 * adds a row to `queue_probe_runs` (a job that ran twice would have two); with `hold_ms`, the
 * job keeps its worker that long (a job that is running while something breaks), and stops early
 * when cancelled.
 */
export function queueProbeHandler(database: Database): JobHandler {
  return async (job, tools) => {
    const payload = queueProbePayloadSchema.parse(job.payload);
    if (payload.record) {
      await database.db
        .insertInto('queue_probe_runs')
        .values({ job_id: job.jobId, worker: job.worker, attempt: job.attempt, ran_at: isoNow() })
        .execute();
    }
    if (payload.hold_ms) await sleep(payload.hold_ms, undefined, { signal: tools.signal });
    return { held_ms: payload.hold_ms ?? 0 };
  };
}
