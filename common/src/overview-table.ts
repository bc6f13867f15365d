import type { CardFormat } from './card-fields.js';
import type { DashboardComponentInput } from './dashboards.js';
import { DASHBOARD_GRID_COLUMNS } from './dashboards.js';
import { columnsByRole, type OverviewColumn } from './overview-columns.js';

/**
 * What the generated overview draws of one table or image collection (docs/dashboards.md
 * "Overview dashboards"): key numbers as cards, filters on its categories and dates, a time series,
 * a map, distributions, counts, relationships of correlated pairs, and the table (or gallery). Pure.
 */

export interface Sized {
  component: DashboardComponentInput;
  w: number;
  h: number;
}

/** A table's statistics as the overview reads them. */
export interface OverviewTable {
  data_collection_id: string;
  tag: string;
  image: boolean;
  rows: number;
  /** The table version read: a later one than 0 has a previous version to compare with. */
  version: number | null;
  columns: readonly OverviewColumn[];
  /** Pearson correlations of numeric pairs (computed in DuckDB). */
  correlations: readonly { x: string; y: string; r: number }[];
}

export const OVERVIEW_TABLE_LIMITS = {
  /** Cards of a measure's mean beside the row count. */
  measureCards: 2,
  /** Filters on categories. */
  filters: 3,
  histograms: 6,
  bars: 4,
  /** Scatters of the most correlated numeric pairs… */
  scatters: 3,
  /** …whose |r| is at least this. */
  correlation: 0.5,
} as const;

const CARD = { w: 3, h: 3 };
const FILTER = { w: 4, h: 2 };
const CHART = { w: 4, h: 5 };
const WIDE = { w: DASHBOARD_GRID_COLUMNS / 2, h: 6 };
const FULL = { w: DASHBOARD_GRID_COLUMNS, h: 8 };
const PERCENT_NAME = /(pct|percent|fraction|frac|ratio|rate|proportion)/i;

/** The row count (`lead`), the table or gallery (`last`), and the charts between, which the budget may cut. */
export function tableItems(prefix: string, table: OverviewTable): { lead: Sized; charts: Sized[]; last: Sized } {
  const { data_collection_id, tag } = table;
  const roles = columnsByRole(table.columns, table.rows, table.image);
  const id = (suffix: string) => `${prefix}-${suffix}`;
  const comparison: Compared =
    table.version !== null && table.version > 0 ? { comparison: { against: 'previous_version' } } : {};
  const rowsCard: Sized = {
    component: {
      component_id: id('rows'),
      type: 'card',
      title: table.image ? `${tag}: images` : `${tag}: rows`,
      data_collection_id,
      agg: 'count',
      format: table.rows >= 100_000 ? { style: 'si', decimals: 1 } : { decimals: 0 },
      ...comparison,
    },
    ...CARD,
  };
  const last: Sized = table.image
    ? {
        component: {
          component_id: id('gallery'),
          type: 'image',
          title: tag,
          data_collection_id,
          ...captions([...roles.id, ...roles.category]),
        },
        ...FULL,
      }
    : { component: { component_id: id('table'), type: 'table', title: tag, data_collection_id }, ...FULL };
  const charts: Sized[] = [
    ...keyCards(id, table, roles.id, roles.measure, comparison),
    ...filters(id, data_collection_id, roles.category, roles.time),
    ...timeSeries(id, table, roles.time, roles.measure),
    ...maps(id, table, roles),
    ...(table.image ? [] : distributions(id, table, roles.measure, roles.category)),
    ...relationships(id, table, roles.category),
  ];
  return { lead: rowsCard, charts, last };
}

/** A card's comparison with the table's previous version, when it has one. */
type Compared = { comparison?: { against: 'previous_version' } };

const captions = (columns: readonly OverviewColumn[]) =>
  columns.length === 0 ? {} : { caption_columns: columns.slice(0, 5).map((column) => column.name) };

/** How a mean is written: a fraction as a percentage, else decimals by its size. */
export function measureFormat(column: OverviewColumn): CardFormat {
  const min = typeof column.min === 'number' ? column.min : null;
  const max = typeof column.max === 'number' ? column.max : null;
  if (PERCENT_NAME.test(column.name) && min !== null && max !== null && min >= 0 && max <= 1)
    return { style: 'percent', decimals: 1 };
  const size = Math.max(Math.abs(min ?? 0), Math.abs(max ?? 0));
  if (size >= 100_000) return { style: 'si', decimals: 1 };
  return { decimals: size >= 100 ? 0 : size >= 1 ? 2 : 3 };
}

/** Distinct names (samples) of the first id column, and the means of the first measures. */
function keyCards(
  id: (suffix: string) => string,
  table: OverviewTable,
  ids: readonly OverviewColumn[],
  measures: readonly OverviewColumn[],
  comparison: Compared,
): Sized[] {
  const { data_collection_id, tag } = table;
  const cards: Sized[] = [];
  const key = ids[0];
  if (key !== undefined && key.distinct !== null && key.distinct < table.rows) {
    cards.push({
      component: {
        component_id: id('distinct'),
        type: 'card',
        title: `${tag}: ${key.name}`,
        data_collection_id,
        agg: 'count_distinct',
        column: key.name,
        format: { decimals: 0 },
        ...comparison,
      },
      ...CARD,
    });
  }
  measures.slice(0, OVERVIEW_TABLE_LIMITS.measureCards).forEach((column, n) => {
    cards.push({
      component: {
        component_id: id(`mean-${n + 1}`),
        type: 'card',
        title: `${tag}: mean ${column.name}`,
        data_collection_id,
        agg: 'mean',
        column: column.name,
        format: measureFormat(column),
        ...comparison,
      },
      ...CARD,
    });
  });
  return cards;
}

/** A multiselect per category (the first few) and a date range on the first time column. */
function filters(
  id: (suffix: string) => string,
  data_collection_id: string,
  categories: readonly OverviewColumn[],
  times: readonly OverviewColumn[],
): Sized[] {
  const items: Sized[] = categories.slice(0, OVERVIEW_TABLE_LIMITS.filters).map((column, n) => ({
    component: {
      component_id: id(`filter-${n + 1}`),
      type: 'interactive',
      widget: 'multiselect',
      title: column.name,
      data_collection_id,
      column: column.name,
    },
    ...FILTER,
  }));
  const time = times[0];
  if (time !== undefined) {
    items.push({
      component: {
        component_id: id('dates'),
        type: 'interactive',
        widget: 'date_range',
        title: time.name,
        data_collection_id,
        column: time.name,
      },
      ...FILTER,
    });
  }
  return items;
}

/** Rows per period of the first date, and the first measure's mean over it. */
function timeSeries(
  id: (suffix: string) => string,
  table: OverviewTable,
  times: readonly OverviewColumn[],
  measures: readonly OverviewColumn[],
): Sized[] {
  const time = times[0];
  if (time === undefined) return [];
  const { data_collection_id, tag } = table;
  const items: Sized[] = [
    {
      component: {
        component_id: id('time-rows'),
        type: 'figure',
        title: `${tag}: rows by ${time.name}`,
        data_collection_id,
        chart: 'line',
        x: time.name,
        agg: 'count',
      },
      ...WIDE,
    },
  ];
  const measure = measures[0];
  if (measure !== undefined) {
    items.push({
      component: {
        component_id: id('time-mean'),
        type: 'figure',
        title: `${tag}: mean ${measure.name} by ${time.name}`,
        data_collection_id,
        chart: 'line',
        x: time.name,
        y: measure.name,
        agg: 'mean',
      },
      ...WIDE,
    });
  }
  return items;
}

/** A point map of latitude and longitude; a choropleth of a country column. */
function maps(id: (suffix: string) => string, table: OverviewTable, roles: ReturnType<typeof columnsByRole>): Sized[] {
  const { data_collection_id, tag } = table;
  const items: Sized[] = [];
  const [latitude] = roles.latitude;
  const [longitude] = roles.longitude;
  if (latitude !== undefined && longitude !== undefined) {
    const color = roles.category.find((column) => column.type === 'string');
    items.push({
      component: {
        component_id: id('points'),
        type: 'figure',
        title: `${tag}: where`,
        data_collection_id,
        chart: 'point_map',
        latitude: latitude.name,
        longitude: longitude.name,
        ...(color === undefined ? {} : { color: color.name }),
      },
      ...WIDE,
    });
  }
  const [country] = roles.country;
  if (country !== undefined) {
    items.push({
      component: {
        component_id: id('countries'),
        type: 'figure',
        title: `${tag}: rows by ${country.name}`,
        data_collection_id,
        chart: 'choropleth',
        region: country.name,
        agg: 'count',
      },
      ...WIDE,
    });
  }
  return items;
}

/** A histogram per measure and a bar of the counts per category (the first few of each). */
function distributions(
  id: (suffix: string) => string,
  table: OverviewTable,
  measures: readonly OverviewColumn[],
  categories: readonly OverviewColumn[],
): Sized[] {
  const { data_collection_id, tag } = table;
  const histograms: Sized[] = measures.slice(0, OVERVIEW_TABLE_LIMITS.histograms).map((column, n) => ({
    component: {
      component_id: id(`hist-${n + 1}`),
      type: 'figure',
      title: `${tag}: ${column.name}`,
      data_collection_id,
      chart: 'histogram',
      x: column.name,
    },
    ...CHART,
  }));
  const bars: Sized[] = categories.slice(0, OVERVIEW_TABLE_LIMITS.bars).map((column, n) => ({
    component: {
      component_id: id(`bar-${n + 1}`),
      type: 'figure',
      title: `${tag}: ${column.name}`,
      data_collection_id,
      chart: 'bar',
      x: column.name,
      agg: 'count',
    },
    ...CHART,
  }));
  return [...histograms, ...bars];
}

/** A scatter of each of the most correlated numeric pairs, coloured by the first category. */
function relationships(
  id: (suffix: string) => string,
  table: OverviewTable,
  categories: readonly OverviewColumn[],
): Sized[] {
  const { data_collection_id, tag } = table;
  const color = categories.find((column) => column.type === 'string');
  return [...table.correlations]
    .filter((pair) => Number.isFinite(pair.r) && Math.abs(pair.r) >= OVERVIEW_TABLE_LIMITS.correlation)
    .sort((a, b) => Math.abs(b.r) - Math.abs(a.r) || a.x.localeCompare(b.x) || a.y.localeCompare(b.y))
    .slice(0, OVERVIEW_TABLE_LIMITS.scatters)
    .map((pair, n) => ({
      component: {
        component_id: id(`scatter-${n + 1}`),
        type: 'figure',
        title: `${tag}: ${pair.y} by ${pair.x} (r = ${pair.r.toFixed(2)})`,
        data_collection_id,
        chart: 'scatter',
        x: pair.x,
        y: pair.y,
        ...(color === undefined ? {} : { color: color.name }),
      },
      ...WIDE,
    }));
}
