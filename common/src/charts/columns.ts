import type { FigureColumn, FigureData } from '../dashboard-data.js';

/** How a folded category ("other", beyond a figure's category budget) is written on a chart. */
export const OTHER_LABEL = 'Other';
/** How a null category is written (a legend entry or an axis label cannot be empty). */
export const MISSING_LABEL = '(missing)';

export type AxisKind = 'value' | 'time' | 'category';

/** The roles of a figure's answer (`x`, `y`, `q1`, …) and where each sits in a row. */
export class FigureColumns {
  private readonly index: Map<string, number>;

  constructor(readonly data: FigureData) {
    this.index = new Map(data.columns.map((column, position) => [column.name, position]));
  }

  has(role: string): boolean {
    return this.index.has(role);
  }

  column(role: string): FigureColumn | undefined {
    const position = this.index.get(role);
    return position === undefined ? undefined : this.data.columns[position];
  }

  /** The table column a role shows (axis names, legends), or the role itself when none. */
  label(role: string): string {
    return this.column(role)?.column ?? role;
  }

  /** A row's value in a role (undefined when the answer has no such role). */
  value(row: readonly unknown[], role: string): unknown {
    const position = this.index.get(role);
    return position === undefined ? undefined : row[position];
  }

  number(row: readonly unknown[], role: string): number | null {
    return toNumber(this.value(row, role));
  }

  isOther(row: readonly unknown[]): boolean {
    return this.value(row, 'other') === true;
  }

  /** An integer column: its value axis ticks whole numbers (years, counts). */
  isInteger(role: string): boolean {
    return INTEGER_TYPE.test(this.column(role)?.type ?? '');
  }

  /** A date column (no time of day): its time axis ticks whole days. */
  isDate(role: string): boolean {
    return /^date$/i.test(this.column(role)?.type ?? '');
  }

  axisKind(role: string): AxisKind {
    return axisKindOf(this.column(role)?.type ?? 'string');
  }
}

const NUMERIC_TYPE = /^(byte|short|integer|int|long|bigint|float|double|decimal.*|tinyint|smallint)$/i;
const INTEGER_TYPE = /^(byte|short|integer|int|long|bigint|tinyint|smallint)$/i;
const TEMPORAL_TYPE = /^(date|timestamp.*)$/i;

/** The axis a Delta type is drawn on: numbers on a value axis, dates and timestamps on a time axis. */
export function axisKindOf(deltaType: string): AxisKind {
  if (NUMERIC_TYPE.test(deltaType)) return 'value';
  if (TEMPORAL_TYPE.test(deltaType)) return 'time';
  return 'category';
}

export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  // DECIMAL and BIGINT values may arrive as strings to keep their precision.
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

/**
 * An aggregate as the chart shows it: 6 significant digits. The option holds no formatter
 * functions (it must stay JSON for exports), so tooltips print the dataset's values as they are.
 */
export function rounded(value: unknown): number | null {
  const number = toNumber(value);
  if (number === null || Number.isInteger(number)) return number;
  return Number(number.toPrecision(6));
}

/** A category as text: axis labels, legend entries and pie slices. */
export function categoryLabel(value: unknown, other = false): string {
  if (other) return OTHER_LABEL;
  if (value === null || value === undefined) return MISSING_LABEL;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A category's identity: the raw value (so 1 and "1" stay apart), or the fold. */
export function categoryKey(value: unknown, other = false): string {
  return other ? '\u0000other' : JSON.stringify(value ?? null);
}

/** Distinct categories in order of first appearance, with the raw value each stands for. */
export class Categories {
  private readonly byKey = new Map<string, number>();

  /** `name` writes a category (not the fold) as its label. */
  constructor(private readonly name: (value: unknown) => string = categoryLabel) {}

  readonly values: unknown[] = [];
  readonly others: boolean[] = [];
  readonly labels: string[] = [];

  add(value: unknown, other = false): number {
    const key = categoryKey(value, other);
    let position = this.byKey.get(key);
    if (position === undefined) {
      position = this.values.length;
      this.byKey.set(key, position);
      this.values.push(other ? null : value);
      this.others.push(other);
      this.labels.push(
        uniqueLabel(this.labels, other ? OTHER_LABEL : value == null ? MISSING_LABEL : this.name(value)),
      );
    }
    return position;
  }

  get size(): number {
    return this.values.length;
  }
}

/** Two categories that print alike (1 and "1") still need two names: ECharts matches by name. */
function uniqueLabel(taken: readonly string[], label: string): string {
  if (!taken.includes(label)) return label;
  let suffix = 2;
  while (taken.includes(`${label} (${suffix})`)) suffix++;
  return `${label} (${suffix})`;
}

/** Numeric categories (binned heatmap axes) in numeric order, text ones as they came. */
export function sortedCategories(values: readonly unknown[], kind: AxisKind): Categories {
  const distinct = [...new Map(values.map((value) => [categoryKey(value), value])).values()];
  if (kind !== 'category') distinct.sort((a, b) => orderOf(a) - orderOf(b));
  const decimals = kind === 'value' ? binDecimals(distinct) : null;
  const categories = new Categories((value) => binLabel(value, kind, decimals));
  for (const value of distinct) categories.add(value);
  return categories;
}

/** Decimals enough to tell sorted bin edges apart (none for bins 1 or wider): "2,964", not "2963.75". */
function binDecimals(sorted: readonly unknown[]): number {
  const numbers = sorted.map(toNumber).filter((value) => value !== null);
  let step = Number.POSITIVE_INFINITY;
  for (let index = 1; index < numbers.length; index++) {
    const gap = (numbers[index] ?? 0) - (numbers[index - 1] ?? 0);
    if (gap > 0) step = Math.min(step, gap);
  }
  if (!Number.isFinite(step) || step >= 1) return 0;
  return Math.min(6, Math.ceil(-Math.log10(step)) + 1);
}

/** A number with thousands separators and a fixed number of decimals. */
function grouped(value: number, decimals: number): string {
  const [whole = '', fraction] = Math.abs(value).toFixed(decimals).split('.');
  const text = whole.replace(/\B(?=(\d{3})+$)/g, ',') + (fraction ? `.${fraction}` : '');
  return value < 0 && Number(text.replace(/,/g, '')) !== 0 ? `-${text}` : text;
}

const INSTANT = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::(\d{2}(?:\.\d+)?))?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A bin's edge as an axis label: numbers to 6 digits, instants to the minute (a midnight as its
 * day alone), anything else as text.
 */
export function binLabel(value: unknown, kind: AxisKind, decimals: number | null = null): string {
  if (kind === 'value') {
    const number = rounded(value);
    if (number === null) return categoryLabel(value);
    return decimals === null ? String(number) : grouped(number, decimals);
  }
  if (kind === 'time' && typeof value === 'string') {
    const parts = INSTANT.exec(value);
    if (parts) return parts[2] === '00:00' && !Number(parts[3] ?? 0) ? (parts[1] ?? value) : `${parts[1]} ${parts[2]}`;
  }
  return categoryLabel(value);
}

/** Where a number or a date sits on its axis; nulls last. */
function orderOf(value: unknown): number {
  const number = toNumber(value);
  if (number !== null) return number;
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(time) ? Number.POSITIVE_INFINITY : time;
}

/** A dataset cell: what ECharts reads (numbers, text, null); anything else as its text. */
export type Cell = string | number | null;

export function cell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'string') return value;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The list at `index` of `lists`, made empty on first use. */
export function listAt<T>(lists: T[][], index: number): T[] {
  let list = lists[index];
  if (list === undefined) {
    list = [];
    lists[index] = list;
  }
  return list;
}
