import {
  COLUMN_FILTER_OPS,
  COLUMN_VALUES_LIMIT,
  type ColumnFilterKind,
  type DashboardFilter,
  type DashboardFilterScalar,
  type PreviewAnswer,
  type TableColumnFilter,
  type TableComponent,
} from '@service/common';
import type { JsonValue } from '../../engine/duckdb.js';
import { type Match, matchSql } from '../filters/filter-sql.js';
import type { Narrowing } from '../filters/narrowing.js';
import { type Column, invalid, isNumeric, type TableSnapshot } from '../sql/columns.js';
import type { TableReader } from '../sql/reader.js';
import type { WholeTableMemo } from '../sql/whole-table.js';
import { colorRanges } from './color-ranges.js';
import type { FitProblem } from './fit.js';

/**
 * What a dashboard table's answer carries besides its page (docs/dashboards.md "Tables"): its
 * colour scales' ranges, the values of its few-valued columns (the header's value lists), and
 * the column that names a row for selection.
 */
export async function tableExtras(
  reader: TableReader,
  source: TableSnapshot,
  shown: TableSnapshot,
  component: Pick<TableComponent, 'color_scales' | 'select_by'>,
  memo: WholeTableMemo,
): Promise<Pick<PreviewAnswer, 'color_ranges' | 'column_values' | 'select_by'>> {
  const [ranges, values] = await Promise.all([
    colorRanges(reader, source, component.color_scales, memo),
    columnValues(reader, source, shown.columns, memo),
  ]);
  const selectBy = selectionColumn(source, component);
  return {
    ...(ranges === undefined ? {} : { color_ranges: ranges }),
    ...(values === undefined ? {} : { column_values: values }),
    ...(selectBy === null ? {} : { select_by: selectBy }),
  };
}

/** The column a table's selected rows filter by: its `select_by`, else its collection's key of one column. */
export function selectionColumn(source: TableSnapshot, component: Pick<TableComponent, 'select_by'>): string | null {
  if (component.select_by !== undefined) return component.select_by;
  const keys: unknown = source.row.keys === null ? null : JSON.parse(source.row.keys);
  return Array.isArray(keys) && keys.length === 1 && typeof keys[0] === 'string' ? keys[0] : null;
}

/**
 * The selection column when the table does not show it (its `columns` leave it out): read with
 * each row all the same, so a row's checkbox knows its key (PageQuery's `carry`).
 */
export function selectionCarry(
  source: TableSnapshot,
  shown: TableSnapshot,
  component: Pick<TableComponent, 'select_by'>,
): Column[] {
  const name = selectionColumn(source, component);
  const column = name === null || shown.byName.has(name) ? undefined : source.byName.get(name);
  return column === undefined ? [] : [column];
}

/** A table's `select_by` the table lacks (checked when saved). */
export function selectByProblems(
  byName: ReadonlyMap<string, Column>,
  table: Pick<TableComponent, 'select_by'>,
): FitProblem[] {
  if (table.select_by === undefined || byName.has(table.select_by)) return [];
  const message = `the table has no column ${JSON.stringify(table.select_by)}`;
  return [{ code: 'unknown_column', field: 'select_by', message }];
}

/**
 * The whole table's distinct values of each shown text or boolean column having at most
 * COLUMN_VALUES_LIMIT of them (nulls included, listed last), in one scan per version, remembered.
 */
async function columnValues(
  reader: TableReader,
  source: TableSnapshot,
  shown: readonly Column[],
  memo: WholeTableMemo,
): Promise<Record<string, (string | boolean | null)[]> | undefined> {
  const columns = shown.filter((column) => column.kind === 'string' || column.kind === 'boolean');
  if (columns.length === 0 || source.snapshot === null) return undefined;
  const key = memo.keyOf(source, `column-values\u0000${columns.map((column) => column.name).join('\u0000')}`);
  const known = memo.get(key);
  if (isValues(known)) return known;
  // Past the limit a list is cut at limit + 1 values, which says "too many" without counting them all.
  const selects = columns.map(
    (column, index) =>
      `list_sort(list_slice(list(DISTINCT ${column.sql}), 1, ${COLUMN_VALUES_LIMIT + 1})) AS "v${index}", ` +
      `bool_or(${column.sql} IS NULL) AS "n${index}"`,
  );
  const [row = {}] = await reader.withRows(source, (connection, from) =>
    connection.query(`SELECT ${selects.join(', ')} FROM ${from}`),
  );
  const values: Record<string, (string | boolean | null)[]> = {};
  columns.forEach((column, index) => {
    const listed = row[`v${index}`];
    const nulls = row[`n${index}`] === true;
    if (!Array.isArray(listed)) return;
    const all = [
      ...listed.filter((value) => typeof value === 'string' || typeof value === 'boolean'),
      ...(nulls ? [null] : []),
    ];
    if (all.length <= COLUMN_VALUES_LIMIT) values[column.name] = all;
  });
  memo.set(key, values);
  return values;
}

function isValues(value: JsonValue | undefined): value is Record<string, (string | boolean | null)[]> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a column's filters treat it as. */
function filterKind(column: Column): ColumnFilterKind {
  if (isNumeric(column)) return 'number';
  if (column.kind === 'date' || column.kind === 'timestamp') return 'temporal';
  if (column.kind === 'boolean') return 'boolean';
  if (column.kind === 'string') return 'text';
  return 'other';
}

/**
 * A table's column filters as matches on its shown columns: a column it does not show, or a
 * filter its column's type does not take, is a 400 at `path[i]`.
 */
export function columnFilterMatches(
  shown: TableSnapshot,
  filters: readonly TableColumnFilter[],
  path: string,
): { column: Column; match: Match; at: string }[] {
  return filters.map((filter, index) => {
    const at = `${path}[${index}]`;
    const column = shown.byName.get(filter.column);
    if (column === undefined)
      throw invalid(`${at}.column`, `the table shows no column ${JSON.stringify(filter.column)}`);
    const kind = filterKind(column);
    if (!COLUMN_FILTER_OPS[kind].includes(filter.op)) {
      const takes = COLUMN_FILTER_OPS[kind];
      throw invalid(
        `${at}.op`,
        takes.length === 0
          ? `a ${column.typeName} column cannot be filtered`
          : `a ${column.typeName} column is filtered by ${takes.join(' or ')}, not ${filter.op}`,
      );
    }
    const match: Match =
      filter.op === 'contains'
        ? { kind: 'search', text: filter.value }
        : filter.op === 'between'
          ? { kind: 'range', low: filter.value[0], high: filter.value[1] }
          : { kind: 'in', values: filter.value };
    return { column, at, match };
  });
}

/** The narrowing with a table's column filters added (their matches from `columnFilterMatches`). */
export function columnFiltered(narrowing: Narrowing, matches: ReturnType<typeof columnFilterMatches>): Narrowing {
  if (matches.length === 0) return narrowing;
  return async (connection, statement) => {
    const narrowed = await narrowing(connection, statement);
    try {
      const added = matches.flatMap(({ column, match, at }) => matchSql(match, column, statement, at) ?? []);
      return { conditions: [...narrowed.conditions, ...added], release: narrowed.release };
    } catch (error) {
      narrowed.release();
      throw error;
    }
  };
}

/** A table's selected rows: those whose `select_by` column (or the collection's key) has one of the listed values. */
export function selectionMatch(
  component: TableComponent,
  source: TableSnapshot | undefined,
  filter: DashboardFilter,
  at: string,
): { column: string; match: Match } {
  const column = source === undefined ? null : selectionColumn(source, component);
  if (column === null) {
    throw invalid(
      `${at}.component_id`,
      'this table has no select_by and its collection no key of one column: its rows cannot be selected',
    );
  }
  return {
    column,
    match: {
      kind: 'in',
      values: (Array.isArray(filter.value) ? filter.value : []) as (DashboardFilterScalar | null)[],
    },
  };
}
