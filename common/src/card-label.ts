import type { CardComponent, ComponentAgg } from './dashboard-components.js';

const AGG_LABEL: Record<ComponentAgg, string> = {
  count: 'rows',
  sum: 'sum of',
  mean: 'mean',
  median: 'median',
  min: 'min',
  max: 'max',
  count_distinct: 'distinct',
};

/**
 * What a card's number is ("mean body_mass_g", "rows"), in one place so that the web app's card and
 * its export say the same; its title is the cell's heading, so the label does not repeat it.
 * `columnLabel` names the column otherwise than by its name.
 */
export function cardLabel(component: CardComponent, columnLabel?: string): string {
  const column = columnLabel ?? component.column;
  return component.agg === 'count' || column === undefined ? AGG_LABEL.count : `${AGG_LABEL[component.agg]} ${column}`;
}
