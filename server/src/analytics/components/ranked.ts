import {
  DEFAULT_RANKED_BUDGET,
  DEFAULT_STACK_BUDGET,
  type FigureComponent,
  type FigureData,
  STACKED_SAMPLE_BUDGET,
} from '@service/common';
import type { SqlRow } from '../../engine/duckdb.js';
import { type Column, columnOf, count, type TableSnapshot } from '../sql/columns.js';
import { measuredSql } from '../sql/finite.js';
import { type NarrowedRows, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import { figureAnswer, numberRole, type Role, renamed, roleOf } from './figure-rows.js';
import { aggSql, approximateOver, type ComputeOptions } from './fit.js';

/**
 * Ranked effects, enrichment dots, stacked compositions and funnels (docs/dashboards.md "Ranked
 * effects, dots, stacked bars, strips, ECDFs, densities and funnels"): categories aggregated and
 * ranked in DuckDB, only the kept ones sent, the answer saying how many were not.
 */

const named = (
  source: TableSnapshot,
  figure: FigureComponent,
  field: 'x' | 'y' | 'color' | 'size' | 'error' | 'sort_by',
) => {
  const name = figure[field];
  return name === undefined ? null : columnOf(source, name, field);
};

/** A numeric column's mean over a group, as a double (null when it has no finite value). */
const meanSql = (sql: string) => `CAST(avg(${sql}) AS DOUBLE)`;

/** Rows matching the filters, as a scalar subquery of the answer's query. */
const totalSql = ({ from, conditions }: NarrowedRows) => `(SELECT count(*) FROM ${from}${whereOf(conditions)})`;

/**
 * Lollipop and diverging bar: each category's mean effect (and mean error); the `max_categories`
 * of largest |effect| kept, drawn largest effect first. Rows without an effect are left out.
 */
export async function rankedEffectData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const x = columnOf(source, figure.x ?? '', 'x');
  const y = columnOf(source, figure.y ?? '', 'y');
  const error = figure.chart === 'lollipop' ? named(source, figure, 'error') : null;
  const budget = figure.max_categories ?? DEFAULT_RANKED_BUDGET;
  const errorSelect = error === null ? '' : `, ${meanSql(measuredSql(error))} AS "error"`;
  const answer = await rows.connection.query(
    `SELECT *, ${totalSql(rows)} AS "total" FROM (SELECT *, row_number() OVER (ORDER BY abs("y") DESC, "x" ASC NULLS LAST) AS "rank", ` +
      'count(*) OVER () AS "groups" FROM (' +
      `SELECT ${x.sql} AS "x", ${meanSql(measuredSql(y))} AS "y"${errorSelect} FROM ${rows.from}` +
      `${whereOf(rows.conditions, `${measuredSql(y)} IS NOT NULL`)} GROUP BY 1)) ` +
      `WHERE "rank" <= ${budget} ORDER BY "y" DESC, "x" ASC NULLS LAST`,
    statement.params,
  );
  const roles = [roleOf('x', x), numberRole('y', y), ...(error === null ? [] : [numberRole('error', error)])];
  return withLeftOut(roles, answer, budget, await totalOf(rows, statement, answer));
}

/** The answer with the categories beyond the budget counted (`groups` is every category's count). */
function withLeftOut(roles: Role[], answer: SqlRow[], budget: number, total: number): FigureData {
  const groups = count(answer[0]?.groups);
  return { ...figureAnswer(roles, answer, groups > budget, total), not_shown: Math.max(0, groups - budget) };
}

/** The rows under the filters: read from the answer, or counted when it is empty. */
async function totalOf(rows: NarrowedRows, statement: Statement, answer: SqlRow[]): Promise<number> {
  const first = answer[0];
  if (first !== undefined) return count(first.total);
  const [row = {}] = await rows.connection.query(`SELECT ${totalSql(rows)} AS "total"`, statement.params);
  return count(row.total);
}

/** Dot plot: which terms come first (their best dot over the groups). */
function termScore(figure: FigureComponent): { score: string; order: 'ASC' | 'DESC' } {
  switch (figure.rank_by ?? 'size') {
    case 'color_low':
      return { score: 'min("color")', order: 'ASC' };
    case 'color_high':
      return { score: 'max("color")', order: 'DESC' };
    default:
      return { score: 'max("size")', order: 'DESC' };
  }
}

/**
 * Dot plot: per term (y) and group (x), the mean `size` (the rows counted without it) and mean
 * `color`; the `max_categories` terms whose best dot ranks first kept, in that order.
 */
export async function dotData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const y = columnOf(source, figure.y ?? '', 'y');
  const x = named(source, figure, 'x');
  const size = named(source, figure, 'size');
  const color = named(source, figure, 'color');
  const budget = figure.max_categories ?? DEFAULT_RANKED_BUDGET;
  const { score, order } = termScore(figure);
  const selects = [
    `${y.sql} AS "y"`,
    ...(x === null ? [] : [`${x.sql} AS "x"`]),
    `${size === null ? 'count(*)' : meanSql(measuredSql(size))} AS "size"`,
    ...(color === null ? [] : [`${meanSql(measuredSql(color))} AS "color"`]),
  ];
  const answer = await rows.connection.query(
    `SELECT *, max("rank") OVER () AS "groups", ${totalSql(rows)} AS "total" FROM (` +
      `SELECT *, dense_rank() OVER (ORDER BY "score" ${order} NULLS LAST, "y" ASC NULLS LAST) AS "rank" FROM (` +
      `SELECT *, ${score} OVER (PARTITION BY "y") AS "score" FROM (` +
      `SELECT ${selects.join(', ')} FROM ${rows.from}${whereOf(rows.conditions)} GROUP BY ${x === null ? '1' : '1, 2'}))) ` +
      `QUALIFY "rank" <= ${budget} ORDER BY "rank"${x === null ? '' : ', "x" ASC NULLS LAST'}`,
    statement.params,
  );
  const roles = [
    ...(x === null ? [] : [roleOf('x', x)]),
    roleOf('y', y),
    numberRole('size', size, size === null ? 'long' : 'double'),
    ...(color === null ? [] : [numberRole('color', color)]),
  ];
  return withLeftOut(roles, answer, budget, await totalOf(rows, statement, answer));
}

/**
 * Stacked bar: per sample (x) the sum of y (rows counted without it) of each of the
 * `max_categories` taxa (color) of largest total, the others one "other" segment; each sample's
 * segments as percentages of its total unless `normalize` is false. Samples in `sort_by` order
 * (its smallest value per sample), then by name; at most `STACKED_SAMPLE_BUDGET` of them. Each
 * segment says its taxon's `rank` by total (other: one past the last kept), the order of the stack.
 */
export async function stackedBarData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const x = columnOf(source, figure.x ?? '', 'x');
  const color = columnOf(source, figure.color ?? '', 'color');
  const y = named(source, figure, 'y');
  const sortBy = named(source, figure, 'sort_by');
  const budget = figure.max_categories ?? DEFAULT_STACK_BUDGET;
  const value = y === null ? 'count(*)' : `CAST(sum("m"."v") AS DOUBLE)`;
  const share = figure.normalize === false ? '"y"' : '100 * "y" / nullif(sum("y") OVER (PARTITION BY "x"), 0)';
  const m =
    `SELECT ${x.sql} AS "s", ${color.sql} AS "t", ${y === null ? 'NULL' : measuredSql(y)} AS "v", ` +
    `${sortBy === null ? 'NULL' : sortBy.sql} AS "o" FROM ${rows.from}${whereOf(rows.conditions)}`;
  const answer = await rows.connection.query(
    `WITH "m" AS MATERIALIZED (${m}), ` +
      `"taxa" AS (SELECT "t", row_number() OVER (ORDER BY ${value.replace('"m".', '')} DESC NULLS LAST, "t" ASC NULLS LAST) AS "rank", ` +
      'count(*) OVER () AS "taxa" FROM "m" GROUP BY "t"), ' +
      '"samples" AS (SELECT "s", row_number() OVER (ORDER BY min("o") ASC NULLS LAST, "s" ASC NULLS LAST) AS "position", ' +
      'count(*) OVER () AS "samples" FROM "m" GROUP BY "s"), ' +
      `"cells" AS (SELECT "m"."s" AS "x", CASE WHEN "taxa"."rank" <= ${budget} THEN "m"."t" END AS "color", ` +
      `"taxa"."rank" > ${budget} AS "other", ${value} AS "y", min("taxa"."rank") AS "order", min("taxa"."taxa") AS "taxa" ` +
      'FROM "m" JOIN "taxa" ON "m"."t" IS NOT DISTINCT FROM "taxa"."t" GROUP BY 1, 2, 3) ' +
      `SELECT "cells"."x", "color", ${share} AS "y", "other", least("order", ${budget + 1}) AS "rank", "taxa", "samples", ` +
      '(SELECT count(*) FROM "m") AS "total" ' +
      'FROM "cells" JOIN "samples" ON "cells"."x" IS NOT DISTINCT FROM "samples"."s" ' +
      `WHERE "position" <= ${STACKED_SAMPLE_BUDGET} ORDER BY "position", "order"`,
    statement.params,
  );
  const roles = [
    roleOf('x', x),
    roleOf('color', color),
    numberRole('y', y, figure.normalize === false && y === null ? 'long' : 'double'),
    numberRole('other', null, 'boolean'),
    numberRole('rank', null, 'long'),
  ];
  const first = answer[0];
  const taxa = count(first?.taxa);
  const samples = count(first?.samples);
  return {
    ...figureAnswer(roles, answer, samples > STACKED_SAMPLE_BUDGET, count(first?.total)),
    not_shown: Math.max(0, taxa - budget),
    samples_not_shown: Math.max(0, samples - STACKED_SAMPLE_BUDGET),
  };
}

/** Funnel: `agg` of y per stage (x), largest first; the `max_categories` largest stages kept. */
export async function funnelData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  options: ComputeOptions,
): Promise<FigureData> {
  const x = columnOf(source, figure.x ?? '', 'x');
  const agg = figure.agg ?? 'count';
  const measured: Column | null = agg === 'count' ? null : named(source, figure, 'y');
  const approximate = agg === 'median' && approximateOver(source, options);
  const value = aggSql(agg, measured === null ? null : renamed(measured, '"v"'), undefined, approximate);
  const budget = figure.max_categories ?? DEFAULT_RANKED_BUDGET;
  const answer = await rows.connection.query(
    `SELECT *, ${totalSql(rows)} AS "total" FROM (SELECT *, row_number() OVER (ORDER BY "y" DESC NULLS LAST, "x" ASC NULLS LAST) AS "rank", ` +
      `count(*) OVER () AS "groups" FROM (SELECT "k" AS "x", ${value.sql} AS "y" FROM (` +
      `SELECT ${x.sql} AS "k"${measured === null ? '' : `, ${measured.sql} AS "v"`} FROM ${rows.from}${whereOf(rows.conditions)}) ` +
      `GROUP BY 1)) WHERE "rank" <= ${budget} ORDER BY "rank"`,
    statement.params,
  );
  const roles = [roleOf('x', x), numberRole('y', measured, value.type)];
  return withLeftOut(roles, answer, budget, await totalOf(rows, statement, answer));
}
