import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseConfig } from '../config/config.js';
import { PostgresListener } from '../db/listener.js';
import type { JobsTable } from '../db/tables.js';
import { DomainError } from '../errors.js';
import type { JobHandlers } from './handlers.js';
import { JOBS_CHANNEL, type JobQueue } from './queue.js';
import { WORKER_BEAT_MS, type WorkerRegistry } from './worker-registry.js';

const HEARTBEAT_MS = 500;
/** How often expired leases are looked for: a third of the lease, at most every 5 s. */
const RECOVERY_MAX_MS = 5_000;
/** Waits between attempts to write the end of a job while the database is away: 0.5 s, doubling up to 5 s. */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 5_000;
/** While the database stays unreachable, one reminder line this often (not one per attempt). */
const OUTAGE_REMINDER_MS = 30_000;

/**
 * Tells the operator once that the database cannot be reached, once more every 30 s while that
 * lasts, and once that it is back, instead of one line per failed heartbeat, claim or retry.
 */
class DatabaseHealth {
  private downSince: number | null = null;
  private remindedAt = 0;

  constructor(private readonly log: FastifyBaseLogger) {}

  failed(what: string, error: unknown): void {
    const now = Date.now();
    if (this.downSince === null) {
      this.downSince = now;
      this.remindedAt = now;
      this.log.error({ err: error }, `${what} failed; workers keep retrying until the database answers`);
    } else if (now - this.remindedAt >= OUTAGE_REMINDER_MS) {
      this.remindedAt = now;
      this.log.error(
        { err: error, downSeconds: Math.round((now - this.downSince) / 1000) },
        `${what} still failing; workers keep retrying`,
      );
    }
  }

  ok(): void {
    if (this.downSince === null) return;
    this.log.warn({ downSeconds: Math.round((Date.now() - this.downSince) / 1000) }, 'database reachable again');
    this.downSince = null;
  }
}

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
 * one queue. When the database goes away (restart, failover) they keep running: claims and
 * heartbeats fail until it is back, the notification connection is opened again, and the end of
 * a job that finished meanwhile is written once the database answers.
 */
export class WorkerPool {
  private readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private stopped = false;
  private readonly loops: Promise<void>[] = [];
  private readonly running = new Map<string, AbortController>();
  private readonly sleepers = new Set<() => void>();
  /** Counts wake-ups, so a loop whose claim found nothing knows whether a job arrived meanwhile. */
  private wakeups = 0;
  private listener: PostgresListener | null = null;
  private recovery: NodeJS.Timeout | null = null;
  private beats: NodeJS.Timeout | null = null;
  private readonly startedAt = new Date().toISOString();
  private readonly health: DatabaseHealth;

  constructor(
    private readonly queue: JobQueue,
    private readonly handlers: JobHandlers,
    private readonly database: DatabaseConfig,
    private readonly log: FastifyBaseLogger,
    private readonly concurrency: number,
    private readonly registry?: WorkerRegistry,
  ) {
    handlers.assertComplete();
    this.health = new DatabaseHealth(log);
  }

  private get pollMs(): number {
    return this.database.kind === 'postgres' ? 2_000 : 250;
  }

  async start(): Promise<void> {
    if (this.concurrency === 0) return;
    if (this.database.kind === 'postgres') await this.listen(this.database.url);
    if (this.registry) {
      await this.beat();
      this.beats = setInterval(() => void this.beat(), WORKER_BEAT_MS);
      this.beats.unref();
    }
    this.recovery = setInterval(
      () => {
        this.queue.recoverExpired().then(
          (recovered) => {
            this.health.ok();
            if (recovered > 0) {
              this.log.warn({ recovered }, 'recovered jobs of workers that stopped responding');
              this.wake();
            }
          },
          (error: unknown) => this.health.failed('job recovery', error),
        );
      },
      Math.min(RECOVERY_MAX_MS, (this.queue.leaseSeconds * 1000) / 3),
    );
    this.recovery.unref();
    for (let slot = 0; slot < this.concurrency; slot++) this.loops.push(this.loop());
  }

  /**
   * Opens the connection that LISTENs for new jobs. While it is lost (database restart) the
   * workers poll, and it is opened again as soon as the database answers.
   */
  private async listen(url: string): Promise<void> {
    this.listener = await PostgresListener.open(url, JOBS_CHANNEL, {
      notification: () => this.wake(),
      lost: (reason) =>
        this.log.warn(
          { reason },
          `job notification connection lost; polling every ${this.pollMs / 1000} s while it reconnects`,
        ),
      restored: () => {
        this.log.warn('job notification connection restored');
        // Jobs queued while it was down sent notifications nobody heard.
        this.wake();
      },
      reconnectFailed: (error) => this.log.debug({ err: error }, 'job notification connection: reconnect failed'),
    });
  }

  /** Tells other processes (their `/health`) that this pool is alive. */
  private async beat(): Promise<void> {
    try {
      await this.registry?.beat(this.id, this.startedAt, this.concurrency, this.running.size);
    } catch (error) {
      this.health.failed('worker heartbeat', error);
    }
  }

  private wake(): void {
    this.wakeups += 1;
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
    // The job claimed together with the end of the previous one, if any.
    let next: JobsTable | undefined;
    while (!this.stopped) {
      const wakeups = this.wakeups;
      let job = next;
      next = undefined;
      if (!job) {
        try {
          job = await this.queue.claim(this.id);
          this.health.ok();
        } catch (error) {
          if (!this.stopped) this.health.failed('claiming a job', error);
        }
      }
      if (job) next = await this.run(job);
      // A job queued while the claim ran has already sent its notification: claim again at once.
      else if (this.wakeups === wakeups) await this.idle();
    }
    // Claimed with the end of the last job just as the pool stopped: not started, so handed back.
    if (next) await this.handBack(next.job_id);
  }

  /** Returns a job this worker will not finish to the queue (see `JobQueue.release`). */
  private async handBack(jobId: string): Promise<void> {
    try {
      if (await this.queue.release(jobId, this.id)) this.log.info({ jobId }, 'job handed back to the queue');
    } catch (error) {
      this.log.warn(
        { err: error, jobId },
        'handing a job back failed; its lease expires and another worker retries it',
      );
    }
  }

  /**
   * Writes the end of a job, retrying while the database is unreachable, for as long as the lease
   * would last.
   */
  private async persist<T>(write: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.queue.leaseSeconds * 1000;
    for (let delay = RETRY_FIRST_MS; ; delay = Math.min(delay * 2, RETRY_MAX_MS)) {
      try {
        const answer = await write();
        this.health.ok();
        return answer;
      } catch (error) {
        if (this.stopped || Date.now() + delay > deadline) throw error;
        this.health.failed('recording the end of a job', error);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** Runs one job to its end; answers the next job when it was claimed with the end of this one. */
  private async run(job: JobsTable): Promise<JobsTable | undefined> {
    const log = this.log.child({ jobId: job.job_id, kind: job.kind });
    const controller = new AbortController();
    this.running.set(job.job_id, controller);
    const heartbeat = setInterval(() => {
      this.queue.heartbeat(job.job_id, this.id).then(
        (held) => {
          this.health.ok();
          if (!held) controller.abort(new JobCancelled());
        },
        (error: unknown) => this.health.failed('job heartbeat', error),
      );
    }, HEARTBEAT_MS);
    try {
      let outcome: { result: unknown } | { error: unknown };
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
            worker: this.id,
            attempt: job.attempts,
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
        outcome = { result };
      } catch (error) {
        outcome = { error };
      }
      if ('error' in outcome && controller.signal.aborted) {
        log.info({ reason: String(controller.signal.reason) }, 'job stopped');
        // Stopped by the shutdown rather than cancelled: another worker takes it over at once.
        if (this.stopped) await this.handBack(job.job_id);
        return;
      }
      try {
        if ('result' in outcome) {
          // A worker that goes on takes its next job in the same statement (one round trip).
          const { result } = outcome;
          const { held, next } = this.stopped
            ? { held: await this.persist(() => this.queue.succeed(job.job_id, this.id, result)), next: undefined }
            : await this.persist(() => this.queue.succeedAndClaim(job.job_id, this.id, result));
          if (held) log.info('job succeeded');
          else log.warn('job finished after it was cancelled or handed to another worker; its result is dropped');
          return next;
        } else {
          const { error } = outcome;
          const failure =
            error instanceof DomainError
              ? { code: error.code, message: error.message }
              : { code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
          if (!(error instanceof DomainError)) log.error({ err: error }, 'job failed');
          await this.persist(() => this.queue.fail(job.job_id, this.id, failure));
        }
      } catch (error) {
        log.error({ err: error }, 'recording the end of a job failed; its lease expires and another worker retries it');
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
    if (this.beats) clearInterval(this.beats);
    await Promise.allSettled(this.loops);
    await this.listener?.close();
    if (this.registry && this.concurrency > 0) await this.registry.leave(this.id).catch(() => undefined);
  }
}
