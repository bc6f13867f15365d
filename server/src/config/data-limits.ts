import type { Env } from './settings.js';

/**
 * Bounds on one data request (`POST /dashboards/{id}/data`, the rows and download routes, exports)
 * so that no single caller can exhaust a replica (docs/configuration.md, "Request limits").
 */
export interface DataLimits {
  /** Longest one DuckDB statement may run. */
  statementTimeoutMs: number;
  /** Longest one request's work may run, all its statements together. */
  requestTimeoutMs: number;
  /** Filter values (list entries, range bounds, …) one request may carry, all filters together. */
  maxFilterValues: number;
  /** Components one request may preview. */
  maxPreviewComponents: number;
  /** Bytes of one JSON answer (or one streamed answer, all lines together). */
  maxAnswerBytes: number;
  /** Values (rows × columns) one request may read out of DuckDB, all its statements together. */
  maxAnswerCells: number;
  /** Data requests one caller may have running at once on a replica. */
  concurrencyPerCaller: number;
  /** Data requests one caller may start per window, counted across replicas in the database. */
  rate: { max: number; windowMs: number };
  /** After SIGTERM (and the shutdown delay): how long running work may finish before it is interrupted. */
  shutdownTimeoutMs: number;
}

export function dataLimitsOf(env: Env): DataLimits {
  return {
    statementTimeoutMs: (env.SERVICE_DATA_STATEMENT_TIMEOUT_SECONDS ?? 30) * 1000,
    requestTimeoutMs: (env.SERVICE_DATA_REQUEST_TIMEOUT_SECONDS ?? 60) * 1000,
    maxFilterValues: env.SERVICE_DATA_MAX_FILTER_VALUES ?? 2000,
    maxPreviewComponents: env.SERVICE_DATA_MAX_PREVIEW_COMPONENTS ?? 50,
    maxAnswerBytes: env.SERVICE_DATA_MAX_ANSWER_BYTES ?? 16 * 1024 ** 2,
    maxAnswerCells: env.SERVICE_DATA_MAX_ANSWER_CELLS ?? 4_000_000,
    concurrencyPerCaller: env.SERVICE_DATA_CONCURRENCY_PER_CALLER ?? 2,
    rate: env.SERVICE_DATA_RATE_LIMIT ?? { max: 120, windowMs: 60_000 },
    shutdownTimeoutMs: (env.SERVICE_SHUTDOWN_TIMEOUT_SECONDS ?? 10) * 1000,
  };
}
