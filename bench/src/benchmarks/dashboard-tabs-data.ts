/**
 * The `dashboard` benchmark's second dashboard (issue 29): 6 tabs of 15 components each, 90 in
 * all, on the same table as the 11-component one (dashboard-data.ts). The first tab is those 11
 * with their ids, so the filter walk's filters name components of this dashboard too, plus 2 cards
 * and 2 figures; every other tab has 1 filter widget, 5 cards, 8 figures (histograms, a scatter,
 * bars, box plots) and 1 table over its own columns and aggregates, so no two tabs run the same
 * statements. A tab's request computes its own 15 components (docs/dashboards.md "Tabs").
 */
import type { CardAgg, ComponentAgg, DashboardComponentInput, DashboardTab, LayoutItem } from '@service/common';
import { benchDashboard } from './dashboard-data.js';

/** One tab of the dashboard and the ids of the components it shows. */
export interface BenchTab {
  tabId: string;
  title: string;
  componentIds: string[];
}

type FigureInput = Extract<DashboardComponentInput, { type: 'figure' }>;
type FigureFields = Omit<FigureInput, 'component_id' | 'type' | 'title' | 'tab_id' | 'data_collection_id'>;
type Numeric = 'expression' | 'quality' | 'reads';
type Category = 'tissue' | 'gene';

/** What sets one generated tab apart: its columns, aggregates, bins and filter widget. */
interface TabTheme {
  tab: DashboardTab;
  /** The number the tab is about, a second one it is drawn against, and its groupings. */
  measure: Numeric;
  against: Numeric;
  group: Category;
  other: Category;
  /** The aggregate of its bar charts and the bins of its histograms. */
  agg: Exclude<ComponentAgg, 'count' | 'count_distinct'>;
  bins: number;
  widget: { widget: 'range' | 'switch' | 'select' | 'multiselect'; column: string };
}

const THEMES: TabTheme[] = [
  {
    tab: { tab_id: 'expression', title: 'Expression', icon: 'chart-bar' },
    measure: 'expression',
    against: 'reads',
    group: 'gene',
    other: 'tissue',
    agg: 'median',
    bins: 60,
    widget: { widget: 'range', column: 'expression' },
  },
  {
    tab: { tab_id: 'quality', title: 'Quality', icon: 'checklist' },
    measure: 'quality',
    against: 'expression',
    group: 'tissue',
    other: 'gene',
    agg: 'mean',
    bins: 25,
    widget: { widget: 'switch', column: 'passed_qc' },
  },
  {
    tab: { tab_id: 'reads', title: 'Reads', icon: 'dna' },
    measure: 'reads',
    against: 'quality',
    group: 'gene',
    other: 'tissue',
    agg: 'sum',
    bins: 50,
    widget: { widget: 'range', column: 'reads' },
  },
  {
    tab: { tab_id: 'tissues', title: 'Tissues', icon: 'microscope' },
    measure: 'expression',
    against: 'quality',
    group: 'tissue',
    other: 'gene',
    agg: 'max',
    bins: 20,
    widget: { widget: 'select', column: 'tissue' },
  },
  {
    tab: { tab_id: 'genes', title: 'Genes', icon: 'list-details' },
    measure: 'reads',
    against: 'expression',
    group: 'gene',
    other: 'tissue',
    agg: 'min',
    bins: 35,
    widget: { widget: 'multiselect', column: 'gene' },
  },
];

const FIRST_TAB: DashboardTab = { tab_id: 'overview', title: 'Overview', icon: 'home' };

/** The 15 components of one generated tab, each with its place on the tab's grid. */
function themedTab(theme: TabTheme, on: { data_collection_id: string }): [DashboardComponentInput, LayoutItem][] {
  const { tab, measure, against, group, other, agg, bins, widget } = theme;
  const tab_id = tab.tab_id;
  // "-tab-" keeps them apart from the first tab's ids (`expression-histogram`).
  const id = (name: string) => `${tab_id}-tab-${name}`;
  const card = (name: string, cardAgg: CardAgg, column: string): DashboardComponentInput => ({
    component_id: id(name),
    type: 'card',
    title: `${cardAgg} ${column}`,
    agg: cardAgg,
    column,
    tab_id,
    ...on,
  });
  const figure = (name: string, fields: FigureFields): FigureInput => ({
    component_id: id(name),
    type: 'figure',
    title: name,
    tab_id,
    ...on,
    ...fields,
  });
  const components: DashboardComponentInput[] = [
    { component_id: id('filter'), type: 'interactive', title: widget.column, ...widget, tab_id, ...on },
    card('mean', 'mean', measure),
    card('median', 'median', measure),
    card('spread', 'std', measure),
    card('against', agg, against),
    card('distinct', 'count_distinct', group),
    figure('histogram', { chart: 'histogram', x: measure, bins }),
    figure('histogram-by', { chart: 'histogram', x: against, bins: bins + 10, color: 'tissue' }),
    figure('scatter', { chart: 'scatter', x: measure, y: against, color: 'tissue' }),
    figure('bar', { chart: 'bar', x: group, y: measure, agg }),
    figure('bar-count', { chart: 'bar', x: other }),
    figure('bar-against', { chart: 'bar', x: group, y: against, agg: 'mean', max_categories: 30 }),
    figure('box', { chart: 'box', x: 'tissue', y: measure }),
    figure('box-against', { chart: 'box', y: against }),
    {
      component_id: id('table'),
      type: 'table',
      title: `Samples by ${measure}`,
      columns: ['sample_id', measure, against, group, 'collected'],
      sort: [{ column: measure, direction: 'desc' }],
      page_size: 20,
      tab_id,
      ...on,
    },
  ];
  // A widget and two cards, three cards, four rows of two figures, the table across the grid.
  const places: Omit<LayoutItem, 'component_id'>[] = [
    ...[0, 1, 2, 3, 4, 5].map((index) => ({ x: 4 * (index % 3), y: 2 * Math.floor(index / 3), w: 4, h: 2 })),
    ...[0, 1, 2, 3, 4, 5, 6, 7].map((index) => ({ x: 6 * (index % 2), y: 4 + 6 * Math.floor(index / 2), w: 6, h: 6 })),
    { x: 0, y: 28, w: 12, h: 8 },
  ];
  return components.map((component, index) => [
    component,
    { component_id: component.component_id, ...(places[index] as Omit<LayoutItem, 'component_id'>) },
  ]);
}

/** The first tab: the 11-component dashboard as it is, then two cards and two figures below it. */
function overviewTab(collection: string): [DashboardComponentInput, LayoutItem][] {
  const on = { data_collection_id: collection };
  const eleven = benchDashboard(collection);
  const tab_id = FIRST_TAB.tab_id;
  const extra: [DashboardComponentInput, LayoutItem][] = [
    [
      {
        component_id: 'overview-best-quality',
        type: 'card',
        title: 'Best quality',
        agg: 'max',
        column: 'quality',
        tab_id,
        ...on,
      },
      { component_id: 'overview-best-quality', x: 0, y: 24, w: 6, h: 2 },
    ],
    [
      {
        component_id: 'overview-genes',
        type: 'card',
        title: 'Genes',
        agg: 'count_distinct',
        column: 'gene',
        tab_id,
        ...on,
      },
      { component_id: 'overview-genes', x: 6, y: 24, w: 6, h: 2 },
    ],
    [
      {
        component_id: 'overview-reads',
        type: 'figure',
        title: 'Reads',
        chart: 'histogram',
        x: 'reads',
        bins: 40,
        tab_id,
        ...on,
      },
      { component_id: 'overview-reads', x: 0, y: 26, w: 6, h: 6 },
    ],
    [
      {
        component_id: 'overview-quality-box',
        type: 'figure',
        title: 'Quality by tissue',
        chart: 'box',
        x: 'tissue',
        y: 'quality',
        tab_id,
        ...on,
      },
      { component_id: 'overview-quality-box', x: 6, y: 26, w: 6, h: 6 },
    ],
  ];
  const placed = eleven.components.map((component): [DashboardComponentInput, LayoutItem] => [
    { ...component, tab_id },
    eleven.layout.find((item) => item.component_id === component.component_id) as LayoutItem,
  ]);
  return [...placed, ...extra];
}

/** The 90-component dashboard in 6 tabs, and each tab's components. */
export function tabbedBenchDashboard(collection: string): {
  definition: { tabs: DashboardTab[]; components: DashboardComponentInput[]; layout: LayoutItem[] };
  tabs: BenchTab[];
} {
  const on = { data_collection_id: collection };
  const perTab = [overviewTab(collection), ...THEMES.map((theme) => themedTab(theme, on))];
  const allTabs = [FIRST_TAB, ...THEMES.map((theme) => theme.tab)];
  return {
    definition: {
      tabs: allTabs,
      components: perTab.flatMap((placed) => placed.map(([component]) => component)),
      layout: perTab.flatMap((placed) => placed.map(([, item]) => item)),
    },
    tabs: allTabs.map((tab, index) => ({
      tabId: tab.tab_id,
      title: tab.title,
      componentIds: (perTab[index] ?? []).map(([component]) => component.component_id),
    })),
  };
}
