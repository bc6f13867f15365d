import type { DashboardComponentInput, LayoutItem } from './dashboards.js';
import { DASHBOARD_GRID_COLUMNS } from './dashboards.js';

/**
 * The generated "overview" dashboard of a project (docs/dashboards.md "Overview dashboards"):
 * a text with the project's name, then per data collection a card of its row count, a histogram
 * per numeric column and a bar of the most frequent values per low-cardinality text column (each
 * up to a limit), and a table. Pure, so the server (`POST /dashboards` with `template:
 * "overview"`) and `service ingest` build the same thing from the same column statistics.
 */

export interface OverviewCollection {
  data_collection_id: string;
  tag: string;
  /** The table's column statistics (`GET /datacollections/{id}/summary`); `null` before it has data. */
  summary: {
    rows: number;
    columns: readonly { name: string; type: string; distinct: number | null }[];
  } | null;
  /** A MultiQC collection's plots (`GET /datacollections/{id}/multiqc`), in the report's order. */
  multiqc?: { plots: readonly { anchor: string; plot_type: string; module: string }[] };
}

export const OVERVIEW_LIMITS = {
  /** Histograms per collection (its first numeric columns). */
  histograms: 6,
  /** Bars per collection (its first low-cardinality text columns). */
  bars: 4,
  /** A text column is low-cardinality with at most this many distinct values… */
  categories: 20,
  /** …and on average at least two rows per value (so an id column of a small table is not one). */
  rowsPerCategory: 2,
  /** The most components a dashboard holds. */
  components: 100,
} as const;

const BOOKKEEPING = new Set(['_run_id', '_file_id']);
const NUMERIC_TYPE = /^(long|integer|short|byte|float|double|decimal)/;
const CARD = { w: 4, h: 5 };
const CHART = { w: 4, h: 5 };
const TABLE = { w: DASHBOARD_GRID_COLUMNS, h: 8 };
const TEXT_HEIGHT = 2;

type Sized = { component: DashboardComponentInput; w: number; h: number };

export function overviewComponents(
  project: { name: string; description: string },
  collections: readonly OverviewCollection[],
): { components: DashboardComponentInput[]; layout: LayoutItem[] } {
  const byTag = [...collections].sort((a, b) => a.tag.localeCompare(b.tag));
  // A card and a table per collection come first; charts get what is left of the component limit.
  const shown = byTag.slice(0, Math.floor((OVERVIEW_LIMITS.components - 1) / 2));
  const budget: ChartBudget = { charts: OVERVIEW_LIMITS.components - 1 - 2 * shown.length };
  const items: Sized[] = [introItem(project, collections.length)];
  shown.forEach((collection, index) => {
    const prefix = `c${index + 1}`;
    if (collection.multiqc === undefined) {
      items.push(...tableItems(prefix, collection, budget));
      return;
    }
    const plots = multiqcItems(prefix, collection.data_collection_id, collection.multiqc.plots);
    const kept = plots.slice(0, Math.max(0, budget.charts));
    budget.charts -= kept.length;
    items.push(...kept);
  });
  return { components: items.map((item) => item.component), layout: flow(items) };
}

/** The charts the collections may still add, taken in their order (each chart takes one). */
interface ChartBudget {
  charts: number;
}

/** The text at the top: the project's name, its description and how many collections it has. */
function introItem(project: { name: string; description: string }, collections: number): Sized {
  const intro = [`# ${project.name}`, project.description, `${collections} data collection(s).`]
    .filter((line) => line !== '')
    .join('\n\n');
  return {
    component: { component_id: 'overview', type: 'text', markdown: intro },
    w: DASHBOARD_GRID_COLUMNS,
    h: TEXT_HEIGHT,
  };
}

/** A table collection: a card of its rows, histograms and bars of its columns (within the budget), the table. */
function tableItems(prefix: string, collection: OverviewCollection, budget: ChartBudget): Sized[] {
  const { data_collection_id, tag } = collection;
  const items: Sized[] = [
    {
      component: {
        component_id: `${prefix}-rows`,
        type: 'card',
        title: `${tag}: rows`,
        data_collection_id,
        agg: 'count',
      },
      ...CARD,
    },
  ];
  const { numeric, categorical } = chartedColumns(collection.summary);
  for (const [n, column] of numeric.entries()) {
    if (budget.charts-- <= 0) break;
    items.push({
      component: {
        component_id: `${prefix}-hist-${n + 1}`,
        type: 'figure',
        title: `${tag}: ${column.name}`,
        data_collection_id,
        chart: 'histogram',
        x: column.name,
      },
      ...CHART,
    });
  }
  for (const [n, column] of categorical.entries()) {
    if (budget.charts-- <= 0) break;
    items.push({
      component: {
        component_id: `${prefix}-bar-${n + 1}`,
        type: 'figure',
        title: `${tag}: ${column.name}`,
        data_collection_id,
        chart: 'bar',
        x: column.name,
        agg: 'count',
      },
      ...CHART,
    });
  }
  items.push({
    component: { component_id: `${prefix}-table`, type: 'table', title: tag, data_collection_id },
    ...TABLE,
  });
  return items;
}

type SummaryColumn = NonNullable<OverviewCollection['summary']>['columns'][number];

/** The columns worth a chart: the first numeric ones, and the first text ones of few distinct values. */
function chartedColumns(summary: OverviewCollection['summary']): {
  numeric: SummaryColumn[];
  categorical: SummaryColumn[];
} {
  // `_run_id` and `_file_id` (where each row came from) are bookkeeping, not the data.
  const columns = (summary?.columns ?? []).filter((column) => !BOOKKEEPING.has(column.name));
  const rows = summary?.rows ?? 0;
  const numeric = columns.filter((column) => NUMERIC_TYPE.test(column.type)).slice(0, OVERVIEW_LIMITS.histograms);
  const categorical = columns
    .filter(
      (column) =>
        column.type === 'string' &&
        column.distinct !== null &&
        column.distinct >= 1 &&
        column.distinct <= OVERVIEW_LIMITS.categories &&
        column.distinct * OVERVIEW_LIMITS.rowsPerCategory <= rows,
    )
    .slice(0, OVERVIEW_LIMITS.bars);
  return { numeric, categorical };
}

/**
 * A MultiQC report: a filter on its samples, the general statistics, and each module's main plot
 * (its first chart; its first table when it has no chart), as the report opens with them.
 */
function multiqcItems(
  prefix: string,
  data_collection_id: string,
  plots: readonly { anchor: string; plot_type: string; module: string }[],
): Sized[] {
  const items: Sized[] = [
    {
      component: {
        component_id: `${prefix}-samples`,
        type: 'interactive',
        widget: 'multiselect',
        column: 'sample',
        title: 'Samples',
        data_collection_id,
      },
      w: DASHBOARD_GRID_COLUMNS,
      h: 2,
    },
  ];
  const general = plots.find((plot) => plot.module === 'general_stats');
  if (general !== undefined) {
    items.push({
      component: { component_id: `${prefix}-general`, type: 'multiqc', data_collection_id, plot: general.anchor },
      ...TABLE,
    });
  }
  const modules = [...new Set(plots.map((plot) => plot.module))].filter((module) => module !== 'general_stats');
  modules.forEach((module, n) => {
    const own = plots.filter((plot) => plot.module === module);
    const main = own.find((plot) => plot.plot_type !== 'table') ?? own[0];
    if (main === undefined) return;
    items.push({
      component: { component_id: `${prefix}-plot-${n + 1}`, type: 'multiqc', data_collection_id, plot: main.anchor },
      w: DASHBOARD_GRID_COLUMNS / 2,
      h: 7,
    });
  });
  return items;
}

/** Left to right, top to bottom: an item that does not fit the row starts the next one. */
function flow(items: readonly Sized[]): LayoutItem[] {
  const layout: LayoutItem[] = [];
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  for (const { component, w, h } of items) {
    if (x + w > DASHBOARD_GRID_COLUMNS) {
      x = 0;
      y += rowHeight;
      rowHeight = 0;
    }
    layout.push({ component_id: component.component_id, x, y, w, h });
    x += w;
    rowHeight = Math.max(rowHeight, h);
  }
  return layout;
}
