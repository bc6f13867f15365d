import type { JsonValue, SqlConnection, SqlValue } from '../../engine/duckdb.js';
import type { Narrowing } from '../filters/narrowing.js';
import type { TableSnapshot } from './columns.js';
import type { DerivedCopy, TableReader } from './reader.js';
import type { Statement } from './statement.js';

/** What a component query sees of its rows once the dashboard's filters are applied. */
export interface NarrowedRows {
  connection: SqlConnection;
  /** The scan of the snapshot's rows, as a subquery. */
  from: string;
  /** The filters' conditions (all must hold), each parenthesized. */
  conditions: readonly string[];
  /** What to ORDER BY for the rows in their files' order ('' when `from` reads them so; see TableReader.withRows). */
  fileOrder: string;
  /** Aggregates over these rows the request computed for several components at once. */
  shared: SharedScalars;
  /** The snapshot's copy that `derivation` makes (TableReader.derivedCopy), read in place of `from` once built. */
  derivedCopy(derivation: string): DerivedCopy | null;
}

/**
 * Runs `work` over the snapshot's rows narrowed by the dashboard's filters: the narrowing's
 * conditions are built inside the connection (a semi-join scans its joined table there), filter
 * values are checked before any data is read, and what the conditions hold is released after.
 */
export function withNarrowedRows<T>(
  reader: TableReader,
  source: TableSnapshot,
  narrowing: Narrowing,
  statement: Statement,
  work: (rows: NarrowedRows) => Promise<T>,
  shared: SharedScalars = NOT_SHARED,
): Promise<T> {
  return reader.withRows(source, async (connection, from, fileOrder) => {
    const narrowed = await narrowing(connection, statement);
    try {
      await statement.validate(connection);
      const derivedCopy = (derivation: string) => reader.derivedCopy(source, derivation);
      return await work({ connection, from, conditions: narrowed.conditions, fileOrder, shared, derivedCopy });
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

/**
 * Scalar aggregates over one collection's rows under one set of filters, computed once for every
 * component of a request that needs one (cards' numbers, a scatter's counts, a histogram's range,
 * a table's row count): each of them would otherwise scan the rows again for one number.
 */
export interface SharedScalars {
  /** The value of `expression` over the narrowed rows, or undefined when the shared pass has none. */
  get(expression: string): Promise<JsonValue | undefined>;
}

export const NOT_SHARED: SharedScalars = { get: async () => undefined };

/** `alias → SQL expression` of the aggregates one statement asks for. */
export type Selects = Readonly<Record<string, string>>;

/**
 * One row of aggregates over the narrowed rows: from the request's shared pass when it computed
 * every one of them, otherwise by a statement of its own.
 */
export async function scalarRow(
  rows: NarrowedRows,
  params: SqlValue[],
  selects: Selects,
): Promise<Record<string, JsonValue | undefined>> {
  const entries = Object.entries(selects);
  const shared = await Promise.all(entries.map(([, expression]) => rows.shared.get(expression)));
  if (shared.every((value) => value !== undefined)) {
    return Object.fromEntries(entries.map(([alias], index) => [alias, shared[index]]));
  }
  const list = entries.map(([alias, expression]) => `${expression} AS "${alias}"`).join(', ');
  const [row = {}] = await rows.connection.query(`SELECT ${list} FROM ${rows.from}${whereOf(rows.conditions)}`, params);
  return row;
}
