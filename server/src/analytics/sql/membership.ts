import type { Column } from './columns.js';
import { measuredSql } from './finite.js';

/**
 * Whether a row belongs to the set an UpSet column stands for: a boolean column's true, a numeric
 * column's value other than 0 (0/1 columns; NaN and null belong to no set). Never null.
 */
export function memberSql(column: Column): string {
  if (column.kind === 'boolean') return `coalesce(${column.sql}, false)`;
  return `coalesce(CAST(${measuredSql(column)} AS DOUBLE) <> 0, false)`;
}
