import type { Column } from './columns.js';

/**
 * NaN and ±Infinity as every statistic reads them (docs/data.md): they are stored as read and
 * count as values for `count`, but means, sums, deviations, quantiles, minima, maxima, bins and
 * axes leave them out as they leave out null. Only float and double columns can hold them.
 */

/** `sql` where it is a finite number, else null. */
export const finiteOrNull = (sql: string) => `CASE WHEN isfinite(${sql}) THEN ${sql} END`;

/** The column's value as a statistic reads it: a float's NaN and ±Infinity become null. */
export const measuredSql = (column: Column) => (column.kind === 'float' ? finiteOrNull(column.sql) : column.sql);

/** Rows whose value of the column is NaN or ±Infinity (0 for columns that cannot hold them). */
export const nonFiniteCountSql = (column: Column) =>
  column.kind === 'float' ? `count(*) FILTER (WHERE NOT isfinite(${column.sql}))` : '0';

/** Rows a line may draw at their x: a float's NaN and ±Infinity have no place on an axis. */
export const placeableSql = (column: Column) =>
  column.kind === 'float' ? `(${column.sql} IS NULL OR isfinite(${column.sql}))` : null;

/** How a filter names a float's NaN and ±Infinity: as the answers show them. */
export const NON_FINITE_TEXT: ReadonlySet<string> = new Set(['NaN', 'Infinity', '-Infinity']);

/**
 * A range condition that never holds for NaN, which DuckDB orders above every number (so
 * `x >= 1` would hold for it): a range takes in numbers only (docs/data.md).
 */
export const rangeSql = (column: Column, condition: string) =>
  column.kind === 'float' ? `${condition} AND NOT isnan(${column.sql})` : condition;

/** A float as CSV text, its NaN and ±Infinity written as the answers show them (DuckDB: `nan`, `inf`). */
export const csvNumberSql = (column: Column) =>
  `CASE WHEN isnan(${column.sql}) THEN 'NaN' WHEN isinf(${column.sql}) THEN ` +
  `CASE WHEN ${column.sql} > 0 THEN 'Infinity' ELSE '-Infinity' END ELSE CAST(${column.sql} AS VARCHAR) END`;

/**
 * The sample standard deviation of a measured value, null where it is not a finite double.
 * DuckDB's `stddev_samp` raises "out of range" when its squares overflow (|x − mean| beyond about
 * 1.3e154, or the NaN of one ±Infinity); `covar_samp(x, x)` is the same variance without the
 * check. Where it overflows, the values scaled by 2^-600 give it again (their squares cannot
 * overflow, and the dominant ones, being that large, cannot underflow). `filter` (` FILTER (WHERE …)`)
 * restricts each of its aggregates alike.
 */
export function stddevSql(value: string, filter = ''): string {
  const scaled = `(${value}) * ${SCALE}`;
  const variance = `covar_samp(${value}, ${value})${filter}`;
  const fallback = `sqrt(covar_samp(${scaled}, ${scaled})${filter}) * ${UNSCALE}`;
  return finiteOrNull(`CASE WHEN isfinite(${variance}) THEN sqrt(${variance}) ELSE ${fallback} END`);
}

const SCALE = `CAST(${2 ** -600} AS DOUBLE)`;
const UNSCALE = `CAST(${2 ** 600} AS DOUBLE)`;
