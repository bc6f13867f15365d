import { AsyncLocalStorage } from 'node:async_hooks';
import { DomainError } from '../errors.js';

/**
 * The bounds of one piece of request work (a dashboard's data, an export): an abort signal that
 * fires when the client goes away, the request outlives its time limit or the server shuts down,
 * and the longest any one DuckDB statement may run. Carried implicitly (AsyncLocalStorage) so that
 * every statement the work runs, however deep, is interrupted without threading a signal through
 * each query builder.
 */
export interface WorkBounds {
  signal: AbortSignal;
  /** Longest a single statement may run before it is interrupted; 0: no statement limit. */
  statementTimeoutMs: number;
  /** Values (rows × columns) the work may read out of DuckDB, all its statements together; 0: no limit. */
  maxCells: number;
  /** Values read so far (`readCells` counts them). */
  cellsRead: number;
  /** Stops the whole work with `error` (an answer grown too large needs nothing more computed). */
  stop(error: DomainError): void;
}

const current = new AsyncLocalStorage<WorkBounds>();

/** How often an interrupt is repeated until the statement it is for has stopped. */
const INTERRUPT_REPEAT_MS = 20;

/** Runs `work` (and everything it starts) under `bounds`. */
export function withinBounds<T>(bounds: WorkBounds, work: () => T): T {
  return current.run(bounds, work);
}

/**
 * Runs `work` (and everything it starts) outside any work's bounds: work a request only set off,
 * which must outlive it (a native copy's build), neither stopped with the request nor held to
 * its statement time limit.
 */
export function outsideBounds<T>(work: () => T): T {
  return current.exit(work);
}

/** The bounds of the work running now, if any. */
export function currentBounds(): WorkBounds | undefined {
  return current.getStore();
}

/** The reason the current work was stopped, as the domain error to answer with; undefined while it runs. */
export function stoppedReason(): DomainError | undefined {
  const signal = current.getStore()?.signal;
  if (!signal?.aborted) return undefined;
  return signal.reason instanceof DomainError
    ? signal.reason
    : new DomainError('service_unavailable', 'the work was stopped; try again');
}

/** Something that can stop a running statement (a DuckDB connection's `interrupt`). */
export interface Interruptible {
  interrupt(): void;
}

/**
 * Runs one statement under the current bounds: refused at once when the work was already stopped,
 * interrupted when it stops meanwhile or when the statement outlives its limit. An interrupted
 * statement rejects with the domain error that says why.
 */
export async function boundedStatement<T>(connection: Interruptible, statement: () => Promise<T>): Promise<T> {
  const bounds = current.getStore();
  if (bounds === undefined) return statement();
  const stopped = stoppedReason();
  if (stopped) throw stopped;
  let timedOut = false;
  let repeat: NodeJS.Timeout | undefined;
  // An interrupt that arrives before DuckDB has begun the statement is lost (each statement
  // starts uninterrupted), so it is repeated until the statement settles.
  const interrupt = () => {
    connection.interrupt();
    repeat ??= setInterval(() => connection.interrupt(), INTERRUPT_REPEAT_MS);
  };
  bounds.signal.addEventListener('abort', interrupt, { once: true });
  const timer =
    bounds.statementTimeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          interrupt();
        }, bounds.statementTimeoutMs)
      : undefined;
  try {
    return await statement();
  } catch (error) {
    throw stoppedReason() ?? (timedOut ? statementTooLong(bounds.statementTimeoutMs) : error);
  } finally {
    clearTimeout(timer);
    clearInterval(repeat);
    bounds.signal.removeEventListener('abort', interrupt);
  }
}

/**
 * Counts `cells` values about to be read out of DuckDB into JavaScript by the current work, and
 * stops the work (413 `request_too_large`) when they go beyond its limit: the conversion, not
 * DuckDB, is what costs the process its time and memory, so it is refused before it happens.
 * Work stopped meanwhile (its client gone, its time up) reads nothing more either.
 */
export function readCells(cells: number): void {
  const bounds = current.getStore();
  if (bounds === undefined) return;
  const stopped = stoppedReason();
  if (stopped) throw stopped;
  if (bounds.maxCells <= 0) return;
  bounds.cellsRead += cells;
  if (bounds.cellsRead <= bounds.maxCells) return;
  const error = tooManyCells(bounds.maxCells);
  bounds.stop(error);
  throw stoppedReason() ?? error;
}

function tooManyCells(limit: number): DomainError {
  return new DomainError(
    'request_too_large',
    `the request read more than ${limit.toLocaleString('en')} values (SERVICE_DATA_MAX_ANSWER_CELLS); ask for fewer components, bins, points or rows at a time`,
  );
}

function statementTooLong(limitMs: number): DomainError {
  return new DomainError(
    'time_limit_exceeded',
    `a query ran longer than its limit of ${limitMs / 1000} s (SERVICE_DATA_STATEMENT_TIMEOUT_SECONDS) and was stopped; narrow the filters or ask for fewer rows`,
  );
}
