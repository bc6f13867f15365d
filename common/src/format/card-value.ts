import { type CardAgg, COUNTING_AGGS } from '../card-fields.js';
import { formatDate } from './date.js';
import { formatCount, formatMeasure } from './number.js';

/**
 * A card's value: counts as whole numbers, measures rounded, dates and text as they are. The web
 * app's card and the exported (embedded) card both write it so, so a number rounds the same in both.
 */
export function formatCardValue(agg: CardAgg, value: unknown): string {
  if (value === null || value === undefined) return '—';
  // DECIMAL and BIGINT aggregates may come as text to keep their precision.
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)
        ? Number(value)
        : null;
  if (number !== null) return COUNTING_AGGS.includes(agg) ? formatCount(number) : formatMeasure(number);
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) return formatDate(value);
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
