import { z } from 'zod';

/** The calendar units dates are counted by: a card's sparkline, a line or area chart's x. */
export const TIME_GRAINS = ['day', 'week', 'month', 'quarter', 'year'] as const;
export const timeGrainSchema = z.enum(TIME_GRAINS);
export type TimeGrain = z.infer<typeof timeGrainSchema>;

/** Days a period of each grain spans, roughly. */
export const GRAIN_DAYS: Record<TimeGrain, number> = { day: 1, week: 7, month: 30.44, quarter: 91.31, year: 365.25 };

/** The finest grain with fewer than `points` periods over `spanDays` days (else years). */
export function finestTimeGrain(spanDays: number, points: number): TimeGrain {
  return TIME_GRAINS.find((grain) => spanDays / GRAIN_DAYS[grain] < points) ?? 'year';
}

/** Points a line or area chart over dates draws at most by its default grain. */
export const GRAIN_POINTS = 200;
/** Spans shorter than this (in days) draw a timestamp x instant by instant: no default grain. */
export const GRAINLESS_DAYS = 2;

/**
 * The grain a line or area chart's date axis is counted by when the figure names none: the finest
 * with fewer than `GRAIN_POINTS` points over the data's span (a year of days: weeks; twenty years:
 * quarters). A timestamp spanning less than `GRAINLESS_DAYS` keeps its instants (null).
 */
export function defaultTimeGrain(spanDays: number, timestamp: boolean): TimeGrain | null {
  if (timestamp && spanDays < GRAINLESS_DAYS) return null;
  return finestTimeGrain(spanDays, GRAIN_POINTS);
}
