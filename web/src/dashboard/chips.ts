import {
  brushesGenome,
  CLICK_FILTER_CHARTS,
  type DashboardComponent,
  type DashboardFilter,
  type DashboardFilterValue,
  describeGenomicInterval,
  describeItemFilter,
  type FigureComponent,
  isHierarchySetChart,
  isRankedDistributionChart,
  rankedDistributionFilterColumn,
} from '@service/common';
import { formatCount } from '../format/number.js';

/** Values a chip lists before it says how many more there are. */
const SHOWN_VALUES = 3;

/** A number as the dashboard writes it: thousands separated, at most three significant decimals. */
export function formatNumber(value: number): string {
  if (Number.isInteger(value)) return formatCount(value);
  if (Math.abs(value) >= 1000) return formatCount(Math.round(value));
  return String(Number(value.toPrecision(3)));
}

/** One value of a filter or an option, as shown. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '(empty)';
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

/** What a component is called on a chip: its title, else the column it shows or filters. */
export function componentLabel(component: DashboardComponent): string {
  if (component.title) return component.title;
  switch (component.type) {
    case 'interactive':
      return component.column;
    case 'figure':
      if (isHierarchySetChart(component.chart)) return component.chart;
      if (clickedColumn(component) !== undefined) return clickedColumn(component) ?? component.component_id;
      return (component.chart === 'pie' ? component.color : component.x) ?? component.component_id;
    case 'multiqc':
      return component.plot;
    default:
      return component.component_id;
  }
}

/** A filter's value in words: "Adelie, Gentoo", "3,000–4,500", "≥ 3,000", "yes", "“bis”". */
export function describeValue(component: DashboardComponent, value: DashboardFilterValue): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return `“${value}”`;
  if (component.type === 'figure' && isHierarchySetChart(component.chart))
    return describeItemFilter(component.chart, value);
  const isRange =
    (component.type === 'interactive' && (component.widget === 'range' || component.widget === 'date_range')) ||
    (component.type === 'figure' && !CLICK_FILTER_CHARTS.includes(component.chart));
  if (isRange) {
    const [low, high] = value;
    if (low === null || low === undefined) return `≤ ${formatValue(high)}`;
    if (high === null || high === undefined) return `≥ ${formatValue(low)}`;
    return `${formatValue(low)}–${formatValue(high)}`;
  }
  const shown = value.slice(0, SHOWN_VALUES).map(formatValue).join(', ');
  return value.length > SHOWN_VALUES ? `${shown} and ${value.length - SHOWN_VALUES} more` : shown;
}

/** The column a click on one of the field's charts filters by (a heatmap row, a dot's term, a tree's tips). */
function clickedColumn(figure: FigureComponent): string | undefined {
  if (figure.chart === 'clustered_heatmap') return figure.row;
  if (figure.chart === 'tree') return figure.tip;
  if (figure.chart === 'oncoplot') return figure.y;
  if (figure.chart === 'choropleth') return figure.region;
  if (isRankedDistributionChart(figure.chart)) return rankedDistributionFilterColumn(figure);
  return undefined;
}

/** Each brushed side of an embedding's rectangle: its column and range. */
function boxChip(component: FigureComponent, value: readonly unknown[]): string {
  const axes =
    component.chart === 'point_map'
      ? [component.longitude, component.latitude]
      : [component.x, component.y, component.z];
  return axes
    .flatMap((column, index) => {
      const [low, high] = [value[index * 2], value[index * 2 + 1]];
      if (column === undefined || (low == null && high == null)) return [];
      if (low == null) return [`${column} ≤ ${formatValue(high)}`];
      return [high == null ? `${column} ≥ ${formatValue(low)}` : `${column} ${formatValue(low)}–${formatValue(high)}`];
    })
    .join(', ');
}

/** "Phylum = Acidobacteria"; several values "Phylum = A, B, C or 2 more". */
function equalsChip(column: string, values: readonly unknown[]): string {
  const shown = values.slice(0, SHOWN_VALUES).map(formatValue);
  const more = values.length - SHOWN_VALUES;
  if (more > 0) return `${column} = ${shown.join(', ')} or ${more} more`;
  if (shown.length <= 1) return `${column} = ${shown.join('')}`;
  return `${column} = ${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`;
}

/**
 * A click on a category of the field's charts reads as the value it keeps, named by its column
 * ("Phylum = Acidobacteria", "Kingdom = Bacteria › Phylum = Firmicutes"), not as the component's
 * range; undefined for the other filters.
 */
export function valueChip(component: DashboardComponent, value: DashboardFilterValue): string | undefined {
  // A table's selected rows, by the column that names them when the table says which.
  if (component.type === 'table' && component.select_by !== undefined && Array.isArray(value)) {
    return equalsChip(component.select_by, value);
  }
  if (component.type !== 'figure' || !Array.isArray(value)) return undefined;
  if (brushesGenome(component)) return describeGenomicInterval(value);
  const levels = component.levels ?? [];
  const level = (index: number) => levels[index] ?? `level ${index + 1}`;
  switch (component.chart) {
    case 'sunburst':
    case 'treemap':
      return value.map((item, index) => `${level(index)} = ${formatValue(item)}`).join(' › ');
    case 'sankey': {
      const first = Number(value[0]);
      return value
        .slice(1)
        .map((item, index) => `${level(first + index)} = ${formatValue(item)}`)
        .join(' → ');
    }
    case 'upset':
      return `${component.set ?? 'sets'} = exactly ${value.map(formatValue).join(' & ')}`;
  }
  // A brushed PCA with ids: "sample = S1, S2, S3 or 40 more".
  if (component.chart === 'embedding' && component.pca_columns !== undefined && component.label !== undefined) {
    return equalsChip(component.label, value);
  }
  // A rectangle brushed over an embedding: "dim_1 0.1–0.3, dim_2 −0.2–0.4".
  if ((component.chart === 'embedding' || component.chart === 'point_map') && value.length > 2) {
    return boxChip(component, value);
  }
  // A clicked country: "country = FRA, France or fr".
  if (component.chart === 'choropleth') return equalsChip(component.region ?? 'region', value);
  const column = clickedColumn(component);
  return column === undefined || !CLICK_FILTER_CHARTS.includes(component.chart) ? undefined : equalsChip(column, value);
}

export interface FilterChip {
  componentId: string;
  /** "Species: Adelie, Gentoo". */
  text: string;
}

/** The chips of the active filters, in the order they were set. */
export function filterChips(
  filters: readonly DashboardFilter[],
  components: readonly DashboardComponent[],
): FilterChip[] {
  const byId = new Map(components.map((component) => [component.component_id, component]));
  return filters.flatMap(({ component_id, value }) => {
    const component = byId.get(component_id);
    if (component === undefined) return [];
    const text = valueChip(component, value) ?? `${componentLabel(component)}: ${describeValue(component, value)}`;
    return [{ componentId: component_id, text }];
  });
}
