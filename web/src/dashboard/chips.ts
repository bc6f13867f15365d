import {
  CLICK_FILTER_CHARTS,
  type DashboardComponent,
  type DashboardFilter,
  type DashboardFilterValue,
  describeItemFilter,
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
      if (isRankedDistributionChart(component.chart)) {
        return rankedDistributionFilterColumn(component) ?? component.component_id;
      }
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
    return [{ componentId: component_id, text: `${componentLabel(component)}: ${describeValue(component, value)}` }];
  });
}
