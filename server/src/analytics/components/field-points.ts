import {
  DEFAULT_FC_THRESHOLD,
  DEFAULT_FIELD_POINT_BUDGET,
  DEFAULT_P_THRESHOLD,
  type FigureComponent,
  type FigureData,
  LABELLED_HITS,
} from '@service/common';
import type { SqlRow } from '../../engine/duckdb.js';
import { type Column, columnOf, count, type TableSnapshot } from '../sql/columns.js';
import { measuredSql } from '../sql/finite.js';
import { firstByHash } from '../sql/hash-sample.js';
import { type NarrowedRows, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import { figureAnswer, numberRole, type Role, roleOf } from './figure-rows.js';

/**
 * The field's point charts of a differential test (docs/dashboards.md "Volcano, MA, Manhattan and QQ plots"):
 * each point classed `up`, `down` or `ns` by its p value and fold change. Every `up` and `down`
 * point is sent while they fit in the point budget, and beyond it the `ns` ones are a uniform
 * sample (by hash of their values, the same every time). When the `up` and `down` points alone
 * are more than the budget, every class is thinned to one point per cell of a grid over the plot
 * (`gridSql`): hundreds of thousands of points took the browser 10–25 s to draw, and a pixel shows
 * one of them anyway.
 */

/** −log10 p is drawn for 0 ≤ p ≤ 1; other p values (and null, NaN) leave the row out. */
export const validPSql = (p: string) => `${p} IS NOT NULL AND ${p} >= 0 AND ${p} <= 1`;

/** −log10 of a p value, null for p = 0 (its cap is the highest finite value of the answer). */
export const minusLog10Sql = (p: string) => `CASE WHEN ${p} > 0 THEN -log10(${p}) END`;

/**
 * A threshold of the figure (a number zod checked) as a literal: bound as a parameter it would
 * have to be bound in every query of the chart, also those that do not read it.
 */
export const literalSql = (value: number) => `CAST(${String(value)} AS DOUBLE)`;

/** A numeric column's value as a double, null where it is null, NaN or ±Infinity. */
export const doubleSql = (column: Column) => `CAST(${measuredSql(column)} AS DOUBLE)`;

interface ClassedPoints {
  /** The SQL of the fold change and of the p value (null: every point is `ns`). */
  fold: string;
  p: string | null;
  /** Columns sent besides `class`, by role name. */
  shown: { role: Role; sql: string }[];
  /** The role drawn along y (volcano: −log10 p, MA: the fold change). */
  plotY: 'minus_log10_y' | 'y';
  /** Rows left out (a coordinate missing). */
  drawable: string[];
}

export function volcanoData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const x = columnOf(source, figure.x ?? '', 'x');
  const y = columnOf(source, figure.y ?? '', 'y');
  const fold = doubleSql(x);
  const p = doubleSql(y);
  const shown = [
    { role: numberRole('x', x), sql: fold },
    { role: numberRole('y', y), sql: p },
    { role: numberRole('minus_log10_y', y), sql: minusLog10Sql(p) },
    ...labelShown(source, figure),
  ];
  const drawable = [`${fold} IS NOT NULL`, validPSql(p)];
  return classedPoints(rows, figure, statement, { fold, p, shown, plotY: 'minus_log10_y', drawable });
}

export function maData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const x = columnOf(source, figure.x ?? '', 'x');
  const y = columnOf(source, figure.y ?? '', 'y');
  const pColumn = figure.p === undefined ? null : columnOf(source, figure.p, 'p');
  const mean = doubleSql(x);
  const fold = doubleSql(y);
  const p = pColumn === null ? null : doubleSql(pColumn);
  const shown = [
    { role: numberRole('x', x), sql: mean },
    { role: numberRole('y', y), sql: fold },
    ...(pColumn === null || p === null ? [] : [{ role: numberRole('p', pColumn), sql: p }]),
    ...labelShown(source, figure),
  ];
  const drawable = [`${mean} IS NOT NULL`, `${fold} IS NOT NULL`, ...(p === null ? [] : [validPSql(p)])];
  return classedPoints(rows, figure, statement, { fold, p, shown, plotY: 'y', drawable });
}

function labelShown(source: TableSnapshot, figure: FigureComponent): { role: Role; sql: string }[] {
  if (figure.label === undefined) return [];
  const label = columnOf(source, figure.label, 'label');
  return [{ role: roleOf('label', label), sql: label.sql }];
}

/** The class of a point, as the contract defines it (docs/dashboards.md). */
function classSql(points: ClassedPoints, figure: FigureComponent): string {
  if (points.p === null) return `'ns'`;
  const pThreshold = literalSql(figure.p_threshold ?? DEFAULT_P_THRESHOLD);
  const fcThreshold = literalSql(figure.fc_threshold ?? DEFAULT_FC_THRESHOLD);
  const significant = `${points.p} < ${pThreshold}`;
  return (
    `CASE WHEN ${significant} AND ${points.fold} >= ${fcThreshold} THEN 'up' ` +
    `WHEN ${significant} AND ${points.fold} <= -${fcThreshold} THEN 'down' ELSE 'ns' END`
  );
}

async function classedPoints(
  rows: NarrowedRows,
  figure: FigureComponent,
  statement: Statement,
  points: ClassedPoints,
): Promise<FigureData> {
  const { connection, from, conditions } = rows;
  const budget = figure.max_points ?? DEFAULT_FIELD_POINT_BUDGET;
  const top = points.shown.some(({ role }) => role.name === 'minus_log10_y') ? 'max("minus_log10_y")' : 'NULL';
  const selects = points.shown.map(({ role, sql }) => `${sql} AS "${role.name}"`);
  const classed =
    `SELECT ${selects.join(', ')}, ${classSql(points, figure)} AS "class", ${points.p ?? 'NULL'} AS "rank_p", ` +
    `hash(${points.shown.map(({ sql }) => sql).join(', ')}) AS "hash" FROM ${from}${whereOf(conditions, points.drawable)}`;
  const [stats = {}] = await connection.query(
    `SELECT count(*) FILTER (WHERE "class" = 'up') AS "up", count(*) FILTER (WHERE "class" = 'down') AS "down", ` +
      `count(*) FILTER (WHERE "class" = 'ns') AS "ns", ${top} AS "top", ` +
      `min("x") AS "x_min", max("x") AS "x_max", min("${points.plotY}") AS "y_min", max("${points.plotY}") AS "y_max", ` +
      `(SELECT count(*) FROM ${from}${whereOf(conditions)}) AS "n" FROM (${classed})`,
    statement.params,
  );
  const counts = { up: count(stats.up), down: count(stats.down), ns: count(stats.ns) };
  const highest = stats.top === null || stats.top === undefined ? 1 : Number(stats.top);
  const gridded = counts.up + counts.down > budget;
  const nsKept = Math.max(0, budget - counts.up - counts.down);
  const drawn = gridded
    ? await connection.query(gridSql(classed, points.plotY, { budget, highest, ...extentOf(stats) }), statement.params)
    : await sampledPoints(rows, classed, statement, { kept: nsKept, ns: counts.ns });
  const roles = [...points.shown.map(({ role }) => role), classRole];
  const capped = drawn.filter((row) => row.minus_log10_y === null).length;
  const withCap = drawn.map((row) => (row.minus_log10_y === null ? { ...row, minus_log10_y: highest } : row));
  return {
    ...figureAnswer(roles, withCap, gridded || counts.ns > nsKept, count(stats.n)),
    counts,
    ...(capped > 0 ? { capped } : {}),
  };
}

/**
 * Every `up` and `down` point and the `kept` first `ns` points by (hash, x, y), ordered by x and y,
 * in one pass over the rows: only the `ns` rows under a hash bound are numbered (sql/hash-sample.ts);
 * when fewer than `kept` fall under it, every `ns` row is.
 */
async function sampledPoints(
  rows: NarrowedRows,
  classed: string,
  statement: Statement,
  sample: { kept: number; ns: number },
): Promise<SqlRow[]> {
  const numbered = (under: string | null) =>
    rows.connection.query(
      `SELECT * FROM (SELECT *, CASE WHEN "class" = 'ns' THEN row_number() OVER (PARTITION BY "class" = 'ns' ` +
        `ORDER BY "hash", "x", "y") END AS "sample" FROM (${classed})` +
        `${under === null ? '' : ` WHERE "class" <> 'ns' OR ${under}`}) ` +
        `WHERE "sample" IS NULL OR "sample" <= ${sample.kept} ORDER BY "x", "y"`,
      statement.params,
    );
  if (sample.kept >= sample.ns) return numbered(null);
  const nsOf = (answer: readonly SqlRow[]) => answer.filter((row) => row.class === 'ns').length;
  return firstByHash({ hash: '"hash"', budget: sample.kept, rows: sample.ns }, numbered, nsOf);
}

interface Extent {
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
}

function extentOf(stats: Record<string, unknown>): Extent {
  const numberOr = (value: unknown, fallback: number) =>
    value === null || value === undefined || !Number.isFinite(Number(value)) ? fallback : Number(value);
  return {
    xMin: numberOr(stats.x_min, 0),
    xMax: numberOr(stats.x_max, 0),
    yMin: numberOr(stats.y_min, 0),
    yMax: numberOr(stats.y_max, 0),
  };
}

/**
 * One point of each class per cell of a grid of √(budget / 2) cells a side over the plot, the one of
 * lowest p (then x, y: the same every time), and the `LABELLED_HITS` most significant `up` and
 * `down` points wherever they are, so the chart names the same hits as over every point. A cell
 * is a few pixels wide: the shape of each class, its extremes and the thresholds' edges stay.
 * Each cell's point is its group's `arg_min` over the whole row and the hits a top-N: a row number
 * per cell and one over every hit sorted every row (~0.7 s for 400,000 rows; ~0.15 s this way).
 */
function gridSql(classed: string, plotY: string, grid: Extent & { budget: number; highest: number }): string {
  // `ns` points fill most cells and `up`/`down` ones a share of them again: half the budget's
  // cells keep the whole answer near the budget.
  const side = Math.max(1, Math.floor(Math.sqrt(grid.budget / 2)));
  // The last cell holds the highest value itself (`floor` of exactly it would open one more).
  const width = (Math.max(grid.xMax - grid.xMin, 1e-12) * (1 + 1e-9)) / side;
  const height = (Math.max(Math.max(grid.yMax, grid.highest) - grid.yMin, 1e-12) * (1 + 1e-9)) / side;
  const y = plotY === 'minus_log10_y' ? `coalesce("__row"."minus_log10_y", ${grid.highest})` : `"__row"."${plotY}"`;
  const cell =
    `"__row"."class" AS "cell_class", floor(("__row"."x" - ${grid.xMin}) / ${width}) AS "cell_x", ` +
    `floor((${y} - ${grid.yMin}) / ${height}) AS "cell_y"`;
  // Each row as one struct value ("__row": no role is named so), with its order (also a struct, compared field by field).
  const points = `SELECT "__row" AS "point", ("__row"."rank_p", "__row"."x", "__row"."y") AS "key", ${cell} FROM (${classed}) AS "__row"`;
  return (
    `WITH "points" AS (${points}) SELECT unnest("point") FROM (` +
    `SELECT arg_min("point", "key") AS "point" FROM "points" GROUP BY "cell_class", "cell_x", "cell_y" ` +
    `UNION (SELECT "point" FROM "points" WHERE "point"."class" <> 'ns' ORDER BY "key" LIMIT ${LABELLED_HITS})) ` +
    `ORDER BY "point"."x", "point"."y"`
  );
}

const classRole: Role = { name: 'class', type: 'string', column: null, output: 'plain' };
