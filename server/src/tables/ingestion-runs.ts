import type { Insertable, Kysely, Updateable } from 'kysely';
import type { IngestionRunsTable, Tables } from '../db/tables.js';

/** The statuses of a run (and of a job) not yet ended. */
const ACTIVE = ['pending', 'running'] as const;

/**
 * Every query on `ingestion_runs` (docs/architecture.md "Table owners"). Each function takes the
 * database or a transaction, so callers keep their work atomic.
 */
export const ingestionRunRows = {
  find(db: Kysely<Tables>, id: string): Promise<IngestionRunsTable | undefined> {
    return db.selectFrom('ingestion_runs').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** The runs of one project, filtered only: `paginate` adds the order and the page. */
  ofProjectFiltered(db: Kysely<Tables>, projectId: string) {
    return db.selectFrom('ingestion_runs').where('project_id', '=', projectId);
  },

  /** The project's run in progress: active itself, and (when it has a job) its job still pending or running. */
  activeOfProject(db: Kysely<Tables>, projectId: string): Promise<IngestionRunsTable | undefined> {
    return db
      .selectFrom('ingestion_runs')
      .leftJoin('jobs', 'jobs.job_id', 'ingestion_runs.job_id')
      .selectAll('ingestion_runs')
      .where('ingestion_runs.project_id', '=', projectId)
      .where('ingestion_runs.status', 'in', ACTIVE)
      .where((eb) => eb.or([eb('ingestion_runs.job_id', 'is', null), eb('jobs.status', 'in', ACTIVE)]))
      .executeTakeFirst();
  },

  /** The active runs of these jobs. */
  activeOfJobs(db: Kysely<Tables>, jobIds: readonly string[]): Promise<Pick<IngestionRunsTable, 'id' | 'steps'>[]> {
    return db
      .selectFrom('ingestion_runs')
      .select(['id', 'steps'])
      .where('job_id', 'in', [...jobIds])
      .where('status', 'in', ACTIVE)
      .execute();
  },

  /** The active runs whose job has ended or is gone, with how the job ended; of one project or all. */
  activeOfEndedJobs(db: Kysely<Tables>, projectId?: string) {
    let query = db
      .selectFrom('ingestion_runs')
      .leftJoin('jobs', 'jobs.job_id', 'ingestion_runs.job_id')
      .select(['ingestion_runs.id', 'ingestion_runs.steps', 'jobs.status as job_status', 'jobs.error as job_error'])
      .where('ingestion_runs.job_id', 'is not', null)
      .where('ingestion_runs.status', 'in', ACTIVE)
      .where((eb) => eb.or([eb('jobs.job_id', 'is', null), eb('jobs.status', 'not in', ACTIVE)]));
    if (projectId !== undefined) query = query.where('ingestion_runs.project_id', '=', projectId);
    return query.execute();
  },

  /**
   * The active runs without a job (synchronous ones) whose lease expired before `now`, or that never
   * had a lease and were created before `unleasedBefore`; of one project or all.
   */
  activeUnleased(
    db: Kysely<Tables>,
    now: string,
    unleasedBefore: string,
    projectId?: string,
  ): Promise<Pick<IngestionRunsTable, 'id' | 'steps'>[]> {
    let query = db
      .selectFrom('ingestion_runs')
      .select(['id', 'steps'])
      .where('job_id', 'is', null)
      .where('status', 'in', ACTIVE)
      .where((eb) =>
        eb.or([
          eb('lease_expires_at', '<', now),
          eb.and([eb('lease_expires_at', 'is', null), eb('created_at', '<', unleasedBefore)]),
        ]),
      );
    if (projectId !== undefined) query = query.where('project_id', '=', projectId);
    return query.execute();
  },

  async insert(db: Kysely<Tables>, row: Insertable<IngestionRunsTable>): Promise<void> {
    await db.insertInto('ingestion_runs').values(row).execute();
  },

  /** Writes the columns while the run is active; an ended run keeps its outcome. */
  async updateWhileActive(db: Kysely<Tables>, id: string, changes: Updateable<IngestionRunsTable>): Promise<void> {
    await db.updateTable('ingestion_runs').set(changes).where('id', '=', id).where('status', 'in', ACTIVE).execute();
  },

  /**
   * Ends an active run with these columns. With `expiredBefore`, only while its lease (if any)
   * expired before then: a run whose server renewed its lease since it was read (it was only
   * slow) goes on.
   */
  async end(
    db: Kysely<Tables>,
    id: string,
    changes: Updateable<IngestionRunsTable>,
    expiredBefore?: string,
  ): Promise<void> {
    await db
      .updateTable('ingestion_runs')
      .set(changes)
      .where('id', '=', id)
      .where('status', 'in', ACTIVE)
      .$if(expiredBefore !== undefined, (update) =>
        update.where((eb) =>
          eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', expiredBefore as string)]),
        ),
      )
      .execute();
  },

  /** Extends an active run's lease; answers whether the run was still active. */
  async renewLease(db: Kysely<Tables>, id: string, leaseExpiresAt: string): Promise<boolean> {
    const result = await db
      .updateTable('ingestion_runs')
      .set({ lease_expires_at: leaseExpiresAt })
      .where('id', '=', id)
      .where('status', 'in', ACTIVE)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },
};
