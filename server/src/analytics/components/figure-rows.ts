import type { FigureColumn, FigureComponent, FigureData } from '@service/common';
import type { JsonValue, SqlValue } from '../../engine/duckdb.js';
import { type Column, columnOf, count, jsonValue, type Output, outputOf, type TableSnapshot } from '../sql/columns.js';
import { measuredSql } from '../sql/finite.js';
import { type NarrowedRows, scalarRow } from '../sql/narrowed.js';
import { isTemporal } from './fit.js';

/** A column of a figure's answer, and how its values leave as JSON. */
export interface Role extends FigureColumn {
  output: Output;
}

export const roleOf = (name: string, column: Column): Role => ({
  name,
  type: column.typeName,
  column: column.name,
  output: outputOf(column.kind),
});

export const numberRole = (name: string, column: Column | null, type = 'double'): Role => ({
  name,
  type,
  column: column?.name ?? null,
  output: type === 'long' ? 'integer' : type === 'timestamp' ? 'timestamp' : 'plain',
});

/** The answer's columns: each role's name, type and the table column it shows. */
export const answerColumns = (roles: readonly Role[]) =>
  roles.map(({ name, type, column }) => ({ name, type, column }));

/** The answer: one array per row in the order of `roles`, read from SQL rows keyed by role name. */
export function figureAnswer(
  roles: readonly Role[],
  rows: readonly Record<string, JsonValue | undefined>[],
  sampled: boolean,
  total: number,
): FigureData {
  return {
    columns: answerColumns(roles),
    rows: rows.map((row) => roles.map((role) => jsonValue(row[role.name], role.output))),
    sampled,
    total_rows: total,
  };
}

/** The columns a figure names; fit.ts checked them against the schema already. */
export function figureColumns(source: TableSnapshot, figure: FigureComponent) {
  const named = (field: 'x' | 'y' | 'color' | 'size') => {
    const name = figure[field];
    return name === undefined ? null : columnOf(source, name, field);
  };
  return { x: named('x'), y: named('y'), color: named('color'), size: named('size') };
}

/** The same column read under another name (a CTE's output), for aggregates over it. */
export const renamed = (column: Column, sql: string): Column => ({ ...column, sql });

/** Rows matching the filters. */
export async function countRows(rows: NarrowedRows, params: SqlValue[]): Promise<number> {
  return count((await scalarRow(rows, params, { n: 'count(*)' })).n);
}

/** The rows a scatter may draw as points: those with both coordinates finite (or not numbers). */
export const drawableSql = (x: Column, y: Column) => `${measuredSql(x)} IS NOT NULL AND ${measuredSql(y)} IS NOT NULL`;

/** A scatter's counts: rows, and rows with both coordinates (the points it may draw). */
export function scatterCountSelects(source: TableSnapshot, figure: FigureComponent) {
  const { x, y } = figureColumns(source, figure);
  if (x === null || y === null) throw new Error('a scatter needs x and y');
  return { n: 'count(*)', drawable: `count(*) FILTER (WHERE ${drawableSql(x, y)})` };
}

/** The rows, and the lowest and highest value of an axis (its bins' range). */
export function binStats(axis: Axis) {
  return { n: 'count(*)', low: `min(${axis.value})`, high: `max(${axis.value})` };
}

/** What a histogram's bins are made from. */
export function binStatsSelects(source: TableSnapshot, figure: FigureComponent) {
  const { x } = figureColumns(source, figure);
  if (x === null) throw new Error('a histogram needs x');
  return binStats(histogramAxis(x, figure));
}

export const histogramAxis = (x: Column, figure: FigureComponent): Axis => axisOf(x, figure.log_x === true);

/**
 * A numeric or temporal column as a number to bin: its value, timestamps and dates as
 * microseconds since 1970, and with `log` its natural logarithm (only of positive values: the
 * others become null and are left out).
 */
export interface Axis {
  value: string;
  /** A bin edge back as the column's kind of value: a number, or an ISO-8601 timestamp. */
  edge(value: number): JsonValue;
  type: string;
}

export function axisOf(column: Column, log = false): Axis {
  const c = column.sql;
  if (isTemporal(column)) {
    const instant = column.kind === 'date' ? `CAST(${c} AS TIMESTAMP)` : c;
    return {
      value: `CAST(epoch_us(${instant}) AS DOUBLE)`,
      edge: (value) => new Date(Math.round(value / 1000)).toISOString(),
      type: 'timestamp',
    };
  }
  // NaN and ±Infinity are left out of axes as null is (`measuredSql`).
  const m = measuredSql(column);
  if (log) {
    return { value: `CASE WHEN ${m} > 0 THEN ln(CAST(${m} AS DOUBLE)) END`, edge: Math.exp, type: 'double' };
  }
  return { value: `CAST(${m} AS DOUBLE)`, edge: (value) => value, type: 'double' };
}

/**
 * Equal-width bins between the lowest and highest value (one bin when they are equal). Between
 * doubles near ±1.8e308 the span itself overflows: then the arithmetic is done on halves.
 */
export class Bins {
  readonly count: number;
  /** The width of a bin divided by `scale` (1, or 2 when the span overflows). */
  private readonly step: number;
  private readonly scale: number;

  constructor(
    readonly low: number,
    readonly high: number,
    bins: number,
  ) {
    this.count = high > low ? bins : 1;
    this.scale = Number.isFinite(high - low) ? 1 : 2;
    this.step = (high / this.scale - low / this.scale) / this.count;
  }

  /** The SQL of a value's bin number, 0 … count − 1 (the highest value falls in the last bin). */
  indexSql(value: string, param: (value: SqlValue) => string): string {
    if (this.step === 0) return '0';
    const scaled = this.scale === 1 ? value : `${value} / ${this.scale}`;
    const offset = `(${scaled} - ${param(this.low / this.scale)})`;
    return `least(CAST(floor(${offset} / ${param(this.step)}) AS BIGINT), ${this.count - 1})`;
  }

  /** Bin `index`'s edges; the last bin ends exactly at the highest value. */
  edges(index: number): [number, number] {
    const edge = (at: number) => {
      const span = at * this.step;
      return this.scale === 1 ? this.low + span : this.low + span + span;
    };
    return [edge(index), index === this.count - 1 ? this.high : edge(index + 1)];
  }
}

/** Numbers of a stats row (null when there were no values). */
export function numberOf(value: JsonValue | undefined): number | null {
  if (value === null || value === undefined) return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

/** A value read back from DuckDB as a parameter (BIGINT, DECIMAL and timestamps come back as text). */
export function asParam(value: JsonValue): SqlValue {
  return value === null || typeof value !== 'object' ? value : JSON.stringify(value);
}
