import type { WorkBounds } from '../../src/engine/bounded-work.js';
import type { JsonValue, SqlConnection } from '../../src/engine/duckdb.js';
import { quoteString } from '../../src/engine/sql.js';

/** Rows of a query as parsed JSON objects, sorted by their JSON text: compare them as a multiset. */
export async function rowsOf(connection: SqlConnection, sql: string): Promise<Record<string, JsonValue>[]> {
  const rows = await connection.query(`SELECT to_json(t)::VARCHAR AS row FROM (${sql}) AS t`);
  return rows
    .map((row) => String(row.row))
    .sort()
    .map((text) => JSON.parse(text) as Record<string, JsonValue>);
}

/** The same rows in canonical order, for comparing with hand-written expectations. */
export function sortedRows(rows: Record<string, JsonValue>[]): Record<string, JsonValue>[] {
  return rows
    .map((row) => JSON.stringify(row))
    .sort()
    .map((text) => JSON.parse(text) as Record<string, JsonValue>);
}

export function parquetGlob(path: string): string {
  return `SELECT * FROM read_parquet(${quoteString(path)}, hive_partitioning = false)`;
}

/** Bounds of a piece of request work for a test (no limits unless given), and the controller that stops it. */
export function workBounds(limits: { statementTimeoutMs?: number; maxCells?: number } = {}) {
  const controller = new AbortController();
  const bounds: WorkBounds = {
    signal: controller.signal,
    statementTimeoutMs: limits.statementTimeoutMs ?? 0,
    maxCells: limits.maxCells ?? 0,
    cellsRead: 0,
    stop: (error) => controller.abort(error),
  };
  return { bounds, controller };
}
