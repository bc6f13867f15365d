import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import type { DatabaseConfig } from '../config/config.js';
import type { JobsTable } from '../db/tables.js';
import { DomainError } from '../errors.js';
import type { JobHandlers } from './handlers.js';
import { JOBS_CHANNEL, type JobQueue } from './queue.js';

const HEARTBEAT_MS = 500;
const RECOVERY_MS = 5_000;

class JobCancelled extends Error {
  constructor() {
    super('the job was cancelled');
    this.name = 'JobCancelled';
  }
}

/**
 * Workers that take jobs from the queue and run them. They wake on PostgreSQL NOTIFY (or poll,
 * on SQLite), renew their lease by heartbeat, and abort a task through its AbortSignal when the
 * heartbeat finds the job cancelled. Any number of pools, in any number of processes, may share
 * one queue.
 */
export class WorkerPool {
  private readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  private readonly running = new Map<string, AbortController>();
  private readonly sleepers = new Set<() => void>();
  private listener: pg.Client | null = null;
  private recovery: NodeJS.Timeout | null = null;

  constructor(
    private readonly queue: JobQueue,
    private readonly handlers: JobHandlers,
    private readonly database: DatabaseConfig,
    private readonly log: FastifyBaseLogger,
    private readonly concurrency: number,
  ) {
    handlers.assertComplete();
  }

  private get pollMs(): number {
    return this.database.kind === 'postgres' ? 2_000 : 250;
  }

  async start(): Promise<void> {
    if (this.concurrency === 0) return;
    if (this.database.kind === 'postgres') {
      const client = new pg.Client({ connectionString: this.database.url });
      client.on('error', (error) => this.log.warn({ err: error }, 'job notification connection lost; polling'));
      client.on('notification', () => this.wake());
      await client.connect();
      await client.query(`LISTEN ${JOBS_CHANNEL}`);
      this.listener = client;
    }
    this.recovery = setInterval(() => {
      this.queue.recoverExpired().then(
        (recovered) => {
          if (recovered > 0) {
            this.log.warn({ recovered }, 'recovered jobs of workers that stopped responding');
            this.wake();
          }
        },
        (error: unknown) => this.log.error({ err: error }, 'job recovery failed'),
      );
    }, RECOVERY_MS);
    this.recovery.unref();
    for (let slot = 0; slot < this.concurrency; slot++) this.loops.push(this.loop());
  }

  private wake(): void {
    for (const wakeOne of this.sleepers) wakeOne();
  }

  /** Waits for a notification or the poll interval, whichever comes first. */
  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, this.pollMs);
      this.sleepers.add(done);
    });
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let job: JobsTable | undefined;
      try {
        job = await this.queue.claim(this.id);
      } catch (error) {
        if (!this.stopped) this.log.error({ err: error }, 'claiming a job failed');
      }
      if (job) await this.run(job);
      else await this.idle();
    }
  }

  private async run(job: JobsTable): Promise<void> {
    const log = this.log.child({ jobId: job.job_id, kind: job.kind });
    const controller = new AbortController();
    this.running.set(job.job_id, controller);
    const heartbeat = setInterval(() => {
      this.queue.heartbeat(job.job_id, this.id).then(
        (held) => {
          if (!held) controller.abort(new JobCancelled());
        },
        (error: unknown) => log.warn({ err: error }, 'job heartbeat failed'),
      );
    }, HEARTBEAT_MS);
    try {
      const handler = this.handlers.get(job.kind);
      if (!handler) throw new DomainError('internal_error', `no handler for job kind ${job.kind}`);
      log.info('job started');
      const result = await handler(
        {
          jobId: job.job_id,
          payload: JSON.parse(job.payload) as unknown,
          userId: job.user_id,
          projectId: job.project_id,
        },
        {
          signal: controller.signal,
          report: (update) => this.queue.report(job.job_id, this.id, update),
          checkpoint: async () => {
            if (!(await this.queue.heartbeat(job.job_id, this.id))) controller.abort(new JobCancelled());
            controller.signal.throwIfAborted();
          },
        },
      );
      controller.signal.throwIfAborted();
      if (await this.queue.succeed(job.job_id, this.id, result)) log.info('job succeeded');
    } catch (error) {
      if (controller.signal.aborted) {
        log.info({ reason: String(controller.signal.reason) }, 'job stopped');
      } else {
        const failure =
          error instanceof DomainError
            ? { code: error.code, message: error.message }
            : { code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
        if (!(error instanceof DomainError)) log.error({ err: error }, 'job failed');
        await this.queue
          .fail(job.job_id, this.id, failure)
          .catch((failError: unknown) => log.error({ err: failError }, 'recording a job failure failed'));
      }
    } finally {
      clearInterval(heartbeat);
      this.running.delete(job.job_id);
    }
  }

  /** Stops taking jobs and aborts the running ones; their leases expire and another worker retries them. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    for (const controller of this.running.values()) controller.abort(new Error('worker shutting down'));
    if (this.recovery) clearInterval(this.recovery);
    await Promise.allSettled(this.loops);
    await this.listener?.end().catch(() => undefined);
  }
}
