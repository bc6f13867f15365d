import type { DashboardFilterScalar, DashboardFilterValue, OptionsData, RangeData } from '@service/common';
import { formatValue } from './chips.js';

/** Options past this many get a search box. */
export const SEARCHABLE_OPTIONS = 8;

type OptionValue = DashboardFilterScalar | null;

/**
 * The key of an option's value in a select: its JSON, so `1` and `"1"` stay apart and null
 * (the rows without a value) is an option like any other.
 */
export function optionKey(value: unknown): string {
  return JSON.stringify(value ?? null);
}

function optionValue(key: string): OptionValue {
  const value: unknown = JSON.parse(key);
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : null;
}

export interface SelectItem {
  value: string;
  label: string;
  /** Rows with this value under the other filters; null for a chosen value the answer no longer lists. */
  count: number | null;
}

/** The options of a select or multiselect, the chosen values first among them even when the answer left them out. */
export function selectItems(options: OptionsData['options'], chosen: readonly unknown[]): SelectItem[] {
  const items = options.map(({ value, count }) => ({ value: optionKey(value), label: formatValue(value), count }));
  const listed = new Set(items.map((item) => item.value));
  const missing = chosen
    .map(optionKey)
    .filter((key) => !listed.has(key))
    .map((key) => ({ value: key, label: formatValue(optionValue(key)), count: null }));
  return [...missing, ...items];
}

/** The select's keys back into a filter value (the list of values). */
export function chosenValues(keys: readonly string[]): OptionValue[] {
  return keys.map(optionValue);
}

/** The chosen values of a list filter as select keys. */
export function chosenKeys(value: DashboardFilterValue | undefined): string[] {
  return Array.isArray(value) ? value.map(optionKey) : [];
}

/** A range widget's bounds as numbers, or null when the column has none (no rows yet, not numeric). */
export function numericBounds(data: RangeData): { min: number; max: number } | null {
  const min = Number(data.min);
  const max = Number(data.max);
  if (data.min === null || data.max === null || !Number.isFinite(min) || !Number.isFinite(max)) return null;
  return { min, max };
}

/** A slider step: whole numbers for a column of them, else about a hundredth of the span, rounded to a decimal. */
export function sliderStep({ min, max }: { min: number; max: number }): number {
  if (Number.isInteger(min) && Number.isInteger(max) && max - min >= 20) return 1;
  const span = max - min;
  if (span <= 0) return 1;
  return 10 ** Math.floor(Math.log10(span / 100));
}

/** Decimals a step has (the slider's precision). */
export function stepDecimals(step: number): number {
  return step >= 1 ? 0 : Math.ceil(-Math.log10(step));
}

/** Where the slider's thumbs sit for a range filter: an open end at the column's bound. */
export function sliderValue(
  value: DashboardFilterValue | undefined,
  bounds: { min: number; max: number },
): [number, number] {
  if (!Array.isArray(value) || value.length !== 2) return [bounds.min, bounds.max];
  const low = typeof value[0] === 'number' ? value[0] : bounds.min;
  const high = typeof value[1] === 'number' ? value[1] : bounds.max;
  return [low, high];
}

/**
 * The filter of a slider's thumbs: an end left at the column's bound stays open (null), so rows
 * added later beyond it still match; both ends there filter nothing (null).
 */
export function rangeFilter(
  [low, high]: readonly [number, number],
  bounds: { min: number; max: number },
): [number | null, number | null] | null {
  const from = low <= bounds.min ? null : low;
  const to = high >= bounds.max ? null : high;
  return from === null && to === null ? null : [from, to];
}

/** A date (YYYY-MM-DD) for a date input, from a bound the server sent as a date or a timestamp. */
export function dateInputValue(value: unknown): string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : '';
}

/** The filter of two date inputs; an empty input leaves that end open. */
export function dateRangeFilter(from: string, to: string): [string | null, string | null] | null {
  if (from === '' && to === '') return null;
  return [from === '' ? null : from, to === '' ? null : to];
}
