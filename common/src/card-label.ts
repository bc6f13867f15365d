import type { CardAgg } from './card-fields.js';
import type { CardComponent } from './dashboard-components.js';

const AGG_LABEL: Record<Exclude<CardAgg, 'percentile'>, string> = {
  count: 'rows',
  sum: 'sum of',
  mean: 'mean',
  median: 'median',
  min: 'min',
  max: 'max',
  count_distinct: 'distinct',
  nunique: 'distinct',
  std: 'std. dev. of',
  variance: 'variance of',
  first: 'first',
  last: 'last',
  mode: 'most frequent',
  range: 'range of',
};

/** "90th", "2.5th", "1st", "22nd", "33rd". */
function ordinal(p: number): string {
  const whole = Number.isInteger(p) ? p : null;
  const teen = whole !== null && whole % 100 >= 11 && whole % 100 <= 13;
  const suffix = whole === null || teen ? 'th' : (['th', 'st', 'nd', 'rd'][whole % 10] ?? 'th');
  return `${p}${suffix}`;
}

/**
 * What a card's number is ("mean body_mass_g", "rows", "90th percentile of depth", "last mass by
 * date"), in one place so that the web app's card and its export say the same; its title is the
 * cell's heading, so the label does not repeat it. `columnLabel` names the column otherwise than by its name.
 */
export function cardLabel(component: CardComponent, columnLabel?: string): string {
  const column = columnLabel ?? component.column;
  if (component.agg === 'count' || column === undefined) return AGG_LABEL.count;
  if (component.agg === 'percentile') return `${ordinal(component.p ?? 50)} percentile of ${column}`;
  const label = `${AGG_LABEL[component.agg]} ${column}`;
  return component.order_by === undefined ? label : `${label} by ${component.order_by}`;
}
