/**
 * What the `dashboard` benchmark reads: a Depictio-shaped table (an id, a 20-value group, a
 * 500-value category, two doubles, an integer, a date, a boolean) written as Parquet by DuckDB in
 * one statement, the dashboard over it (4 figures, 3 cards, 3 interactive components, 1 table, as
 * Depictio's report has), and the random filter changes a reader makes.
 *
 * Deterministic: the rows are hashes of the row number, the filter changes come from a seeded
 * generator, so every run reads and asks the same.
 */
import type { DashboardComponentInput, DashboardFilter, LayoutItem } from '@service/common';
import { GROUPS, generator } from './ingest-data.js';

/** Distinct values of `gene`, the category column. */
export const GENES = 500;
/** `collected` spans ten years from this day. */
const FIRST_DAY = '2015-01-01';
const DAYS = 3650;

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** A uniform double in [0, 1) from the row number and a salt (DuckDB's `hash` is deterministic). */
const uniform = (salt: number) => `(hash(i, ${salt}) % 1000000007) / 1000000007.0`;

/**
 * The `COPY` that writes `rows` rows to `path` as Parquet:
 * - `sample_id` BIGINT, unique;
 * - `tissue` one of the 20 names the `ingest` benchmark uses (the group);
 * - `gene` `GENE001`…`GENE500`, skewed (the first genes are far more common), so the bar chart's
 *   top 20 and its "other" both mean something;
 * - `expression` DOUBLE, bell-shaped, shifted by tissue (so box plots differ); `quality` DOUBLE in [0, 1);
 * - `reads` INTEGER below 100 000; `collected` DATE over ten years; `passed_qc` BOOLEAN (about 70% true).
 */
export function generateTableSql(path: string, rows: number): string {
  const tissues = `[${GROUPS.map(quote).join(', ')}]`;
  return `COPY (
  SELECT
    i AS sample_id,
    list_extract(${tissues}, CAST(hash(i, 1) % ${GROUPS.length} AS INTEGER) + 1) AS tissue,
    'GENE' || lpad(CAST(CAST(floor(${GENES} * pow(${uniform(2)}, 2)) AS INTEGER) + 1 AS VARCHAR), 3, '0') AS gene,
    round(10 + 2 * (hash(i, 1) % ${GROUPS.length}) + 30 * (${uniform(3)} + ${uniform(4)} + ${uniform(5)}), 3) AS expression,
    ${uniform(6)} AS quality,
    CAST(hash(i, 7) % 100000 AS INTEGER) AS reads,
    DATE ${quote(FIRST_DAY)} + CAST(hash(i, 8) % ${DAYS} AS INTEGER) AS collected,
    ${uniform(9)} < 0.7 AS passed_qc
  FROM range(${rows}) AS numbers(i)
) TO ${quote(path)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)`;
}

/** Component ids the benchmark refers to. */
export const IDS = {
  histogram: 'expression-histogram',
  scatter: 'expression-vs-quality',
  bar: 'expression-by-gene',
  box: 'expression-by-tissue',
  samples: 'samples',
  meanExpression: 'mean-expression',
  medianReads: 'median-reads',
  tissue: 'tissue',
  quality: 'quality',
  collected: 'collected',
  table: 'samples-table',
} as const;

/** The dashboard of Depictio's report: 4 figures, 3 cards, 3 interactive components and 1 table. */
export function benchDashboard(collection: string): { components: DashboardComponentInput[]; layout: LayoutItem[] } {
  const on = { data_collection_id: collection };
  const components: DashboardComponentInput[] = [
    { component_id: IDS.tissue, type: 'interactive', title: 'Tissue', widget: 'multiselect', column: 'tissue', ...on },
    { component_id: IDS.quality, type: 'interactive', title: 'Quality', widget: 'range', column: 'quality', ...on },
    {
      component_id: IDS.collected,
      type: 'interactive',
      title: 'Collected',
      widget: 'date_range',
      column: 'collected',
      ...on,
    },
    { component_id: IDS.samples, type: 'card', title: 'Samples', agg: 'count', ...on },
    {
      component_id: IDS.meanExpression,
      type: 'card',
      title: 'Mean expression',
      agg: 'mean',
      column: 'expression',
      ...on,
    },
    { component_id: IDS.medianReads, type: 'card', title: 'Median reads', agg: 'median', column: 'reads', ...on },
    {
      component_id: IDS.histogram,
      type: 'figure',
      title: 'Expression',
      chart: 'histogram',
      x: 'expression',
      bins: 40,
      ...on,
    },
    {
      component_id: IDS.scatter,
      type: 'figure',
      title: 'Expression against quality',
      chart: 'scatter',
      x: 'expression',
      y: 'quality',
      color: 'tissue',
      ...on,
    },
    {
      component_id: IDS.bar,
      type: 'figure',
      title: 'Mean expression by gene',
      chart: 'bar',
      x: 'gene',
      y: 'expression',
      agg: 'mean',
      ...on,
    },
    {
      component_id: IDS.box,
      type: 'figure',
      title: 'Expression by tissue',
      chart: 'box',
      x: 'tissue',
      y: 'expression',
      ...on,
    },
    { component_id: IDS.table, type: 'table', title: 'Samples', page_size: 25, ...on },
  ];
  const layout: LayoutItem[] = [
    { component_id: IDS.tissue, x: 0, y: 0, w: 4, h: 2 },
    { component_id: IDS.quality, x: 4, y: 0, w: 4, h: 2 },
    { component_id: IDS.collected, x: 8, y: 0, w: 4, h: 2 },
    { component_id: IDS.samples, x: 0, y: 2, w: 4, h: 2 },
    { component_id: IDS.meanExpression, x: 4, y: 2, w: 4, h: 2 },
    { component_id: IDS.medianReads, x: 8, y: 2, w: 4, h: 2 },
    { component_id: IDS.histogram, x: 0, y: 4, w: 6, h: 6 },
    { component_id: IDS.scatter, x: 6, y: 4, w: 6, h: 6 },
    { component_id: IDS.bar, x: 0, y: 10, w: 6, h: 6 },
    { component_id: IDS.box, x: 6, y: 10, w: 6, h: 6 },
    { component_id: IDS.table, x: 0, y: 16, w: 12, h: 8 },
  ];
  return { components, layout };
}

/** An ISO day `offset` days after the first one. */
function day(offset: number): string {
  return new Date(Date.parse(`${FIRST_DAY}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);
}

/**
 * A reader's filter changes as a random walk: each change sets, replaces or clears one filter
 * (a tissue list, a quality range, a date range, genes clicked on the bar chart, a range brushed
 * on the histogram), the others staying as they were, as on a real dashboard. Answers the whole
 * filter list after each change.
 */
export function filterWalk(seed: number): () => DashboardFilter[] {
  const next = generator(seed);
  const unit = () => next() / 4_294_967_296;
  const pick = <T>(items: readonly T[]): T => items[next() % items.length] as T;
  const some = <T>(items: readonly T[], most: number): T[] => {
    const chosen = new Set<T>();
    const count = 1 + (next() % most);
    while (chosen.size < count) chosen.add(pick(items));
    return [...chosen];
  };
  const genes = Array.from({ length: 30 }, (_, index) => `GENE${String(index + 1).padStart(3, '0')}`);
  const makers: Record<string, () => DashboardFilter['value']> = {
    [IDS.tissue]: () => some(GROUPS, 4),
    [IDS.quality]: () => {
      const low = Math.round(unit() * 80) / 100;
      return [low, next() % 4 === 0 ? null : Math.min(1, low + 0.05 + Math.round(unit() * 50) / 100)];
    },
    [IDS.collected]: () => {
      const first = next() % (DAYS - 400);
      return [day(first), day(first + 30 + (next() % 1000))];
    },
    // Clicking a bar: the categories of its x (the most common genes are the ones on the chart).
    [IDS.bar]: () => some(genes, 2),
    // Brushing the histogram: a range of x.
    [IDS.histogram]: () => {
      const low = 20 + Math.round(unit() * 60);
      return [low, low + 5 + Math.round(unit() * 40)];
    },
  };
  const state = new Map<string, DashboardFilter['value']>();
  return () => {
    const id = pick(Object.keys(makers));
    // A set filter is cleared one time in three; otherwise it gets a new value.
    if (state.has(id) && next() % 3 === 0) state.delete(id);
    else state.set(id, (makers[id] as () => DashboardFilter['value'])());
    return [...state].map(([component_id, value]) => ({ component_id, value }));
  };
}
