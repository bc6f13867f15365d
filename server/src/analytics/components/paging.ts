import type { Filter, PreviewAnswer, SortKey } from '@service/common';
import { conditions as filterConditions } from '../filters/filters.js';
import { everyRow, type Narrowing } from '../filters/narrowing.js';
import { type Column, columnOf, count, describe, invalid, type TableSnapshot, tableRow } from '../sql/columns.js';
import {
  type NarrowedRows,
  NOT_SHARED,
  type SharedScalars,
  scalarRow,
  whereOf,
  withNarrowedRows,
} from '../sql/narrowed.js';
import type { TableReader } from '../sql/reader.js';
import { Statement } from '../sql/statement.js';

/** Which rows of a table a page shows. */
export interface PageQuery {
  limit: number;
  skip: number;
  sort?: SortKey[] | undefined;
  /**
   * Columns read with each row beyond the shown ones, not among the answer's `columns` (a
   * dashboard table's selection key when it does not show it): in the rows, never drawn.
   */
  carry?: readonly Column[] | undefined;
}

/** The source showing only `columns` (in that order); names the table no longer has are left out. */
export function onlyColumns(source: TableSnapshot, columns: readonly string[]): TableSnapshot {
  const shown = columns.flatMap((name) => source.byName.get(name) ?? []);
  return { ...source, columns: shown, byName: new Map(shown.map((column) => [column.name, column])) };
}

/**
 * The columns a reader shows of a table (docs/dashboards.md "Tables"): `names`, in their order, each
 * one of `shown`'s (else 400 at `path[i]`); all of `shown`'s when the reader chose none.
 */
export function readerColumns(shown: TableSnapshot, names: readonly string[] | undefined, path: string): Column[] {
  if (names === undefined) return shown.columns;
  return names.map((name, index) => {
    const column = shown.byName.get(name);
    if (column === undefined) throw invalid(`${path}[${index}]`, `the table shows no column ${JSON.stringify(name)}`);
    return column;
  });
}

/**
 * A page of rows (filtered, narrowed by a dashboard's filters, sorted with every other column as
 * tie-breaker) and the total count.
 */
export async function page(
  reader: TableReader,
  source: TableSnapshot,
  query: PageQuery & { filters?: readonly Filter[] },
  narrowing: Narrowing = everyRow,
  shared: SharedScalars = NOT_SHARED,
): Promise<PreviewAnswer> {
  const { limit, skip } = query;
  if (source.snapshot === null) return { version: null, columns: [], rows: [], total: 0, limit, skip };
  const statement = new Statement();
  const filtered = filterConditions(source, query.filters ?? [], statement, 'querystring.filters');
  const keys = (query.sort ?? []).map((key) => ({
    column: columnOf(source, key.column, 'querystring.sort'),
    direction: key.direction,
  }));
  let order = '';
  if (keys.length > 0) {
    // The other columns break ties, so pages don't overlap or skip rows.
    const sorted = new Set(keys.map((key) => key.column.name));
    const tieBreakers = source.columns.filter((column) => !sorted.has(column.name) && column.kind !== 'nested');
    order = ` ORDER BY ${[
      ...keys.map((key) => `${key.column.sql} ${key.direction.toUpperCase()} NULLS LAST`),
      ...tieBreakers.map((column) => `${column.sql} ASC NULLS LAST`),
    ].join(', ')}`;
  }
  const shownNames = new Set(source.columns.map((column) => column.name));
  const read = {
    ...source,
    columns: [...source.columns, ...(query.carry ?? []).filter((c) => !shownNames.has(c.name))],
  };
  const selected = source.columns.length === 0 ? null : read.columns.map((column) => column.sql).join(', ');
  const answer = async (narrowed: NarrowedRows): Promise<PreviewAnswer> => {
    const { connection, from, conditions, fileOrder } = narrowed;
    const where = whereOf(filtered, conditions);
    // Unsorted, a page shows the rows in the order of the table's files.
    const orderBy = order === '' && fileOrder !== '' ? ` ORDER BY ${fileOrder}` : order;
    const rows =
      selected === null
        ? []
        : await connection.query(
            `SELECT ${selected} FROM ${from}${where}${orderBy} LIMIT ${limit} OFFSET ${skip}`,
            statement.params,
          );
    // Unfiltered, the files' statistics already say how many rows there are.
    const known = where === '' ? (source.version?.rows ?? null) : null;
    // The request's shared pass counted the dashboard's filtered rows (a preview's own filters are not in it).
    const counted = filtered.length === 0 ? narrowed : { ...narrowed, conditions: [...filtered, ...conditions] };
    const total =
      known ??
      count(
        (
          await scalarRow(filtered.length === 0 ? counted : { ...counted, shared: NOT_SHARED }, statement.params, {
            n: 'count(*)',
          })
        ).n,
      );
    return {
      version: source.snapshot?.version ?? null,
      columns: describe(source),
      rows: rows.map((row) => tableRow(read, row)),
      total,
      limit,
      skip,
    };
  };
  return withNarrowedRows(reader, source, narrowing, statement, answer, shared);
}
