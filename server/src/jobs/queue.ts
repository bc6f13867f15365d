import { type Job, type JobKind, jobKindSchema } from '@service/common';
import { type Kysely, sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Database } from '../db/database.js';
import { paginate } from '../db/paginate.js';
import type { JobsTable, Tables } from '../db/tables.js';
import { isoAfterSeconds, isoNow } from '../db/time.js';
import { DomainError } from '../errors.js';

export const JOBS_CHANNEL = 'service_jobs';

/** How long a claim holds without a heartbeat by default (SERVICE_JOBS_LEASE_SECONDS); a dead worker's job is picked up after this. */
export const LEASE_SECONDS = 15;

const ENDED: JobsTable['status'][] = ['success', 'failed', 'cancelled'];

/** Jobs that ended without success, told to whoever keeps records of them (an ingestion run). */
export interface EndedJobs {
  jobIds: string[];
  status: 'failed' | 'cancelled';
  error: { code: string; message: string };
}
/** Runs in the transaction that ended the jobs, so a record never outlives its job's end. */
export type EndedListener = (db: Kysely<Tables>, ended: EndedJobs) => Promise<void>;
/** Told, after the change, of jobs that were queued, claimed, reported on or ended (the live stream). */
export type ChangeListener = (jobIds: string[]) => void;

const CANCELLED = { code: 'cancelled', message: 'the job was cancelled' };
const WORKER_LOST = {
  code: 'worker_lost',
  message: 'the worker running this job stopped responding too many times',
};

/** A growing wait for clients that poll: 1 s at first, up to 10 s for long jobs; null once ended. */
export function pollAfterSeconds(job: JobsTable, now = Date.now()): number | null {
  if (ENDED.includes(job.status)) return null;
  const since = Date.parse(job.started_at ?? job.created_at);
  const running = (now - since) / 1000;
  if (running < 10) return 1;
  if (running < 60) return 2;
  if (running < 300) return 5;
  return 10;
}

export function presentJob(row: JobsTable): Job {
  return {
    job_id: row.job_id,
    kind: row.kind as JobKind,
    status: row.status,
    step: row.step,
    detail: row.detail,
    progress: row.progress,
    ...(row.status === 'success' && row.result !== null ? { result: JSON.parse(row.result) as unknown } : {}),
    ...(row.error !== null && row.status !== 'success'
      ? { error: JSON.parse(row.error) as { code: string; message: string } }
      : {}),
    project_id: row.project_id,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    updated_at: row.updated_at,
    poll_after_seconds: pollAfterSeconds(row),
  };
}

/**
 * The job queue is the `jobs` table (docs/architecture.md "Jobs"). Every state change is one conditional
 * statement, so any number of API replicas and workers can share it: a claim takes the oldest
 * pending job (FOR UPDATE SKIP LOCKED on PostgreSQL), only the lease holder can report or finish,
 * and cancellation is a flag the holder's heartbeat sees.
 */
export class JobQueue {
  private readonly endedListeners: EndedListener[] = [];
  private readonly changeListeners: ChangeListener[] = [];

  constructor(
    private readonly database: Database,
    readonly leaseSeconds = LEASE_SECONDS,
  ) {}

  /** Calls `listener` whenever jobs fail or are cancelled, inside the transaction that ends them. */
  onEnded(listener: EndedListener): void {
    this.endedListeners.push(listener);
  }

  onChanged(listener: ChangeListener): void {
    this.changeListeners.push(listener);
  }

  private changed(jobIds: (string | undefined)[]): void {
    const ids = jobIds.filter((id): id is string => id !== undefined);
    if (ids.length > 0) for (const listener of this.changeListeners) listener(ids);
  }

  private async ended(db: Kysely<Tables>, ended: EndedJobs): Promise<void> {
    if (ended.jobIds.length === 0) return;
    for (const listener of this.endedListeners) await listener(db, ended);
  }

  /** Queues a job; `kind` is the product's, or one registered with `JobHandlers.registerExtra`. */
  async enqueue(
    kind: string,
    payload: unknown,
    owner: { userId: string | null; projectId: string | null },
    db: Kysely<Tables> = this.database.db,
  ): Promise<JobsTable> {
    const now = isoNow();
    const row: JobsTable = {
      job_id: uuidv7(),
      kind,
      status: 'pending',
      step: 'queued',
      detail: null,
      progress: null,
      result: null,
      error: null,
      user_id: owner.userId,
      project_id: owner.projectId,
      payload: JSON.stringify(payload),
      attempts: 0,
      max_attempts: 3,
      lease_owner: null,
      lease_expires_at: null,
      cancel_requested: 0,
      created_at: now,
      started_at: null,
      finished_at: null,
      updated_at: now,
    };
    await db.insertInto('jobs').values(row).execute();
    if (this.database.dialect === 'postgres') await sql`select pg_notify(${JOBS_CHANNEL}, ${kind})`.execute(db);
    // Inside a caller's transaction the job is not there yet for others: they hear of it when it starts.
    if (db === this.database.db) this.changed([row.job_id]);
    return row;
  }

  async get(jobId: string): Promise<JobsTable | undefined> {
    return this.database.db.selectFrom('jobs').selectAll().where('job_id', '=', jobId).executeTakeFirst();
  }

  /** The claim statement: takes the oldest pending job for `worker`; two workers never share a job. */
  private claimStatement(worker: string, now: string) {
    const lock = this.database.dialect === 'postgres' ? sql`for update skip locked` : sql``;
    return sql`
      update jobs set status = 'running', lease_owner = ${worker}, lease_expires_at = ${isoAfterSeconds(this.leaseSeconds)},
        attempts = attempts + 1, started_at = coalesce(started_at, ${now}), step = 'started', updated_at = ${now}
      where job_id = (select job_id from jobs where status = 'pending' order by created_at, job_id limit 1 ${lock})
        and status = 'pending'
      returning *`;
  }

  /** Takes the oldest pending job for `worker`, or nothing. One statement: two workers never share a job. */
  async claim(worker: string): Promise<JobsTable | undefined> {
    const result = await sql<JobsTable>`${this.claimStatement(worker, isoNow())}`.execute(this.database.db);
    this.changed([result.rows[0]?.job_id]);
    return result.rows[0];
  }

  /**
   * Ends `jobId` with success and claims the next pending job for the same worker. On PostgreSQL
   * both are one statement (two conditional updates in one commit, so a busy worker pays one round
   * trip per job instead of two); each keeps its own condition, so neither can take or end a job
   * that is not this worker's. Answers whether the worker still held the ended job, and the next one.
   */
  async succeedAndClaim(
    jobId: string,
    worker: string,
    result: unknown,
  ): Promise<{ held: boolean; next: JobsTable | undefined }> {
    if (this.database.dialect !== 'postgres') {
      const held = await this.succeed(jobId, worker, result);
      return { held, next: await this.claim(worker) };
    }
    const now = isoNow();
    const rows = await sql<Partial<JobsTable> & { ended: number }>`
      with ended as (
        update jobs set status = 'success', result = ${JSON.stringify(result ?? null)}, progress = 1, step = 'done',
          finished_at = ${now}, updated_at = ${now}, lease_owner = null, lease_expires_at = null
        where job_id = ${jobId} and lease_owner = ${worker} and status = 'running'
        returning job_id
      ), claimed as (${this.claimStatement(worker, now)})
      select (select count(*) from ended)::int as ended, claimed.* from (select 1) as one left join claimed on true`.execute(
      this.database.db,
    );
    const row = rows.rows[0];
    if (!row) throw new Error('the finish-and-claim statement answered no row');
    const { ended, ...claimed } = row;
    this.changed([ended === 1 ? jobId : undefined, claimed.job_id ?? undefined]);
    return { held: ended === 1, next: claimed.job_id ? (claimed as JobsTable) : undefined };
  }

  /** Renews the lease; answers false when the job was cancelled or is no longer this worker's. */
  async heartbeat(jobId: string, worker: string): Promise<boolean> {
    const result = await this.updateHeld(jobId, worker)
      .set({ lease_expires_at: isoAfterSeconds(this.leaseSeconds) })
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** An update of `jobId` that applies only while `worker` holds it, running and not cancelled. */
  private updateHeld(jobId: string, worker: string) {
    return this.database.db
      .updateTable('jobs')
      .where('job_id', '=', jobId)
      .where('lease_owner', '=', worker)
      .where('status', '=', 'running')
      .where('cancel_requested', '=', 0);
  }

  async report(
    jobId: string,
    worker: string,
    update: { step?: string; detail?: string | null; progress?: number | null },
  ) {
    const result = await this.database.db
      .updateTable('jobs')
      .set({ ...update, updated_at: isoNow() })
      .where('job_id', '=', jobId)
      .where('lease_owner', '=', worker)
      .where('status', '=', 'running')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) this.changed([jobId]);
  }

  async succeed(jobId: string, worker: string, result: unknown): Promise<boolean> {
    const held = await this.end(jobId, worker, {
      status: 'success',
      result: JSON.stringify(result ?? null),
      progress: 1,
      step: 'done',
    });
    if (held) this.changed([jobId]);
    return held;
  }

  async fail(jobId: string, worker: string, error: { code: string; message: string }): Promise<boolean> {
    const failed = await this.database.db.transaction().execute(async (trx) => {
      const held = await this.end(
        jobId,
        worker,
        { status: 'failed', error: JSON.stringify(error), step: 'failed' },
        trx,
      );
      if (held) await this.ended(trx, { jobIds: [jobId], status: 'failed', error });
      return held;
    });
    if (failed) this.changed([jobId]);
    return failed;
  }

  private async end(
    jobId: string,
    worker: string,
    values: Partial<JobsTable>,
    db: Kysely<Tables> = this.database.db,
  ): Promise<boolean> {
    const now = isoNow();
    const result = await db
      .updateTable('jobs')
      .set({ ...values, finished_at: now, updated_at: now, lease_owner: null, lease_expires_at: null })
      .where('job_id', '=', jobId)
      .where('lease_owner', '=', worker)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Hands a running job back to the queue at once, for a worker that shuts down: another worker
   * need not wait for the lease to expire. The interrupted run does not count as an attempt (it
   * did not fail; its work committed nothing), so rolling restarts cannot use up a job's attempts.
   */
  async release(jobId: string, worker: string): Promise<boolean> {
    const result = await this.updateHeld(jobId, worker)
      .set((eb) => ({
        status: 'pending',
        attempts: eb('attempts', '-', 1),
        step: 'requeued',
        detail: 'its worker shut down',
        updated_at: isoNow(),
        lease_owner: null,
        lease_expires_at: null,
      }))
      .executeTakeFirst();
    const released = Number(result.numUpdatedRows) === 1;
    if (released) this.changed([jobId]);
    return released;
  }

  /** Pending → cancelled at once; running → cancelled, and the holder's heartbeat aborts the task. */
  async cancel(jobId: string): Promise<JobsTable> {
    const now = isoNow();
    const row = await this.database.db.transaction().execute(async (trx) => {
      const cancelled = await trx
        .updateTable('jobs')
        .set({ status: 'cancelled', cancel_requested: 1, step: 'cancelled', finished_at: now, updated_at: now })
        .where('job_id', '=', jobId)
        .where('status', 'in', ['pending', 'running'])
        .returningAll()
        .executeTakeFirst();
      if (!cancelled) throw new DomainError('job_ended', 'the job has already ended');
      await this.ended(trx, { jobIds: [jobId], status: 'cancelled', error: CANCELLED });
      return cancelled;
    });
    this.changed([jobId]);
    return row;
  }

  /**
   * Returns jobs whose worker died (lease expired) to the queue, or fails them once they used up
   * their attempts. Safe to run anywhere, any time.
   */
  async recoverExpired(): Promise<number> {
    const now = isoNow();
    const failed = await this.database.db.transaction().execute(async (trx) => {
      const rows = await trx
        .updateTable('jobs')
        .set({
          status: 'failed',
          error: JSON.stringify(WORKER_LOST),
          finished_at: now,
          updated_at: now,
          lease_owner: null,
          lease_expires_at: null,
        })
        .where('status', '=', 'running')
        .where('lease_expires_at', '<', now)
        .whereRef('attempts', '>=', 'max_attempts')
        .returning('job_id')
        .execute();
      const jobIds = rows.map((row) => row.job_id);
      await this.ended(trx, { jobIds, status: 'failed', error: WORKER_LOST });
      return jobIds;
    });
    const retried = await this.database.db
      .updateTable('jobs')
      .set({
        status: 'pending',
        step: 'requeued',
        detail: 'its worker stopped responding',
        updated_at: now,
        lease_owner: null,
        lease_expires_at: null,
      })
      .where('status', '=', 'running')
      .where('lease_expires_at', '<', now)
      .whereRef('attempts', '<', 'max_attempts')
      .returning('job_id')
      .execute();
    this.changed([...failed, ...retried.map((row) => row.job_id)]);
    return failed.length + retried.length;
  }

  async list(filter: {
    userId: string | null;
    kind?: string | undefined;
    status?: string | undefined;
    projectId?: string | undefined;
    /** Only jobs of these projects (a project-limited access token's); null: no such limit. */
    projectIds?: readonly string[] | null;
    limit: number;
    skip: number;
  }) {
    // Kinds outside the product (a benchmark's) are never listed.
    let query = this.database.db.selectFrom('jobs').where('kind', 'in', jobKindSchema.options);
    if (filter.userId !== null) query = query.where('user_id', '=', filter.userId);
    if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status as JobsTable['status']);
    if (filter.projectId !== undefined) query = query.where('project_id', '=', filter.projectId);
    if (filter.projectIds != null) query = query.where('project_id', 'in', [...filter.projectIds]);
    return paginate(
      query,
      (rows) => rows.selectAll().orderBy('created_at', 'desc').orderBy('job_id', 'desc'),
      filter,
      presentJob,
    );
  }
}

/** What the queue holds across every process: jobs waiting, jobs running, when the oldest waiting one came. */
export async function queueFigures(
  db: Kysely<Tables>,
): Promise<{ queued: number; running: number; oldestPendingAt: string | null }> {
  const byStatus = async (status: 'pending' | 'running') => {
    const row = await db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('status', '=', status)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  };
  const [queued, running, oldest] = await Promise.all([
    byStatus('pending'),
    byStatus('running'),
    db
      .selectFrom('jobs')
      .select((eb) => eb.fn.min('created_at').as('oldest'))
      .where('status', '=', 'pending')
      .executeTakeFirst(),
  ]);
  return { queued, running, oldestPendingAt: oldest?.oldest ?? null };
}
