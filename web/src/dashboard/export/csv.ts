import {
  type CardData,
  type FigureComponent,
  type FigureData,
  heatmapCellRows,
  isRankedDistributionChart,
  neutraliseCsvCell,
} from '@service/common';

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote, line break or edge space; text a
 * spreadsheet would run as a formula is neutralised (common's `neutraliseCsvCell`).
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const shown = typeof value === 'object' ? JSON.stringify(value) : String(value);
  const text = typeof value === 'string' ? neutraliseCsvCell(shown) : shown;
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A header line and one line per row, CRLF-separated as RFC 4180 has it. */
export function toCsv(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return [header, ...rows]
    .map((row) => row.map(csvField).join(','))
    .join('\r\n')
    .concat('\r\n');
}

/** Figure roles that show a table column as it is (not an aggregate of it). */
const PLAIN_ROLES = new Set(['x', 'color', 'size']);

/** The field's charts show their columns as they are (and −log10 of the p value). */
const FIELD_CHARTS = new Set<FigureComponent['chart']>(['volcano', 'ma', 'manhattan', 'qq']);
const HIERARCHY_SET_CHARTS = new Set<FigureComponent['chart']>(['sunburst', 'treemap', 'sankey', 'upset']);
const FIELD_PLAIN_ROLES = new Set(['x', 'y', 'p', 'label', 'chromosome', 'position']);

function fieldHeader(name: string, column: string | null): string {
  if (column === null) return name;
  if (FIELD_PLAIN_ROLES.has(name)) return column;
  return name === 'minus_log10_y' ? `minus_log10_${column}` : name;
}

/** A coverage track's buckets: `pos_low`, `pos_high`, `min_depth`, `max_depth`, `mean_depth`. */
function coverageHeader(name: string, column: string | null): string {
  if (column === null || name === 'color') return column ?? name;
  return name === 'x_low' || name === 'x_high' ? `${column}_${name.slice(2)}` : `${name}_${column}`;
}

const SAMPLE_CHARTS = new Set<FigureComponent['chart']>(['clustered_heatmap', 'embedding', 'rarefaction', 'oncoplot']);

/** Clustered heatmaps, embeddings, rarefaction curves and oncoplots: their columns, PCs, z-scores, means. */
function sampleHeader(
  component: Pick<FigureComponent, 'chart' | 'scale'>,
  name: string,
  column: string | null,
): string {
  if (component.chart === 'embedding' && column === null) return name === 'x' ? 'PC1' : name === 'y' ? 'PC2' : name;
  if (component.chart === 'clustered_heatmap' && name === 'value' && component.scale === 'row') return 'z_score';
  if (component.chart === 'rarefaction' && column !== null && name !== 'x' && name !== 'color') {
    return `${name}_${column}`;
  }
  return column ?? name;
}

/**
 * Ranked effects, dots, stacks, strips, ECDFs, densities: a column as it is, a mean of it
 * (`mean_lfc`), a stack's share (`percent_abundance`), or the chart's own name (`share`, `density`).
 */
function rankedHeader(
  component: Pick<FigureComponent, 'chart' | 'agg' | 'normalize'>,
  name: string,
  column: string | null,
) {
  if (column === null) return name === 'size' || (name === 'y' && component.chart === 'stacked_bar') ? 'rows' : name;
  const averaged = ['lollipop', 'diverging_bar', 'dot'].includes(component.chart) && name !== 'x' && name !== 'y';
  if (averaged || (name === 'y' && (component.chart === 'lollipop' || component.chart === 'diverging_bar'))) {
    return `mean_${column}`;
  }
  if (name === 'y' && component.chart === 'stacked_bar')
    return `${component.normalize === false ? 'sum' : 'percent'}_${column}`;
  if (name === 'y' && component.chart === 'funnel') return `${component.agg ?? 'count'}_${column}`;
  return column;
}

/**
 * A figure's rows as drawn (aggregated, binned or sampled on the server), in its columns' order,
 * headed by what each holds: the table's column (`species`), an aggregate of it (`mean_mass`), or
 * the figure's own name (`count`, `x_low`, `median`).
 */
export function figureCsv(
  component: Pick<FigureComponent, 'chart' | 'agg' | 'scale' | 'normalize'>,
  data: FigureData,
): string {
  const header = data.columns.map(({ name, column }) => {
    if (FIELD_CHARTS.has(component.chart)) return fieldHeader(name, column);
    if (component.chart === 'coverage') return coverageHeader(name, column);
    // Sunburst, treemap: a leaf's levels by their columns; sankey `level, from, to`; UpSet `sets, count`.
    if (HIERARCHY_SET_CHARTS.has(component.chart)) return column ?? (name === 'value' ? 'count' : name);
    if (SAMPLE_CHARTS.has(component.chart)) return sampleHeader(component, name, column);
    if (isRankedDistributionChart(component.chart)) return rankedHeader(component, name, column);
    // A count needs no column: the figure's `y` is then the count itself.
    if (column === null) return name === 'y' ? (component.agg ?? 'count') : name;
    if (PLAIN_ROLES.has(name) || (name === 'y' && component.chart === 'scatter')) return column;
    if (name === 'y') return `${component.agg ?? 'count'}_${column}`;
    return name;
  });
  // A clustered heatmap sends its cells as a matrix: a row per drawn cell, as the columns name them.
  return toCsv(header, component.chart === 'clustered_heatmap' ? heatmapCellRows(data) : data.rows);
}

/** A card's number beside the same on the unfiltered table. */
export function cardCsv(label: string, data: CardData): string {
  return toCsv(['label', 'value', 'unfiltered_value'], [[label, data.value, data.unfiltered_value]]);
}

/** A file name from a component's title (or id): letters, digits, `.`, `_` and `-`; never empty. */
export function exportFilename(name: string, extension: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[_.]+|_+$/g, '')
    .slice(0, 80);
  return `${base || 'component'}.${extension}`;
}
