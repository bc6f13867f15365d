import { type Filter, filtersParamSchema } from '@service/common';

/**
 * The explorer's row filter as it travels: the API's own `filters` JSON, kept as is in the address
 * bar (`filters=`), so a shared link narrows the rows the way the server reads them.
 */

/** The filters of a `filters` parameter; none when it is missing or malformed. */
export function parseFilters(text: string | null): Filter[] {
  if (text === null || text === '') return [];
  const parsed = filtersParamSchema.safeParse(text);
  return parsed.success ? parsed.data : [];
}

/** The `filters` parameter of a list of filters; null for none. */
export function formatFilters(filters: readonly Filter[]): string | null {
  return filters.length === 0 ? null : JSON.stringify(filters);
}

/** The operators a person picks from, with the words they read. */
export const ROW_FILTER_OPERATORS = [
  { value: 'eq', label: '=' },
  { value: 'ne', label: '≠' },
  { value: 'lt', label: '<' },
  { value: 'le', label: '≤' },
  { value: 'gt', label: '>' },
  { value: 'ge', label: '≥' },
  { value: 'contains', label: 'contains' },
  { value: 'is_null', label: 'is missing' },
  { value: 'not_null', label: 'is not missing' },
] as const;
export type RowFilterOperator = (typeof ROW_FILTER_OPERATORS)[number]['value'];

export function needsValue(op: RowFilterOperator): boolean {
  return op !== 'is_null' && op !== 'not_null';
}

/** One filter from the form's choices; the value goes as typed (the server converts it to the column's type). */
export function filterOf(column: string, op: RowFilterOperator, value: string): Filter {
  if (op === 'is_null' || op === 'not_null') return { column, op };
  if (op === 'contains') return { column, op, value };
  return { column, op, value };
}

/** A filter in words: `ph ≥ 7`, `island is missing`. */
export function describeFilter(filter: Filter): string {
  const label = ROW_FILTER_OPERATORS.find((operator) => operator.value === filter.op)?.label ?? filter.op;
  if (!('value' in filter)) return `${filter.column} ${label}`;
  const value = Array.isArray(filter.value) ? filter.value.join(', ') : String(filter.value);
  return `${filter.column} ${label} ${value}`;
}
