import {
  type AsOf,
  asOfSchema,
  type DashboardComponent,
  type DashboardFilter,
  type DashboardFilterValue,
  dashboardFilterSchema,
  filterValueProblem,
} from '@service/common';
import { useSearchParams } from 'react-router';
import type { HistoryMode } from './history-mode.js';
import { withPagesReset } from './table/table-state.js';

/**
 * What a dashboard shows, kept in the address bar so a reload or a shared link opens the same
 * view: `?filters=<JSON list of {component_id, value}>`, `?as_of=<ISO timestamp, or JSON
 * {collection: version}>` and `?contigs=<JSON {component_id: contig}>`.
 */
export interface DashboardView {
  filters: DashboardFilter[];
  /** null: every collection's latest version (live). */
  asOf: AsOf | null;
  /** The contig a reader chose per coverage track of contigs (absent: the track's own). */
  contigs: Record<string, string>;
}

/**
 * The value as a filter, or null when it filters nothing (an empty list, an open range, an empty
 * search): such a filter is left out rather than sent.
 */
export function effectiveValue(value: DashboardFilterValue | null): DashboardFilterValue | null {
  if (value === null) return null;
  if (typeof value === 'string') return value.trim() === '' ? null : value;
  if (Array.isArray(value)) {
    if (value.length === 0) return null;
    return value.length === 2 && value[0] === null && value[1] === null ? null : value;
  }
  return value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The filters of `?filters=` that still fit the dashboard: an entry naming a component that no
 * longer exists, or whose value has the wrong shape for it, is dropped (the rest still apply),
 * as is a second entry for the same component.
 */
export function readFilters(text: string | null, components: readonly DashboardComponent[]): DashboardFilter[] {
  if (text === null) return [];
  const list = parseJson(text);
  if (!Array.isArray(list)) return [];
  const byId = new Map(components.map((component) => [component.component_id, component]));
  const filters: DashboardFilter[] = [];
  for (const entry of list) {
    const parsed = dashboardFilterSchema.safeParse(entry);
    if (!parsed.success) continue;
    const { component_id, value } = parsed.data;
    const component = byId.get(component_id);
    if (component === undefined || filterValueProblem(component, value) !== null) continue;
    if (effectiveValue(value) === null || filters.some((filter) => filter.component_id === component_id)) continue;
    filters.push({ component_id, value });
  }
  return filters;
}

/** `?as_of=`: an ISO timestamp, or a JSON object of versions by collection; anything else reads live. */
export function readAsOf(text: string | null): AsOf | null {
  if (text === null || text === '') return null;
  const parsed = asOfSchema.safeParse(text.startsWith('{') ? parseJson(text) : text);
  return parsed.success ? parsed.data : null;
}

/** Whether a reader picks the contig a component draws: a coverage track with a chromosome column. */
export const picksContig = (component: DashboardComponent | undefined) =>
  component?.type === 'figure' && component.chart === 'coverage' && component.chromosome !== undefined;

/** `?contigs=`: the entries naming a coverage track of contigs, each a contig's name; the rest are dropped. */
export function readContigs(text: string | null, components: readonly DashboardComponent[]): Record<string, string> {
  const parsed = text === null ? undefined : parseJson(text);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  const byId = new Map(components.map((component) => [component.component_id, component]));
  return Object.fromEntries(
    Object.entries(parsed).filter(
      ([id, name]) =>
        picksContig(byId.get(id)) && typeof name === 'string' && name.trim() !== '' && name.length <= 1000,
    ),
  );
}

export function readDashboardView(params: URLSearchParams, components: readonly DashboardComponent[]): DashboardView {
  return {
    filters: readFilters(params.get('filters'), components),
    asOf: readAsOf(params.get('as_of')),
    contigs: readContigs(params.get('contigs'), components),
  };
}

/** `params` with the view written into it; the other parameters are kept. */
export function writeDashboardView(params: URLSearchParams, view: DashboardView): URLSearchParams {
  const next = new URLSearchParams(params);
  if (view.filters.length === 0) next.delete('filters');
  else next.set('filters', JSON.stringify(view.filters));
  if (view.asOf === null) next.delete('as_of');
  else next.set('as_of', typeof view.asOf === 'string' ? view.asOf : JSON.stringify(view.asOf));
  if (Object.keys(view.contigs).length === 0) next.delete('contigs');
  else next.set('contigs', JSON.stringify(view.contigs));
  return next;
}

/** `filters` with the component's filter set to `value` (in its place, or last), or removed when null or empty. */
export function withFilter(
  filters: readonly DashboardFilter[],
  componentId: string,
  value: DashboardFilterValue | null,
): DashboardFilter[] {
  const effective = effectiveValue(value);
  const index = filters.findIndex((filter) => filter.component_id === componentId);
  if (effective === null) return filters.filter((filter) => filter.component_id !== componentId);
  const next = [...filters];
  if (index === -1) next.push({ component_id: componentId, value: effective });
  else next[index] = { component_id: componentId, value: effective };
  return next;
}

export type { HistoryMode } from './history-mode.js';

export interface DashboardViewActions {
  setFilter(componentId: string, value: DashboardFilterValue | null, mode?: HistoryMode): void;
  clearFilters(): void;
  setAsOf(asOf: AsOf | null): void;
  /** The contig a coverage track draws; null: the track's own again. */
  setContig(componentId: string, contig: string | null, mode?: HistoryMode): void;
}

/** What narrows a table's rows in the view: the filters but its own (its selection), and the version. */
const rowsOf = (view: DashboardView, tableId: string) =>
  JSON.stringify([view.filters.filter((filter) => filter.component_id !== tableId), view.asOf]);

/**
 * `params` with the view `update` makes of theirs; a table whose rows it narrows otherwise (not
 * its own selection) goes back to its first page (table-state.ts).
 */
export function changeDashboardView(
  params: URLSearchParams,
  components: readonly DashboardComponent[],
  update: (view: DashboardView) => DashboardView,
): URLSearchParams {
  const before = readDashboardView(params, components);
  const after = update(before);
  return withPagesReset(writeDashboardView(params, after), (id) => rowsOf(before, id) !== rowsOf(after, id));
}

/** The dashboard's view from the address bar, and the changes that write it back. */
export function useDashboardView(components: readonly DashboardComponent[]): [DashboardView, DashboardViewActions] {
  const [params, setParams] = useSearchParams();
  // From the address as it stands when the change is made: two changes in one event both count.
  const change = (update: (view: DashboardView) => DashboardView, mode: HistoryMode = 'push') =>
    setParams((current) => changeDashboardView(current, components, update), { replace: mode === 'replace' });
  return [
    readDashboardView(params, components),
    {
      setFilter: (componentId, value, mode) =>
        change((view) => ({ ...view, filters: withFilter(view.filters, componentId, value) }), mode),
      clearFilters: () => change((view) => ({ ...view, filters: [] })),
      setAsOf: (asOf) => change((view) => ({ ...view, asOf })),
      setContig: (componentId, contig, mode) =>
        change((view) => {
          const { [componentId]: _, ...others } = view.contigs;
          return { ...view, contigs: contig === null ? others : { ...others, [componentId]: contig } };
        }, mode),
    },
  ];
}
