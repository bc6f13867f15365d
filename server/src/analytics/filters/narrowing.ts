import type { SqlConnection } from '../../engine/duckdb.js';
import type { Statement } from '../sql/statement.js';

/**
 * The dashboard filters that narrow one component's rows, as SQL conditions on its table. Built
 * by the dashboard data service (its own filter left out, joined collections as semi-joins) and
 * applied by the component queries inside their DuckDB connection, since a semi-join scans the
 * joined table there too. Values are bound as parameters of the statement.
 */
export type Narrowing = (connection: SqlConnection, statement: Statement) => Promise<Narrowed>;

export interface Narrowed {
  /** Conditions that must all hold, each parenthesized. */
  conditions: string[];
  /** Releases what the conditions scan (joined tables); call when the statement is done. */
  release(): void;
}

/** No filters. */
export const everyRow: Narrowing = async () => ({ conditions: [], release: () => {} });
