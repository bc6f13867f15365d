import type { DataLimits } from '../config/data-limits.js';
import type { Database } from '../db/database.js';
import { type WorkBounds, withinBounds } from '../engine/bounded-work.js';
import { DomainError, RetryLaterError } from '../errors.js';
import { countHit } from './database-store.js';

/** Why admitted work was stopped before it finished. */
export type StopReason = 'client_gone' | 'time_limit' | 'shutdown' | 'answer_too_large';

/** One admitted request's work: run its steps within its bounds, and say when it ends. */
export interface AdmittedWork {
  readonly bounds: WorkBounds;
  /** Runs `step` (and all it starts) within this work's bounds. */
  run<T>(step: () => T): T;
  /** The client went away before the answer was sent: stop everything still running. */
  clientGone(): void;
  /** The answer was sent or abandoned: the caller's slot is free again. */
  finish(): void;
}

/**
 * Admits data and export work (dashboard data, table rows and downloads, exports) and bounds it:
 * a rate per caller counted in the database (so it holds across replicas), a number of requests
 * per caller running at once on this replica (what protects its CPUs; a slot dies with its
 * process, so it is not shared), a time limit per request and per statement, and a stop of
 * everything still running when the server shuts down.
 */
export class RequestWork {
  private readonly runningByCaller = new Map<string, number>();
  private readonly shutdown = new AbortController();
  /** Background work waiting for no admitted request to run (`idle`). */
  private idleWaiters: (() => void)[] = [];
  /** Work admitted and not yet finished, and how earlier work ended (tests and metrics read these). */
  readonly stats = {
    running: 0,
    stopped: { client_gone: 0, time_limit: 0, shutdown: 0, answer_too_large: 0 } satisfies Record<StopReason, number>,
    refused: { rate: 0, concurrency: 0 },
  };

  constructor(
    private readonly database: Pick<Database, 'db'>,
    readonly limits: DataLimits,
  ) {}

  /** Stops all running work and refuses new work (the shutdown deadline passed). */
  stopAll(): void {
    this.shutdown.abort(new DomainError('service_unavailable', 'the server is shutting down; try again'));
  }

  /** Resolves once no admitted request runs on this replica (at once when none does). */
  idle(): Promise<void> {
    if (this.stats.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Bounds for work no request waits for (answers computed ahead, `TabWarmer`): its statements
   * limited as a request's, stopped by `signal` or at shutdown, reading no more than a request may.
   * `release` once the work has ended.
   */
  background(signal: AbortSignal): { bounds: WorkBounds; release(): void } {
    const controller = new AbortController();
    const stop = (reason: unknown) => {
      if (!controller.signal.aborted) controller.abort(reason);
    };
    const watched = [signal, this.shutdown.signal].map((source) => ({ source, listener: () => stop(source.reason) }));
    for (const { source, listener } of watched) {
      if (source.aborted) listener();
      else source.addEventListener('abort', listener, { once: true });
    }
    const bounds: WorkBounds = {
      signal: controller.signal,
      statementTimeoutMs: this.limits.statementTimeoutMs,
      maxCells: this.limits.maxAnswerCells,
      cellsRead: 0,
      stop,
    };
    const release = () => {
      for (const { source, listener } of watched) source.removeEventListener('abort', listener);
    };
    return { bounds, release };
  }

  /** Admits one request of `caller` (`user:<id>`, `address:<ip>`) or refuses it with a 429. */
  async admit(caller: string): Promise<AdmittedWork> {
    const { current, ttl } = await countHit(this.database, `data:${caller}`, this.limits.rate.windowMs);
    if (current > this.limits.rate.max) {
      this.stats.refused.rate++;
      throw new RetryLaterError(
        `more than ${this.limits.rate.max} data requests in ${this.limits.rate.windowMs / 1000} s (SERVICE_DATA_RATE_LIMIT); retry after the delay given`,
        Math.ceil(ttl / 1000),
      );
    }
    const running = this.runningByCaller.get(caller) ?? 0;
    if (running >= this.limits.concurrencyPerCaller) {
      this.stats.refused.concurrency++;
      throw new RetryLaterError(
        `${running} data requests of yours are still running (SERVICE_DATA_CONCURRENCY_PER_CALLER); retry when one has finished`,
        1,
      );
    }
    this.runningByCaller.set(caller, running + 1);
    this.stats.running++;
    return this.bounded(caller);
  }

  private wakeIdleWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  private bounded(caller: string): AdmittedWork {
    const controller = new AbortController();
    const stop = (reason: StopReason, error: DomainError) => {
      if (controller.signal.aborted) return;
      this.stats.stopped[reason]++;
      controller.abort(error);
    };
    const timer = setTimeout(
      () => stop('time_limit', requestTooLong(this.limits.requestTimeoutMs)),
      this.limits.requestTimeoutMs,
    );
    const onShutdown = () => stop('shutdown', this.shutdown.signal.reason as DomainError);
    this.shutdown.signal.addEventListener('abort', onShutdown, { once: true });
    if (this.shutdown.signal.aborted) onShutdown();
    const bounds: WorkBounds = {
      signal: controller.signal,
      statementTimeoutMs: this.limits.statementTimeoutMs,
      maxCells: this.limits.maxAnswerCells,
      cellsRead: 0,
      stop: (error) => stop('answer_too_large', error),
    };
    let finished = false;
    return {
      bounds,
      run: (step) => withinBounds(bounds, step),
      clientGone: () => stop('client_gone', new DomainError('request_timeout', 'the client went away')),
      finish: () => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        this.shutdown.signal.removeEventListener('abort', onShutdown);
        this.stats.running--;
        if (this.stats.running === 0) this.wakeIdleWaiters();
        const left = (this.runningByCaller.get(caller) ?? 1) - 1;
        if (left > 0) this.runningByCaller.set(caller, left);
        else this.runningByCaller.delete(caller);
      },
    };
  }
}

function requestTooLong(limitMs: number): DomainError {
  return new DomainError(
    'time_limit_exceeded',
    `the request ran longer than its limit of ${limitMs / 1000} s (SERVICE_DATA_REQUEST_TIMEOUT_SECONDS) and was stopped; ask for fewer components or narrow the filters`,
  );
}
