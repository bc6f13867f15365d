import {
  DEFAULT_FC_THRESHOLD,
  DEFAULT_P_THRESHOLD,
  DEFAULT_POINT_BUDGET,
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
import type { ComputeOptions } from './fit.js';
import {
  type ClassedPoints,
  cellSql,
  copyGridSql,
  copySampledSql,
  copyStatsSql,
  orderSql,
  type PointExtent,
  type PointsOf,
  pointColumns,
  pointGrid,
  pointsCopySql,
} from './point-cells.js';

/**
 * The field's point charts of a differential test (docs/dashboards.md "Volcano, MA, Manhattan and QQ plots"):
 * each point classed `up`, `down` or `ns` by its p value and fold change. Every `up` and `down`
 * point is sent while they fit in the point budget, and beyond it the `ns` ones are a uniform
 * sample (by hash of their values, the same every time). When the `up` and `down` points alone
 * are more than the budget, every class is thinned to one point per cell of a grid over the whole
 * table's plot (`gridSql`, point-cells.ts): hundreds of thousands of points took the browser 10–25 s
 * to draw, and a pixel shows one of them anyway. Large versions are read from a copy holding each
 * row's class and cell (point-cells.ts); the answer is the same.
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

export function volcanoData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  options: Pick<ComputeOptions, 'memo'>,
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
  const points = { fold, p, shown, plotY: 'minus_log10_y' as const, drawable };
  return classedPoints(rows, source, figure, statement, { ...points, classSql: classSql(points, figure) }, options);
}

export function maData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  options: Pick<ComputeOptions, 'memo'>,
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
  const points = { fold, p, shown, plotY: 'y' as const, drawable };
  return classedPoints(rows, source, figure, statement, { ...points, classSql: classSql(points, figure) }, options);
}

function labelShown(source: TableSnapshot, figure: FigureComponent): { role: Role; sql: string }[] {
  if (figure.label === undefined) return [];
  const label = columnOf(source, figure.label, 'label');
  return [{ role: roleOf('label', label), sql: label.sql }];
}

/** The class of a point, as the contract defines it (docs/dashboards.md). */
function classSql(points: Pick<ClassedPoints, 'p' | 'fold'>, figure: FigureComponent): string {
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
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  points: ClassedPoints,
  options: Pick<ComputeOptions, 'memo'>,
): Promise<FigureData> {
  const budget = figure.max_points ?? DEFAULT_POINT_BUDGET;
  const extent = await wholeTableExtent(rows, source, points, options);
  const of: PointsOf = { points, grid: pointGrid(extent, budget), names: pointColumns(new Set(source.byName.keys())) };
  const copy = rows.derivedCopy(pointsCopySql(of));
  try {
    const reads = copy === null ? overRows(rows, of) : overCopy(rows, of, copy.from);
    const [stats = {}] = await rows.connection.query(reads.stats, statement.params);
    const counts = { up: count(stats.up), down: count(stats.down), ns: count(stats.ns) };
    const highest = stats.top === null || stats.top === undefined ? 1 : Number(stats.top);
    const gridded = counts.up + counts.down > budget;
    const nsKept = Math.max(0, budget - counts.up - counts.down);
    const drawn = gridded
      ? await rows.connection.query(reads.grid, statement.params)
      : await reads.sampled(statement, { kept: nsKept, ns: counts.ns });
    const roles = [...points.shown.map(({ role }) => role), classRole];
    const capped = drawn.filter((row) => row.minus_log10_y === null).length;
    const withCap = drawn.map((row) => (row.minus_log10_y === null ? { ...row, minus_log10_y: highest } : row));
    return {
      ...figureAnswer(roles, withCap, gridded || counts.ns > nsKept, count(stats.n)),
      counts,
      ...(capped > 0 ? { capped } : {}),
    };
  } finally {
    copy?.release();
  }
}

/**
 * The extent of the plotted points over the whole table (no filter: no parameters), remembered
 * per snapshot: the grid lies over it whatever the filters, so that a row's cell is its own.
 */
async function wholeTableExtent(
  rows: NarrowedRows,
  source: TableSnapshot,
  points: ClassedPoints,
  options: Pick<ComputeOptions, 'memo'>,
): Promise<PointExtent> {
  const what = [...points.shown.map(({ sql }) => sql), ...points.drawable, points.plotY].join('\u0000');
  const key = options.memo.keyOf(source, `points-extent\u0000${what}`);
  const known = options.memo.get(key) as PointExtent | undefined;
  if (known !== undefined) return known;
  const [row = {}] = await rows.connection.query(
    `SELECT min("x") AS "x_min", max("x") AS "x_max", min("${points.plotY}") AS "y_min", ` +
      `max("${points.plotY}") AS "y_max", ${topSql(points)} AS "top" FROM (${classedSql(rows.from, [], points)})`,
    [],
  );
  const numberOr = (value: unknown, fallback: number) =>
    value === null || value === undefined || !Number.isFinite(Number(value)) ? fallback : Number(value);
  const extent = {
    xMin: numberOr(row.x_min, 0),
    xMax: numberOr(row.x_max, 0),
    yMin: numberOr(row.y_min, 0),
    yMax: numberOr(row.y_max, 0),
    highest: numberOr(row.top, 1),
  };
  options.memo.set(key, extent);
  return extent;
}

/** The statements of one plot's answer, over the rows or over the copy. */
interface PointReads {
  /** One row: the class counts, `top` (the highest finite −log10 p) and `n` (the narrowed rows). */
  stats: string;
  /** Thinned to the grid: one point of each class per cell, and the labelled hits. */
  grid: string;
  /** Every `up` and `down` point and the `kept` first `ns` points by (hash, x, y). */
  sampled(statement: Statement, sample: { kept: number; ns: number }): Promise<SqlRow[]>;
}

/** Every drawable narrowed row with its shown columns, class, p (`rank_p`) and hash. */
function classedSql(from: string, conditions: readonly string[], points: ClassedPoints): string {
  const selects = points.shown.map(({ role, sql }) => `${sql} AS "${role.name}"`);
  return (
    `SELECT ${selects.join(', ')}, ${points.classSql} AS "class", ${points.p ?? 'NULL'} AS "rank_p", ` +
    `${orderSql(points).hash} AS "hash" FROM ${from}${whereOf(conditions, points.drawable)}`
  );
}

/** Over `classedSql`'s rows, the highest finite −log10 p (a volcano's cap of p = 0; none for an MA plot). */
const topSql = (points: ClassedPoints) => (points.plotY === 'minus_log10_y' ? 'max("minus_log10_y")' : 'NULL');

/** Ties of x and y in the answer's order broken as the copy's rank breaks them. */
const ORDER_OF_ROWS = 'ORDER BY "x", "y", "rank_p", "hash"';

function overRows(rows: NarrowedRows, of: PointsOf): PointReads {
  const { from, conditions } = rows;
  const classed = classedSql(from, conditions, of.points);
  return {
    stats:
      `SELECT count(*) FILTER (WHERE "class" = 'up') AS "up", count(*) FILTER (WHERE "class" = 'down') AS "down", ` +
      `count(*) FILTER (WHERE "class" = 'ns') AS "ns", ${topSql(of.points)} AS "top", ` +
      `(SELECT count(*) FROM ${from}${whereOf(conditions)}) AS "n" FROM (${classed})`,
    grid: gridSql(classed, of),
    sampled: (statement, sample) => sampledPoints(rows, classed, statement, sample),
  };
}

function overCopy(rows: NarrowedRows, of: PointsOf, from: string): PointReads {
  const where = (extra: string) => whereOf(rows.conditions, extra);
  const top = of.points.p === null || of.points.plotY !== 'minus_log10_y' ? 'NULL' : minusLog10Sql(of.points.p);
  return {
    stats: copyStatsSql(of, from, whereOf(rows.conditions), top),
    grid: copyGridSql(of, from, where, LABELLED_HITS),
    sampled: (statement, sample) =>
      rows.connection.query(copySampledSql(of, from, where, sample.kept), statement.params),
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
        `WHERE "sample" IS NULL OR "sample" <= ${sample.kept} ${ORDER_OF_ROWS}`,
      statement.params,
    );
  if (sample.kept >= sample.ns) return numbered(null);
  const nsOf = (answer: readonly SqlRow[]) => answer.filter((row) => row.class === 'ns').length;
  return firstByHash({ hash: '"hash"', budget: sample.kept, rows: sample.ns }, numbered, nsOf);
}

/**
 * One point of each class per cell of the grid (point-cells.ts), the one of lowest p (then x, y,
 * hash: the same every time), and the `LABELLED_HITS` most significant `up` and `down` points
 * wherever they are, so the chart names the same hits as over every point. A cell is a few
 * pixels wide: the shape of each class, its extremes and the thresholds' edges stay.
 * Each cell's point is its group's `arg_min` over the whole row and the hits a top-N: a row number
 * per cell and one over every hit sorted every row (~0.7 s for 400,000 rows; ~0.15 s this way).
 */
function gridSql(classed: string, { points, grid }: PointsOf): string {
  const { cellX, cellY } = cellSql('"__row"."x"', `"__row"."${points.plotY}"`, grid);
  const cell = `"__row"."class" AS "cell_class", ${cellX} AS "cell_x", ${cellY} AS "cell_y"`;
  // Each row as one struct value ("__row": no role is named so), with its order (also a struct, compared field by field).
  const key = '("__row"."rank_p", "__row"."x", "__row"."y", "__row"."hash")';
  const pointRows = `SELECT "__row" AS "point", ${key} AS "key", ${cell} FROM (${classed}) AS "__row"`;
  return (
    `WITH "points" AS (${pointRows}) SELECT unnest("point") FROM (` +
    `SELECT arg_min("point", "key") AS "point" FROM "points" GROUP BY "cell_class", "cell_x", "cell_y" ` +
    `UNION (SELECT "point" FROM "points" WHERE "point"."class" <> 'ns' ORDER BY "key" LIMIT ${LABELLED_HITS})) ` +
    'ORDER BY "point"."x", "point"."y", "point"."rank_p", "point"."hash"'
  );
}

const classRole: Role = { name: 'class', type: 'string', column: null, output: 'plain' };
