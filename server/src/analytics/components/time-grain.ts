import { defaultTimeGrain, type FigureComponent, type TimeGrain } from '@service/common';
import type { Column } from '../sql/columns.js';
import { isTemporal } from './fit.js';

/** Microseconds in a day (the axis values of a temporal column are epoch microseconds, figure-rows.ts). */
const DAY_US = 86_400_000_000;

/**
 * The grain a line's x is counted by: none for a numeric x; the figure's `time_grain`; else the
 * default for the span between `low` and `high` (epoch microseconds), which a timestamp within
 * two days has none of.
 */
export function timeGrainOf(x: Column, figure: FigureComponent, low: number | null, high: number | null) {
  if (!isTemporal(x)) return null;
  if (figure.time_grain !== undefined) return figure.time_grain;
  if (low === null || high === null) return null;
  return defaultTimeGrain((high - low) / DAY_US, x.kind === 'timestamp');
}

/**
 * The first instant of a value's grain, of the column's own type: DuckDB's `date_trunc` (a week
 * starts on Monday, ISO 8601), a date kept a date.
 */
export function grainSql(x: Column, grain: TimeGrain): string {
  const truncated = `date_trunc('${grain}', ${x.sql})`;
  return x.kind === 'date' ? `CAST(${truncated} AS DATE)` : truncated;
}
