import type { FigureComponent } from '../dashboard-components.js';
import type { DashboardFilterScalar, DashboardFilterValue, FigureData } from '../dashboard-data.js';
import { BRUSH_FILTER_CHARTS, CLICK_FILTER_CHARTS } from '../dashboard-data.js';
import { isRankedDistributionChart } from '../figure-fields/ranked-distributions.js';
import { chartInput } from './body.js';
import { barModel, lineXKind } from './cartesian.js';
import { clickedHeatmapRow, selectedHeatmapCells } from './clustered-heatmap.js';
import { Categories, FigureColumns, rounded } from './columns.js';
import { selectedRegions } from './maps.js';
import { PALETTES } from './palette.js';
import { rankedClickedValue, rankedSelected } from './ranked.js';
import { clickedOncoplotGene } from './sample-plots.js';

/** What ECharts says about a clicked item (its `click` event's parameters). */
export interface ChartClick {
  seriesIndex?: number;
  dataIndex?: number;
  /** The clicked item's own option (a tree's node). */
  data?: unknown;
}

/** What ECharts says about a brush (its `brushEnd` / `brushSelected` areas). */
export interface ChartBrushArea {
  coordRange?: unknown;
}

function asScalar(value: unknown): DashboardFilterScalar | null {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return null;
}

/**
 * The category a click on a bar (its x) or a pie slice (its color) filters by, as the table holds
 * it, or undefined when the click filters nothing: the folded "Other", or a chart that is not clicked.
 */
export function clickedCategory(
  component: FigureComponent,
  data: FigureData,
  click: ChartClick,
): { value: DashboardFilterScalar | null } | undefined {
  if (!CLICK_FILTER_CHARTS.includes(component.chart) || component.chart === 'tree' || click.dataIndex === undefined)
    return undefined;
  if (component.chart === 'clustered_heatmap') {
    const row = clickedHeatmapRow(data, click);
    return row === undefined ? undefined : { value: asScalar(row) };
  }
  if (component.chart === 'oncoplot') {
    const gene = clickedOncoplotGene(data, click);
    return gene === undefined ? undefined : { value: asScalar(gene) };
  }
  if (isRankedDistributionChart(component.chart)) {
    const hit = rankedClickedValue(component, data, click);
    return hit === undefined ? undefined : { value: asScalar(hit.value) };
  }
  if (component.chart === 'pie') {
    const columns = new FigureColumns(data);
    const row = data.rows[click.dataIndex];
    if (row === undefined || columns.isOther(row)) return undefined;
    return { value: asScalar(columns.value(row, 'color')) };
  }
  const { categories } = barModel(chartInput(component, data, PALETTES.light));
  if (click.dataIndex >= categories.size || categories.others[click.dataIndex]) return undefined;
  return { value: asScalar(categories.values[click.dataIndex]) };
}

/**
 * A click filter's next value: the category added to the selected ones, or taken out when it was
 * there; null when none is left (the filter goes).
 */
export function toggleCategory(
  current: DashboardFilterValue | null | undefined,
  category: DashboardFilterScalar | null,
): DashboardFilterValue | null {
  const selected = Array.isArray(current) ? current : [];
  const next = selected.some((value) => value === category)
    ? selected.filter((value) => value !== category)
    : [...selected, category];
  return next.length === 0 ? null : next;
}

/**
 * A brushed range of x as the filter's `[low, high]` in the table's terms (numbers, ISO dates or
 * timestamps, or the categories at either end), or null when the brush was cleared.
 */
export function brushedRange(
  component: FigureComponent,
  data: FigureData,
  areas: readonly ChartBrushArea[] | undefined,
): [DashboardFilterScalar, DashboardFilterScalar] | null {
  if (!BRUSH_FILTER_CHARTS.includes(component.chart)) return null;
  const range = areas?.[0]?.coordRange;
  if (!Array.isArray(range) || range.length !== 2) return null;
  const [from, to] = range.map(Number).sort((a, b) => a - b) as [number, number];
  if (!Number.isFinite(from) || !Number.isFinite(to)) return null;
  const columns = new FigureColumns(data);
  const role = component.chart === 'histogram' || component.chart === 'coverage' ? 'x_low' : 'x';
  const kind =
    component.chart === 'line' || component.chart === 'area' ? lineXKind(columns, data.rows) : columns.axisKind(role);
  if (kind === 'category') {
    // A category axis brushes from one category's index to another's.
    const categories = new Categories();
    for (const row of data.rows) categories.add(columns.value(row, role));
    const low = asScalar(categories.values[Math.max(0, Math.round(from))]);
    const high = asScalar(categories.values[Math.min(categories.size - 1, Math.round(to))]);
    return low === null || high === null ? null : [low, high];
  }
  if (kind === 'time') {
    const dateOnly = /^date$/i.test(columns.column(role)?.type ?? '');
    return [timeBound(from, dateOnly), timeBound(to, dateOnly)];
  }
  return [rounded(from) ?? from, rounded(to) ?? to];
}

/** A time axis position (ms) as the table writes it; dates as the local day ECharts drew them on. */
function timeBound(ms: number, dateOnly: boolean): string {
  const time = new Date(ms);
  if (!dateOnly) return time.toISOString();
  const pad = (part: number) => String(part).padStart(2, '0');
  return `${time.getFullYear()}-${pad(time.getMonth() + 1)}-${pad(time.getDate())}`;
}

/**
 * The data items a click filter selects, to highlight them: a bar chart's category rows (every
 * series shares them) or a pie's slices. Empty without a list filter.
 */
export function selectedIndices(
  component: FigureComponent,
  data: FigureData,
  value: DashboardFilterValue | null | undefined,
): number[] {
  if (component.chart === 'choropleth') {
    // A country's row is its item of the map series.
    const selected = new Set(selectedRegions(data, value));
    const columns = new FigureColumns(data);
    return data.rows.flatMap((row, index) => (selected.has(String(columns.value(row, 'region'))) ? [index] : []));
  }
  if (!Array.isArray(value) || !CLICK_FILTER_CHARTS.includes(component.chart) || component.chart === 'tree') return [];
  const chosen = (raw: unknown) => value.some((item) => item === (raw ?? null));
  if (component.chart === 'clustered_heatmap') return selectedHeatmapCells(data, chosen);
  // An oncoplot's cells stay as drawn (the chip says which genes filter).
  if (component.chart === 'oncoplot') return [];
  if (isRankedDistributionChart(component.chart)) return rankedSelected(component, data, chosen);
  if (component.chart === 'pie') {
    const columns = new FigureColumns(data);
    return data.rows.flatMap((row, index) =>
      !columns.isOther(row) && chosen(columns.value(row, 'color')) ? [index] : [],
    );
  }
  const { categories } = barModel(chartInput(component, data, PALETTES.light));
  return categories.values.flatMap((raw, index) => (!categories.others[index] && chosen(raw) ? [index] : []));
}
