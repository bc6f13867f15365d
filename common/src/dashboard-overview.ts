import type { DashboardTab } from './dashboard-tabs.js';
import type { DashboardComponentInput, LayoutItem } from './dashboards.js';
import { DASHBOARD_GRID_COLUMNS } from './dashboards.js';
import type { OverviewColumn } from './overview-columns.js';
import type { OverviewJoin } from './overview-joins.js';
import { type OverviewTable, type Sized, tableItems } from './overview-table.js';

/**
 * The generated "overview" dashboard of a project (docs/dashboards.md "Overview dashboards"): what
 * a data scientist would draw of each collection from its column statistics — key numbers as cards,
 * filters, a time series, a map, distributions, counts, correlated pairs, the table, a gallery of an
 * image collection, a MultiQC report's plots — with a filter per join key across collections, a
 * section per collection and a tab per collection when there are many. Pure, so the server
 * (`POST /dashboards` with `template: "overview"`) and `service ingest` build the same thing from the
 * same statistics. The choice per column is overview-columns.ts's, per table overview-table.ts's.
 */

export interface OverviewCollection {
  data_collection_id: string;
  tag: string;
  type?: 'table' | 'multiqc' | 'image';
  /** The table's column statistics (`GET /datacollections/{id}/summary`); `null` before it has data. */
  summary: { rows: number; version?: number | null; columns: readonly OverviewColumn[] } | null;
  /** Pearson correlations of numeric pairs, computed in DuckDB. */
  correlations?: readonly { x: string; y: string; r: number }[];
  /** A MultiQC collection's plots (`GET /datacollections/{id}/multiqc`), in the report's order. */
  multiqc?: { plots: readonly { anchor: string; plot_type: string; module: string }[] };
}

export const OVERVIEW_LIMITS = {
  /** The most components a dashboard holds. */
  components: 100,
  /** With more collections than this, each gets a tab of its own after an "Overview" tab. */
  collectionsInOneTab: 3,
  /** Tabs a dashboard may have (dashboard-tabs.ts); the last holds the collections beyond. */
  tabs: 20,
} as const;

const TEXT_HEIGHT = 2;
const SECTION_HEIGHT = 1;
const OVERVIEW_TAB = 'overview';

interface Page {
  tab: DashboardTab | null;
  items: Sized[];
}

export function overviewComponents(
  project: { name: string; description: string },
  collections: readonly OverviewCollection[],
  joins: readonly OverviewJoin[] = [],
): { tabs: DashboardTab[]; components: DashboardComponentInput[]; layout: LayoutItem[] } {
  const byTag = [...collections].sort((a, b) => a.tag.localeCompare(b.tag));
  const shared = joinFilters(byTag, joins);
  // A section, a card and a table per collection come first; charts get what is left.
  const fixed = 1 + shared.length;
  const shown = byTag.slice(0, Math.floor((OVERVIEW_LIMITS.components - fixed) / 3));
  const parts = shown.map((collection, index) => collectionItems(`c${index + 1}`, collection));
  let budget = OVERVIEW_LIMITS.components - fixed - parts.reduce((sum, part) => sum + essentials(part), 0);
  const share = Math.floor(budget / Math.max(1, parts.length));
  for (const part of parts) {
    part.charts = part.charts.slice(0, Math.max(0, Math.min(share, budget)));
    budget -= part.charts.length;
  }
  const tabbed = shown.length > OVERVIEW_LIMITS.collectionsInOneTab;
  const first: Page = {
    tab: tabbed ? { tab_id: OVERVIEW_TAB, title: 'Overview' } : null,
    items: [introItem(project, collections.length), ...shared],
  };
  const pages: Page[] = [first];
  parts.forEach((part, index) => {
    if (!tabbed) {
      first.items.push(part.section, ...part.lead, ...part.charts, ...part.last);
      return;
    }
    // The overview tab shows every collection's key number; the collection's tab, the rest.
    first.items.push(...part.lead);
    const own = [part.section, ...part.charts, ...part.last];
    if (pages.length < OVERVIEW_LIMITS.tabs) {
      pages.push({ tab: { tab_id: `t${index + 1}`, title: (shown[index] as OverviewCollection).tag }, items: own });
      return;
    }
    const last = pages.at(-1) as Page;
    last.items.push(...own);
    if (last.tab !== null && !last.tab.title.endsWith(MORE)) last.tab.title = `${last.tab.title.slice(0, 90)}${MORE}`;
  });
  const tabs = pages.flatMap((page) => (page.tab === null ? [] : [page.tab]));
  const components = pages.flatMap((page) =>
    page.items.map((item) => (page.tab === null ? item.component : { ...item.component, tab_id: page.tab.tab_id })),
  );
  return { tabs, components, layout: pages.flatMap((page) => flow(page.items)) };
}

const MORE = ' and more';

interface CollectionPart {
  section: Sized;
  /** Its key number (the row count; a MultiQC report's sample filter): on the overview tab when there are tabs. */
  lead: Sized[];
  charts: Sized[];
  /** The table or gallery, full width at the end. */
  last: Sized[];
}

/** What no budget cuts: the section, the lead, the last. */
const essentials = (part: CollectionPart) => 1 + part.lead.length + part.last.length;

function collectionItems(prefix: string, collection: OverviewCollection): CollectionPart {
  const section = sectionItem(prefix, collection);
  if (collection.multiqc !== undefined) {
    const [samples, ...plots] = multiqcItems(prefix, collection.data_collection_id, collection.multiqc.plots);
    return { section, lead: samples === undefined ? [] : [samples], charts: plots, last: [] };
  }
  const table: OverviewTable = {
    data_collection_id: collection.data_collection_id,
    tag: collection.tag,
    image: collection.type === 'image',
    rows: collection.summary?.rows ?? 0,
    version: collection.summary?.version ?? null,
    columns: collection.summary?.columns ?? [],
    correlations: collection.correlations ?? [],
  };
  const { lead, charts, last } = tableItems(prefix, table);
  return { section, lead: [lead], charts, last: [last] };
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

/** A section header per collection: its tag, and what it holds. */
function sectionItem(prefix: string, collection: OverviewCollection): Sized {
  const summary = collection.summary;
  const description =
    collection.multiqc !== undefined
      ? `MultiQC report: ${collection.multiqc.plots.length} plot(s).`
      : summary === null
        ? 'No data yet.'
        : `${summary.rows} ${collection.type === 'image' ? 'image(s)' : 'row(s)'}, ${summary.columns.length} column(s).`;
  return {
    component: { component_id: `${prefix}-section`, type: 'section', title: collection.tag, description },
    w: DASHBOARD_GRID_COLUMNS,
    h: SECTION_HEIGHT,
  };
}

/**
 * A filter per join key (a sample column several collections share): set on the first collection
 * that has it, it narrows every collection joined to it (docs/dashboards.md "Filtering").
 */
function joinFilters(collections: readonly OverviewCollection[], joins: readonly OverviewJoin[]): Sized[] {
  const columns = [...new Set(joins.map((join) => join.column))].sort();
  return columns.flatMap((column, n) => {
    const ids = new Set(joins.filter((join) => join.column === column).flatMap((join) => [join.left, join.right]));
    const first = collections.find(
      (collection) => ids.has(collection.data_collection_id) && collection.multiqc === undefined,
    );
    if (first === undefined) return [];
    return [
      {
        component: {
          component_id: `key-${n + 1}`,
          type: 'interactive',
          widget: 'multiselect',
          title: `${column} (every joined collection)`,
          data_collection_id: first.data_collection_id,
          column,
        },
        w: DASHBOARD_GRID_COLUMNS / 2,
        h: 2,
      },
    ];
  });
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
      w: DASHBOARD_GRID_COLUMNS,
      h: 8,
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

/** Left to right, top to bottom: an item that does not fit the row, or a section, starts the next one. */
function flow(items: readonly Sized[]): LayoutItem[] {
  const layout: LayoutItem[] = [];
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  for (const { component, w, h } of items) {
    if (x + w > DASHBOARD_GRID_COLUMNS || (component.type === 'section' && x > 0)) {
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
