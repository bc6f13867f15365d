import type {
  CardAgg,
  CardComponent,
  ComponentAgg,
  FigureComponent,
  InteractiveComponent,
  RankedDistributionChart,
} from '@service/common';
import { type Column, isNumeric, type Output, outputOf } from '../sql/columns.js';
import { finiteOrNull, measuredSql } from '../sql/finite.js';
import type { SharedScalars } from '../sql/narrowed.js';
import type { WholeTableMemo } from '../sql/whole-table.js';
import type { TreeInput } from './newick.js';

/** The components that compute something from a collection's rows (tables only page them). */
export type AnalyticComponent = FigureComponent | CardComponent | InteractiveComponent;

/** What a component needs of a column it reads. */
type Need = 'simple' | 'numeric' | 'plottable' | 'temporal' | 'boolean' | 'flag';

const NEEDS: Record<Need, { fits: (column: Column) => boolean; what: string }> = {
  simple: { fits: (column) => column.kind !== 'nested', what: 'a column of a simple type' },
  numeric: { fits: isNumeric, what: 'a numeric column' },
  plottable: { fits: (column) => isNumeric(column) || isTemporal(column), what: 'a numeric, date or timestamp column' },
  temporal: { fits: (column) => isTemporal(column), what: 'a date or timestamp column' },
  boolean: { fits: (column) => column.kind === 'boolean', what: 'a boolean column' },
  flag: { fits: (column) => column.kind === 'boolean' || isNumeric(column), what: 'a 0/1 or boolean column' },
};

export const isTemporal = (column: Column) => column.kind === 'date' || column.kind === 'timestamp';

/** One column a component reads: the field naming it, and what the component does with it. */
interface Use {
  field: string;
  column: string;
  need: Need;
  why: string;
}

/** A column a component names that its table lacks or cannot serve. */
export interface FitProblem {
  code: 'unknown_column' | 'unsuitable_column';
  field: string;
  message: string;
}

/** Aggregates that measure (their column must hold numbers); the others take any simple column. */
const MEASURING_AGGS: ReadonlySet<CardAgg> = new Set<CardAgg>([
  'sum',
  'mean',
  'median',
  'std',
  'variance',
  'percentile',
  'range',
]);

/** What an aggregate needs of its column (`count` of rows needs none). */
function aggNeed(agg: CardAgg): Need {
  return MEASURING_AGGS.has(agg) ? 'numeric' : 'simple';
}

/** A card's aggregated column, the column ordering `first`/`last`, and a sparkline's dates. */
function cardUses(card: CardComponent): Use[] {
  const uses: Use[] = [];
  if (card.column !== undefined)
    uses.push({ field: 'column', column: card.column, need: aggNeed(card.agg), why: `${card.agg} needs` });
  if (card.order_by !== undefined) {
    uses.push({ field: 'order_by', column: card.order_by, need: 'simple', why: `${card.agg} needs` });
  }
  if (card.sparkline?.over === 'column') {
    uses.push({ field: 'sparkline.column', column: card.sparkline.column, need: 'temporal', why: 'a sparkline needs' });
  }
  return uses;
}

function usesOf(component: AnalyticComponent): Use[] {
  if (component.type === 'card') return cardUses(component);
  if (component.type === 'interactive') return interactiveUses(component);
  return figureUses(component);
}

/** A filter widget's column: numbers for a range, dates for a date range, booleans for a switch. */
function interactiveUses(component: InteractiveComponent): Use[] {
  const need: Need =
    component.widget === 'range'
      ? 'numeric'
      : component.widget === 'date_range'
        ? 'temporal'
        : component.widget === 'switch'
          ? 'boolean'
          : 'simple';
  const why = `a ${component.widget} filter needs`;
  return component.column === undefined ? [] : [{ field: 'column', column: component.column, need, why }];
}

/** What each chart kind needs of its columns. */
function figureUses(component: FigureComponent): Use[] {
  const uses: Use[] = [];
  const use = (field: string, column: string | undefined, need: Need, why: string) => {
    if (column !== undefined) uses.push({ field, column, need, why });
  };
  const agg = component.agg ?? 'count';
  const aggregated = (field: 'y' | 'color') => {
    if (agg !== 'count') use(field, component[field], aggNeed(agg), `${agg} needs`);
  };
  const chart = `a ${component.chart} chart needs`;
  switch (component.chart) {
    case 'scatter':
      use('x', component.x, 'plottable', chart);
      use('y', component.y, 'plottable', chart);
      use('color', component.color, 'simple', chart);
      use('size', component.size, 'numeric', chart);
      break;
    case 'line':
    case 'area':
    case 'bar':
      if (component.time_grain === undefined) use('x', component.x, 'simple', chart);
      else use('x', component.x, 'temporal', 'a time grain needs');
      aggregated('y');
      use('color', component.color, 'simple', chart);
      break;
    case 'histogram':
      use('x', component.x, component.log_x ? 'numeric' : 'plottable', component.log_x ? 'log bins need' : chart);
      use('color', component.color, 'simple', chart);
      break;
    case 'box':
    case 'violin':
      use('y', component.y, 'numeric', chart);
      use('x', component.x, 'simple', chart);
      break;
    case 'heatmap':
      use('x', component.x, 'simple', chart);
      use('y', component.y, 'simple', chart);
      aggregated('color');
      break;
    case 'pie':
      use('color', component.color, 'simple', chart);
      aggregated('y');
      break;
    case 'sunburst':
    case 'treemap':
    case 'sankey':
    case 'upset':
      uses.push(...hierarchySetUses(component, chart));
      break;
    case 'clustered_heatmap':
    case 'embedding':
    case 'rarefaction':
    case 'oncoplot':
      uses.push(...sampleChartUses(component, chart));
      break;
    case 'lollipop':
    case 'diverging_bar':
    case 'dot':
    case 'stacked_bar':
    case 'strip':
    case 'ecdf':
    case 'density_contour':
    case 'funnel':
      uses.push(...rankedDistributionUses(component, component.chart, chart));
      break;
    case 'choropleth':
      use('region', component.region, 'simple', chart);
      aggregated('y');
      break;
    case 'point_map':
      use('latitude', component.latitude, 'numeric', chart);
      use('longitude', component.longitude, 'numeric', chart);
      use('color', component.color, 'simple', chart);
      use('size', component.size, 'numeric', chart);
      break;
    default:
      uses.push(...fieldChartUses(component, chart));
  }
  return uses;
}

/** Clustered heatmaps, embeddings, rarefaction curves and oncoplots: numbers where they measure. */
function sampleChartUses(component: FigureComponent, chart: string): Use[] {
  const uses: Use[] = [];
  const use = (field: string, column: string | undefined, need: Need) => {
    if (column !== undefined) uses.push({ field, column, need, why: chart });
  };
  const measured = component.chart === 'embedding' || component.chart === 'rarefaction';
  use('x', component.x, measured ? 'numeric' : 'simple');
  use('y', component.y, measured ? 'numeric' : 'simple');
  use('color', component.color, 'simple');
  use('label', component.label, 'simple');
  use('z', component.z, 'numeric');
  use('row', component.row, 'simple');
  use('column', component.column, 'simple');
  use('value', component.value, 'numeric');
  const lists = [
    ['matrix_columns', 'numeric'],
    ['annotations', 'simple'],
    ['pca_columns', 'numeric'],
  ] as const;
  for (const [field, need] of lists) {
    for (const [index, column] of (component[field] ?? []).entries()) use(`${field}[${index}]`, column, need);
  }
  return uses;
}

/** The columns of the field's charts: numbers, but for labels and chromosome names. */
function fieldChartUses(component: FigureComponent, chart: string): Use[] {
  const fields = ['x', 'y', 'p', 'label', 'chromosome', 'position', 'color', 'tip'] as const;
  return fields.flatMap((field): Use[] => {
    const column = component[field];
    if (column === undefined) return [];
    const need: Need = ['label', 'chromosome', 'color', 'tip'].includes(field) ? 'simple' : 'numeric';
    return [{ field, column, need, why: chart }];
  });
}

/** Sunburst, treemap, sankey: levels of any simple type, a numeric value; UpSet: 0/1 or boolean sets. */
function hierarchySetUses(component: FigureComponent, why: string): Use[] {
  const listed = (field: 'levels' | 'sets', need: Need) =>
    (component[field] ?? []).map((column, index): Use => ({ field: `${field}[${index}]`, column, need, why }));
  const single = (field: 'value' | 'item' | 'set', need: Need): Use[] => {
    const column = component[field];
    return column === undefined ? [] : [{ field, column, need, why }];
  };
  return [
    ...listed('levels', 'simple'),
    ...single('value', 'numeric'),
    ...listed('sets', 'flag'),
    ...single('item', 'simple'),
    ...single('set', 'simple'),
  ];
}

type RankedField = 'x' | 'y' | 'color' | 'size' | 'error' | 'sort_by';

/** Ranked effects, dots, stacked bars, strips, ECDFs, densities, funnels: what each field must hold. */
const RANKED_DISTRIBUTION_NEEDS: Record<RankedDistributionChart, Partial<Record<RankedField, Need>>> = {
  lollipop: { x: 'simple', y: 'numeric', error: 'numeric' },
  diverging_bar: { x: 'simple', y: 'numeric' },
  dot: { x: 'simple', y: 'simple', size: 'numeric', color: 'numeric' },
  stacked_bar: { x: 'simple', color: 'simple', y: 'numeric', sort_by: 'simple' },
  strip: { x: 'numeric', y: 'simple', color: 'simple' },
  ecdf: { x: 'numeric', color: 'simple' },
  density_contour: { x: 'numeric', y: 'numeric' },
  funnel: { x: 'simple' },
};

function rankedDistributionUses(component: FigureComponent, chart: RankedDistributionChart, why: string): Use[] {
  const needs = Object.entries(RANKED_DISTRIBUTION_NEEDS[chart]) as [RankedField, Need][];
  // A funnel's y is read by its aggregate only (a count reads none).
  const agg = component.agg ?? 'count';
  if (chart === 'funnel' && agg !== 'count') needs.push(['y', aggNeed(agg)]);
  return needs.flatMap(([field, need]): Use[] => {
    const column = component[field];
    return column === undefined ? [] : [{ field, column, need, why }];
  });
}

/** Whether a component's columns exist in a table's schema with a type it can use. */
export function fitProblems(byName: ReadonlyMap<string, Column>, component: AnalyticComponent): FitProblem[] {
  return usesOf(component).flatMap((use): FitProblem[] => {
    const column = byName.get(use.column);
    if (column === undefined) {
      return [
        {
          code: 'unknown_column',
          field: use.field,
          message: `the table has no column ${JSON.stringify(use.column)}`,
        },
      ];
    }
    const need = NEEDS[use.need];
    if (need.fits(column)) return [];
    return [
      {
        code: 'unsuitable_column',
        field: use.field,
        message: `${use.why} ${need.what}; ${column.name} is ${column.typeName}`,
      },
    ];
  });
}

/**
 * Rows up to which medians, quartiles and whiskers are exact: `quantile_cont` holds every value
 * in memory, so beyond it they come from `approx_quantile` (a t-digest of bounded size) and the
 * figure says `sampled`.
 */
export const EXACT_QUANTILE_ROWS = 20_000_000;

/** Rows under the filters up to which a box plot's quartiles are exact (`Config.dashboards`). */
export const EXACT_BOX_VALUES = 1_000_000;

/** How a component's data is computed beyond its definition. */
export interface ComputeOptions {
  exactQuantileRows: number;
  exactBoxValues: number;
  /** Whole-table numbers already computed for a snapshot. */
  memo: WholeTableMemo;
  /** Aggregates the request computed once for several of its components. */
  shared?: SharedScalars;
  /** A tree figure's tree file, parsed. */
  tree?: TreeInput;
}

/** Whether medians over a table are approximate (its rows beyond the exact threshold). */
export function approximateOver(source: { version: { rows: number | null } | null }, options: ComputeOptions): boolean {
  return (source.version?.rows ?? 0) > options.exactQuantileRows;
}

/** An aggregate's SQL (optionally over the rows `filter` keeps), cast so its output type is known. */
export interface AggSql {
  sql: string;
  /** The Delta type of the result. */
  type: string;
  output: Output;
}

export function aggSql(agg: ComponentAgg, column: Column | null, filter?: string, approximate = false): AggSql {
  const where = filter === undefined ? '' : ` FILTER (WHERE ${filter})`;
  if (agg === 'count' || column === null) {
    return { sql: `count(${column === null ? '*' : column.sql})${where}`, type: 'long', output: 'integer' };
  }
  const c = column.sql;
  const m = measuredSql(column);
  switch (agg) {
    case 'count_distinct':
      return { sql: `count(DISTINCT ${c})${where}`, type: 'long', output: 'integer' };
    case 'sum':
      return column.kind === 'integer'
        ? { sql: `CAST(sum(${c})${where} AS HUGEINT)`, type: 'long', output: 'integer' }
        : { sql: finiteOrNull(`CAST(sum(${m})${where} AS DOUBLE)`), type: 'double', output: 'plain' };
    case 'mean':
      return { sql: finiteOrNull(`CAST(avg(${m})${where} AS DOUBLE)`), type: 'double', output: 'plain' };
    case 'median':
      // Interpolated between the two middle values, as pandas and numpy do.
      return {
        sql: finiteOrNull(`CAST(${approximate ? 'approx_quantile' : 'quantile_cont'}(${m}, 0.5)${where} AS DOUBLE)`),
        type: 'double',
        output: 'plain',
      };
    case 'min':
    case 'max':
      return { sql: `${agg}(${m})${where}`, type: column.typeName, output: outputOf(column.kind) };
  }
}
