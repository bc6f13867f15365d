import type { DashboardFilterScalar } from '@service/common';
import { countryKeySql, countryKeysOf } from '../components/country-codes.js';
import { chromosomeNameSql, chromosomeRankSql, genomicBoundSql } from '../sql/chromosomes.js';
import { type Column, invalid } from '../sql/columns.js';
import { rangeSql } from '../sql/finite.js';
import { memberSql } from '../sql/membership.js';
import type { Statement } from '../sql/statement.js';
import { inList, valueSql } from './filters.js';

/** What a dashboard filter asks of its column, whichever component set it. */
export type Match =
  /** select, multiselect, a clicked bar or pie slice: one of the values (null matches nulls). */
  | { kind: 'in'; values: readonly (DashboardFilterScalar | null)[] }
  /**
   * A choropleth's clicked countries (`values` their codes as the table holds them): rows whose
   * code names one of the countries the values name, by any of its codes, or equals a value.
   */
  | { kind: 'country'; values: readonly (DashboardFilterScalar | null)[] }
  /** range, date_range, a brush: low ≤ column ≤ high; a null end is open. */
  | { kind: 'range'; low: DashboardFilterScalar | null; high: DashboardFilterScalar | null }
  /** switch */
  | { kind: 'equals'; value: boolean }
  /** search: the value's text contains this, ignoring case. */
  | { kind: 'search'; text: string }
  /** A clicked UpSet intersection: the row is (or is not) in the set the column stands for. */
  | { kind: 'member'; value: boolean }
  /**
   * A brushed Manhattan plot: the row's (chromosome, `position`) between the two ends, in the
   * natural chromosome order (the column is the chromosome's).
   */
  | { kind: 'interval'; position: string; from: GenomicEnd; to: GenomicEnd }
  /**
   * A clicked intersection of an UpSet plot of item–set pairs: the rows of the items (the
   * column) paired in the whole table with exactly these sets (`set`, compared as text).
   */
  | { kind: 'exact_sets'; set: string; sets: readonly string[] }
  /**
   * A rectangle brushed over an embedding: each named column (the first is the filter's own)
   * between its ends, a null end open; rows with no value there are outside.
   */
  | { kind: 'box'; ranges: readonly BoxRange[] };

/** One side of a brushed rectangle: a numeric column between `low` and `high`. */
export interface BoxRange {
  column: string;
  low: number | null;
  high: number | null;
}

/** One end of a genomic interval: a chromosome (as the table or the axis names it) and a position. */
export type GenomicEnd = readonly [DashboardFilterScalar, number];

/** What a match reads besides its own column: other columns of its table, and the table's rows. */
export interface MatchContext {
  /** Another column of the table (a genomic interval's position, an UpSet's set column). */
  column(name: string): Column;
  /** The table's rows as a subquery (an UpSet intersection's items are found among them). */
  rows: string;
}

/** Whether a match reads the table's rows (`MatchContext.rows`), besides the row it keeps or not. */
export const readsRows = (match: Match) => match.kind === 'exact_sets';

/** Whether a match keeps fewer rows than all (`matchSql` gives it a condition). */
export function narrows(match: Match): boolean {
  if (match.kind === 'range') return match.low !== null || match.high !== null;
  if (match.kind === 'search') return match.text !== '';
  if (match.kind === 'box') return match.ranges.some((range) => range.low !== null || range.high !== null);
  return true;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The condition a match puts on a column (parenthesized), or null when it holds for every row
 * (`[null, null]`, an empty search). Values become parameters of the statement; texts that must
 * convert to the column's type are checked by `Statement.validate`, the rest refused here, at
 * `path` (`body.filters[2]`).
 */
export function matchSql(
  match: Match,
  column: Column,
  statement: Statement,
  path: string,
  context: MatchContext = { column: () => column, rows: '' },
): string | null {
  const c = column.sql;
  switch (match.kind) {
    case 'interval':
      return intervalSql(match, column, context.column(match.position), statement);
    case 'exact_sets':
      return exactSetsSql(match, column, context, statement);
    case 'box':
      return boxSql(match, context, statement, path);
    case 'country': {
      const listed = matchSql({ kind: 'in', values: match.values }, column, statement, path);
      const keys = countryKeysOf(match.values).map((key) => `CAST(${statement.param(key)} AS VARCHAR)`);
      return keys.length === 0 ? listed : `(${countryKeySql(c)} IN (${keys.join(', ')}) OR ${listed})`;
    }
    case 'in': {
      const parts: string[] = [];
      const listed: string[] = [];
      match.values.forEach((value, index) => {
        if (value !== null) listed.push(scalarSql(value, column, statement, `${path}.value[${index}]`));
      });
      if (listed.length > 0) parts.push(inList(column, listed));
      if (match.values.includes(null)) parts.push(`${c} IS NULL`);
      // Nothing chosen matches nothing: a client clears a filter by leaving it out.
      return parts.length === 0 ? '(FALSE)' : `(${parts.join(' OR ')})`;
    }
    case 'range': {
      const parts: string[] = [];
      if (match.low !== null) parts.push(`${c} >= ${scalarSql(match.low, column, statement, `${path}.value[0]`)}`);
      if (match.high !== null) parts.push(upperBound(match.high, column, statement, `${path}.value[1]`));
      return narrows(match) ? `(${rangeSql(column, parts.join(' AND '))})` : null;
    }
    case 'equals':
      return `(${c} = ${scalarSql(match.value, column, statement, `${path}.value`)})`;
    case 'member':
      return `(${memberSql(column)} = ${match.value ? 'true' : 'false'})`;
    case 'search':
      if (!narrows(match)) return null;
      return `(contains(lower(CAST(${c} AS VARCHAR)), lower(${statement.param(match.text)})))`;
  }
}

/** Rows from one (chromosome, position) to another, both included, as the Manhattan axis orders them. */
function intervalSql(
  match: Extract<Match, { kind: 'interval' }>,
  chromosome: Column,
  position: Column,
  statement: Statement,
): string {
  const rowName = chromosomeNameSql(chromosome.sql);
  const row = { name: rowName, rank: chromosomeRankSql(rowName), position: `CAST(${position.sql} AS DOUBLE)` };
  const bound = ([name, at]: GenomicEnd) => {
    const boundName = chromosomeNameSql(statement.param(String(name)));
    return {
      name: boundName,
      rank: chromosomeRankSql(boundName),
      position: `CAST(${statement.param(at)} AS DOUBLE)`,
    };
  };
  return `(${genomicBoundSql(row, bound(match.from), true)} AND ${genomicBoundSql(row, bound(match.to), false)})`;
}

/** Rows inside every side of a brushed rectangle (its ends bound as parameters). */
function boxSql(
  match: Extract<Match, { kind: 'box' }>,
  context: MatchContext,
  statement: Statement,
  path: string,
): string | null {
  const parts = match.ranges.flatMap((range, index) => {
    const column = context.column(range.column);
    const ends: string[] = [];
    const at = (end: number) => `${path}.value[${index * 2 + end}]`;
    if (range.low !== null) ends.push(`${column.sql} >= ${scalarSql(range.low, column, statement, at(0))}`);
    if (range.high !== null) ends.push(`${column.sql} <= ${scalarSql(range.high, column, statement, at(1))}`);
    return ends.length === 0 ? [] : [rangeSql(column, ends.join(' AND '))];
  });
  return parts.length === 0 ? null : `(${parts.join(' AND ')})`;
}

/** The items whose distinct sets over the whole table are exactly the clicked ones (a semi-join). */
function exactSetsSql(
  match: Extract<Match, { kind: 'exact_sets' }>,
  item: Column,
  context: MatchContext,
  statement: Statement,
): string {
  const set = context.column(match.set);
  const wanted = [...new Set(match.sets)].sort().map((name) => `CAST(${statement.param(name)} AS VARCHAR)`);
  return (
    `(${item.sql} IN (SELECT ${item.sql} FROM ${context.rows} AS "upset_items" ` +
    `WHERE ${item.sql} IS NOT NULL AND ${set.sql} IS NOT NULL GROUP BY ${item.sql} ` +
    `HAVING list_sort(list(DISTINCT CAST(${set.sql} AS VARCHAR))) = [${wanted.join(', ')}]))`
  );
}

/** `column <= high`; a day as the high end of a timestamp range takes in the whole day. */
function upperBound(high: DashboardFilterScalar, column: Column, statement: Statement, path: string): string {
  if (column.kind === 'timestamp' && typeof high === 'string' && DATE_ONLY.test(high.trim())) {
    const day = statement.cast(high.trim(), column, path, 'DATE');
    return `${column.sql} < CAST(${day} + INTERVAL 1 DAY AS ${column.sqlType})`;
  }
  return `${column.sql} <= ${scalarSql(high, column, statement, path)}`;
}

/**
 * A value of the column's type. Charts brush time axes in epoch milliseconds, so a number on a
 * date or timestamp column is taken as one; everything else converts as the rows route's filters do.
 */
function scalarSql(value: DashboardFilterScalar, column: Column, statement: Statement, path: string): string {
  if ((column.kind === 'timestamp' || column.kind === 'date') && typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalid(path, `${value} is not a time`);
    return `CAST(epoch_ms(CAST(${statement.param(Math.round(value))} AS BIGINT)) AS ${column.sqlType})`;
  }
  if (column.kind === 'nested' || column.kind === 'binary') {
    throw invalid(path, `a ${column.typeName} column cannot be compared with a value`);
  }
  return valueSql(value, column, statement, path);
}
