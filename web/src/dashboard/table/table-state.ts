import {
  columnNameSchema,
  type DashboardFilterValue,
  type SortKey,
  sortKeySchema,
  type TableColumnFilter,
  tableColumnFiltersSchema,
} from '@service/common';
import { useSearchParams } from 'react-router';
import { z } from 'zod';
import { formatSort } from '../../explorer/sort.js';
import type { HistoryMode } from '../history-mode.js';

/**
 * What a reader has made of a dashboard's tables, kept in the address bar beside the dashboard's
 * filters so a reload or a shared link shows the same (docs/dashboards.md "Tables"):
 * `?tables=<JSON {component_id: {column_filters?, sort?, columns?, page?}}>`. `column_filters` are
 * the header's filters (common/src/table-filters.ts), `sort` the order chosen by the headers
 * (absent: the table's own), `columns` the columns the reader shows, in order (absent: the table's
 * own), `page` the page shown (absent: the first; other filters or another order start it again).
 */
export interface TableView {
  column_filters?: TableColumnFilter[];
  sort?: SortKey[];
  columns?: string[];
  page?: number;
}

/** What a reader does with a dashboard's table (absent in the editor, whose tables only page and sort). */
export interface TableReading {
  /** The table's selection filter's value (its selected rows' keys), if any. */
  selected: DashboardFilterValue | undefined;
  onSelect: (value: DashboardFilterValue | null) => void;
}

/** A table's view, the change that sets it, and the reader's selection (none in the editor). */
export interface TableState {
  view: TableView;
  setView: (update: (view: TableView) => TableView) => void;
  reading: TableReading | undefined;
}

const tableViewSchema = z.object({
  column_filters: tableColumnFiltersSchema.optional().catch(undefined),
  sort: z.array(sortKeySchema).max(20).optional().catch(undefined),
  columns: z.array(columnNameSchema).max(1000).optional().catch(undefined),
  page: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().catch(undefined),
});

const EMPTY: TableView = {};

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `?tables=` read: each table's view, the parts that do not parse dropped (the rest still apply). */
export function readTableViews(text: string | null): Record<string, TableView> {
  const all = text === null ? undefined : parseJson(text);
  if (typeof all !== 'object' || all === null || Array.isArray(all)) return {};
  const views: Record<string, TableView> = {};
  for (const [componentId, entry] of Object.entries(all)) {
    const parsed = tableViewSchema.safeParse(entry);
    if (parsed.success) views[componentId] = withoutEmpty(parsed.data);
  }
  return views;
}

/** The view without its empty parts (no filters, the table's own order and columns). */
function withoutEmpty(view: TableView): TableView {
  const next: TableView = {};
  if (view.column_filters !== undefined && view.column_filters.length > 0) next.column_filters = view.column_filters;
  if (view.sort !== undefined) next.sort = view.sort;
  if (view.columns !== undefined && view.columns.length > 0) next.columns = view.columns;
  if (view.page !== undefined && view.page > 1) next.page = view.page;
  return next;
}

/** `after`, back at its first page when it filters or orders the rows otherwise than `before`. */
export function settledView(before: TableView, after: TableView): TableView {
  const rows = (view: TableView) => JSON.stringify([view.column_filters ?? [], view.sort ?? null]);
  if (rows(before) === rows(after) || after.page === undefined) return after;
  const { page: _, ...rest } = after;
  return rest;
}

function writeViews(params: URLSearchParams, views: Record<string, TableView>): URLSearchParams {
  const next = new URLSearchParams(params);
  if (Object.keys(views).length === 0) next.delete('tables');
  else next.set('tables', JSON.stringify(views));
  return next;
}

/**
 * `params` with one table's view written into `?tables=` (at its first page if its filters or
 * order changed); the other tables and parameters are kept.
 */
export function writeTableView(params: URLSearchParams, componentId: string, view: TableView): URLSearchParams {
  const views = readTableViews(params.get('tables'));
  const kept = withoutEmpty(settledView(views[componentId] ?? {}, view));
  if (Object.keys(kept).length === 0) delete views[componentId];
  else views[componentId] = kept;
  return writeViews(params, views);
}

/**
 * `params` with the tables that `reset` names back at their first page: those whose rows a change
 * of the dashboard's filters or version narrows otherwise (filter-state.ts).
 */
export function withPagesReset(params: URLSearchParams, reset: (componentId: string) => boolean): URLSearchParams {
  const views = readTableViews(params.get('tables'));
  const paged = Object.keys(views).filter((id) => views[id]?.page !== undefined && reset(id));
  if (paged.length === 0) return params;
  for (const id of paged) {
    const { page: _, ...rest } = views[id] ?? {};
    if (Object.keys(rest).length === 0) delete views[id];
    else views[id] = rest;
  }
  return writeViews(params, views);
}

/** One table's view from the address bar, and the change that writes it back. */
export function useTableView(
  componentId: string,
): [TableView, (update: (view: TableView) => TableView, mode?: HistoryMode) => void] {
  const [params, setParams] = useSearchParams();
  const view = readTableViews(params.get('tables'))[componentId] ?? EMPTY;
  const change = (update: (view: TableView) => TableView, mode: HistoryMode = 'push') =>
    setParams(
      (current) =>
        writeTableView(current, componentId, update(readTableViews(current.get('tables'))[componentId] ?? {})),
      { replace: mode === 'replace' },
    );
  return [view, change];
}

/** The view's column filter of `column`, if it has one. */
export function filterOf(view: TableView, column: string): TableColumnFilter | undefined {
  return view.column_filters?.find((filter) => filter.column === column);
}

/** The view with `column`'s filter set (in its place, or last), or removed when null. */
export function withColumnFilter(view: TableView, column: string, filter: TableColumnFilter | null): TableView {
  const others = (view.column_filters ?? []).filter((each) => each.column !== column);
  if (filter === null) return { ...view, column_filters: others };
  const index = (view.column_filters ?? []).findIndex((each) => each.column === column);
  const next = [...(view.column_filters ?? [])];
  if (index === -1) next.push(filter);
  else next[index] = filter;
  return { ...view, column_filters: next };
}

/** The rows and download routes' query for the view's filters and order (`sort` absent: the table's own). */
export function tableViewQuery(view: TableView): { column_filters?: string; sort?: string } {
  const filters = view.column_filters ?? [];
  const sort = view.sort === undefined ? null : formatSort(view.sort);
  return {
    ...(filters.length === 0 ? {} : { column_filters: JSON.stringify(filters) }),
    ...(sort === null ? {} : { sort }),
  };
}
