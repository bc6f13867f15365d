import {
  type CardAgg,
  type ChartType,
  type ComponentAgg,
  type InteractiveWidget,
  isRankedDistributionChart,
  type TableColumn,
} from '@service/common';
import { genomeTrackRoles } from './genome-track-roles.js';
import { rankedDistributionRoles } from './ranked-roles.js';

/** How a column can be used, from its Delta type name (`long`, `decimal(10,2)`, `array<string>`, …). */
export type ColumnKind = 'numeric' | 'temporal' | 'boolean' | 'text' | 'nested';

const NUMERIC = new Set(['long', 'integer', 'short', 'byte', 'float', 'double']);

export function columnKind(type: string): ColumnKind {
  if (NUMERIC.has(type) || type.startsWith('decimal')) return 'numeric';
  if (type === 'date' || type === 'timestamp' || type === 'timestamp_ntz') return 'temporal';
  if (type === 'boolean') return 'boolean';
  if (type === 'string') return 'text';
  return 'nested';
}

export type FigureRole =
  | 'x'
  | 'y'
  | 'z'
  | 'color'
  | 'size'
  | 'chromosome'
  | 'position'
  | 'p'
  | 'label'
  | 'tip'
  | 'row'
  | 'column'
  | 'value'
  | 'error'
  | 'sort_by'
  | 'region'
  | 'latitude'
  | 'longitude';

/** Every role, in the order the chart builder asks for them. */
export const FIGURE_ROLES: readonly FigureRole[] = [
  'region',
  'latitude',
  'longitude',
  'row',
  'column',
  'value',
  'chromosome',
  'position',
  'tip',
  'x',
  'y',
  'z',
  'p',
  'color',
  'size',
  'label',
  'error',
  'sort_by',
];

export interface RoleSpec {
  kinds: readonly ColumnKind[];
  required: boolean;
  /** What the role means for this chart, where the generic name would not say ("Fold change"). */
  label?: string;
}

const SCALAR: readonly ColumnKind[] = ['numeric', 'temporal', 'boolean', 'text'];
const MEASURE: readonly ColumnKind[] = ['numeric', 'temporal'];

/** The roles a chart reads, which of them it must have, and the kinds of columns each accepts. */
export function figureRoles(chart: ChartType, agg: ComponentAgg): Partial<Record<FigureRole, RoleSpec>> {
  // `count` counts rows; `count_distinct`, `min` and `max` work on any comparable value.
  const aggregated: readonly ColumnKind[] =
    agg === 'count_distinct' ? SCALAR : agg === 'min' || agg === 'max' ? MEASURE : ['numeric'];
  const needsMeasure = agg !== 'count';
  switch (chart) {
    case 'scatter':
      return {
        x: { kinds: MEASURE, required: true },
        y: { kinds: MEASURE, required: true },
        color: { kinds: SCALAR, required: false },
        size: { kinds: ['numeric'], required: false },
      };
    case 'line':
    case 'area':
    case 'bar':
      return {
        x: { kinds: SCALAR, required: true },
        y: { kinds: aggregated, required: needsMeasure },
        color: { kinds: SCALAR, required: false },
      };
    case 'histogram':
      return { x: { kinds: MEASURE, required: true }, color: { kinds: SCALAR, required: false } };
    case 'box':
    case 'violin':
      return { x: { kinds: SCALAR, required: false }, y: { kinds: ['numeric'], required: true } };
    case 'heatmap':
      return {
        x: { kinds: SCALAR, required: true },
        y: { kinds: SCALAR, required: true },
        color: { kinds: aggregated, required: needsMeasure },
      };
    case 'pie':
      return { color: { kinds: SCALAR, required: true }, y: { kinds: aggregated, required: needsMeasure } };
    case 'coverage':
    case 'tree':
      return genomeTrackRoles(chart);
    case 'choropleth':
      return {
        region: { kinds: ['text', 'numeric'], required: true, label: 'Country (ISO code or English name)' },
        y: { kinds: aggregated, required: needsMeasure, label: 'Value (aggregated per country)' },
      };
    case 'point_map':
      return {
        latitude: { kinds: NUMBER, required: true, label: 'Latitude (degrees)' },
        longitude: { kinds: NUMBER, required: true, label: 'Longitude (degrees)' },
        color: { kinds: SCALAR, required: false },
        size: { kinds: NUMBER, required: false },
      };
    case 'sunburst':
    case 'treemap':
    case 'sankey':
    case 'upset':
      // Lists of columns: HierarchySetFields asks for them.
      return {};
    case 'clustered_heatmap':
    case 'embedding':
    case 'rarefaction':
    case 'oncoplot':
      return sampleChartRoles(chart);
    default:
      return isRankedDistributionChart(chart) ? rankedDistributionRoles(chart, agg) : fieldChartRoles(chart);
  }
}

const NUMBER: readonly ColumnKind[] = ['numeric'];
const LABEL = { kinds: SCALAR, required: false, label: 'Label (names the top hits)' };

/** The field's charts read numbers, but for labels and chromosome names. */
function fieldChartRoles(chart: ChartType): Partial<Record<FigureRole, RoleSpec>> {
  switch (chart) {
    case 'volcano':
      return {
        x: { kinds: NUMBER, required: true, label: 'Fold change (x)' },
        y: { kinds: NUMBER, required: true, label: 'p or q value (drawn as −log10)' },
        label: LABEL,
      };
    case 'ma':
      return {
        x: { kinds: NUMBER, required: true, label: 'Mean (x)' },
        y: { kinds: NUMBER, required: true, label: 'Fold change (y)' },
        p: { kinds: NUMBER, required: false, label: 'p or q value (classes the points)' },
        label: LABEL,
      };
    case 'manhattan':
      return {
        chromosome: { kinds: ['text', 'numeric'], required: true, label: 'Chromosome' },
        position: { kinds: NUMBER, required: true, label: 'Position' },
        y: { kinds: NUMBER, required: true, label: 'p value' },
      };
    case 'qq':
      return { y: { kinds: NUMBER, required: true, label: 'p values' } };
    default:
      return {};
  }
}

/**
 * The charts of samples' single columns (their lists of columns: SampleChartFields.tsx). A
 * heatmap reads a long table's `column` and `value`, or a wide one's `matrix_columns`; an
 * embedding `x` and `y`, or `pca_columns`: neither pair is required on its own.
 */
function sampleChartRoles(
  chart: 'clustered_heatmap' | 'embedding' | 'rarefaction' | 'oncoplot',
): Partial<Record<FigureRole, RoleSpec>> {
  switch (chart) {
    case 'clustered_heatmap':
      return {
        row: { kinds: SCALAR, required: true, label: 'Row labels' },
        column: { kinds: SCALAR, required: false, label: 'Column labels (a long table)' },
        value: { kinds: NUMBER, required: false, label: 'Cell value (a long table)' },
      };
    case 'embedding':
      return {
        x: { kinds: NUMBER, required: false, label: 'First coordinate (x), or PCA below' },
        y: { kinds: NUMBER, required: false, label: 'Second coordinate (y)' },
        color: { kinds: SCALAR, required: false, label: 'Color (groups)' },
        z: { kinds: NUMBER, required: false, label: 'Third coordinate (z: 3-D, drawn as three pairs)' },
        label: { kinds: SCALAR, required: false, label: 'Point id (a brush selects these)' },
      };
    case 'rarefaction':
      return {
        x: { kinds: NUMBER, required: true, label: 'Depth (x)' },
        y: { kinds: NUMBER, required: true, label: 'Metric (y)' },
        color: { kinds: SCALAR, required: false, label: 'A curve per (sample or group)' },
      };
    case 'oncoplot':
      return {
        x: { kinds: SCALAR, required: true, label: 'Sample' },
        y: { kinds: SCALAR, required: true, label: 'Gene' },
        color: { kinds: SCALAR, required: true, label: 'Alteration' },
      };
  }
}

/** Charts whose numbers are an aggregate of `y` (or `color`, for heatmaps) per group. */
export function chartAggregates(chart: ChartType): boolean {
  return (
    chart === 'line' ||
    chart === 'area' ||
    chart === 'bar' ||
    chart === 'heatmap' ||
    chart === 'pie' ||
    chart === 'funnel' ||
    chart === 'choropleth'
  );
}

/** Columns a card's aggregate can read. */
export function cardColumnKinds(agg: CardAgg): readonly ColumnKind[] {
  if (['count', 'count_distinct', 'nunique', 'mode', 'first', 'last'].includes(agg)) return SCALAR;
  if (agg === 'min' || agg === 'max') return MEASURE;
  return ['numeric'];
}

/** Columns each filter widget works on. */
export const WIDGET_KINDS: Record<InteractiveWidget, readonly ColumnKind[]> = {
  select: SCALAR,
  multiselect: SCALAR,
  range: ['numeric'],
  date_range: ['temporal'],
  switch: ['boolean'],
  search: ['text'],
};

/** The columns of `columns` whose kind is one of `kinds`, as select options. */
export function fittingColumns(columns: readonly TableColumn[], kinds: readonly ColumnKind[]) {
  return columns
    .filter((column) => kinds.includes(columnKind(column.type)))
    .map((column) => ({ value: column.name, label: `${column.name} (${column.type})` }));
}
