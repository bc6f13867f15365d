import type { SqlConnection } from '../../engine/duckdb.js';
import type { Source } from './columns.js';
import type { Narrowing } from './narrowing.js';
import type { TableReader } from './reader.js';
import type { Statement } from './statement.js';

/** What a component query sees of its rows once the dashboard's filters are applied. */
export interface NarrowedRows {
  connection: SqlConnection;
  /** The scan of the snapshot's rows, as a subquery. */
  from: string;
  /** The filters' conditions (all must hold), each parenthesized. */
  conditions: readonly string[];
}

/**
 * Runs `work` over the snapshot's rows narrowed by the dashboard's filters: the narrowing's
 * conditions are built inside the connection (a semi-join scans its joined table there), filter
 * values are checked before any data is read, and what the conditions hold is released after.
 */
export function withNarrowedRows<T>(
  reader: TableReader,
  source: Source,
  narrowing: Narrowing,
  statement: Statement,
  work: (rows: NarrowedRows) => Promise<T>,
): Promise<T> {
  return reader.withRows(source, async (connection, from) => {
    const narrowed = await narrowing(connection, statement);
    try {
      await statement.validate(connection);
      return await work({ connection, from, conditions: narrowed.conditions });
    } finally {
      narrowed.release();
    }
  });
}

/** ` WHERE …` of all the conditions, or '' without any. */
export function whereOf(...conditions: readonly (string | readonly string[])[]): string {
  const all = conditions.flat();
  return all.length === 0 ? '' : ` WHERE ${all.join(' AND ')}`;
}
