import type { Database } from '../db/database.js';
import type { UpsertService } from '../deltatables/upsert.js';
import type { JobQueue } from '../jobs/queue.js';
import { workflowRows } from '../tables/workflows.js';
import type { LiveEvents } from './hub.js';

/** Longest step text a job event carries (a notice's payload is bounded). */
const STEP_MAX = 200;

/**
 * Connects what makes events to the stream (docs/live-data.md "Events"): every committed table
 * version, every job change. Publishing never fails the work that caused it.
 */
export function publishLiveEvents(
  live: LiveEvents,
  sources: { database: Database; upserts: Pick<UpsertService, 'onVersion'>; jobs: JobQueue },
): void {
  const { database, upserts, jobs } = sources;
  upserts.onVersion((collection, version) => {
    void workflowRows
      .find(database.db, collection.workflow_id)
      .then((workflow) =>
        live.publish({
          kind: 'version',
          project_id: workflow?.project_id ?? null,
          data_collection_id: collection.id,
          user_id: null,
          data: JSON.stringify({ data_collection_id: collection.id, version }),
        }),
      )
      .catch(() => undefined);
  });
  jobs.onChanged((jobIds) => {
    for (const jobId of jobIds) {
      void jobs
        .get(jobId)
        .then((job) => {
          if (job === undefined) return null;
          const data = {
            job_id: job.job_id,
            kind: job.kind,
            status: job.status,
            step: job.step?.slice(0, STEP_MAX) ?? null,
            progress: job.progress,
            project_id: job.project_id,
            updated_at: job.updated_at,
          };
          return live.publish({
            kind: 'job',
            project_id: job.project_id,
            data_collection_id: null,
            user_id: job.user_id,
            data: JSON.stringify(data),
          });
        })
        .catch(() => undefined);
    }
  });
}
