import {
  DEFAULT_FC_THRESHOLD,
  DEFAULT_FIELD_POINT_BUDGET,
  DEFAULT_P_THRESHOLD,
  type FigureComponent,
  type FigureData,
} from '@service/common';
import { type Column, columnOf, count, type TableSnapshot } from '../sql/columns.js';
import { measuredSql } from '../sql/finite.js';
import { type NarrowedRows, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import { figureAnswer, numberRole, type Role, roleOf } from './figure-rows.js';

/**
 * The field's point charts of a differential test (docs/dashboards.md "Volcano, MA, Manhattan and QQ plots"):
 * each point classed `up`, `down` or `ns` by its p value and fold change. Every `up` and `down`
 * point is sent; beyond the point budget the `ns` ones are a uniform sample (by hash of their
 * values, the same every time).
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
  return classedPoints(rows, figure, statement, { fold, p, shown, drawable: [`${fold} IS NOT NULL`, validPSql(p)] });
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
  return classedPoints(rows, figure, statement, { fold, p, shown, drawable });
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
    `SELECT ${selects.join(', ')}, ${classSql(points, figure)} AS "class", ` +
    `hash(${points.shown.map(({ sql }) => sql).join(', ')}) AS "hash" FROM ${from}${whereOf(conditions, points.drawable)}`;
  const [stats = {}] = await connection.query(
    `SELECT count(*) FILTER (WHERE "class" = 'up') AS "up", count(*) FILTER (WHERE "class" = 'down') AS "down", ` +
      `count(*) FILTER (WHERE "class" = 'ns') AS "ns", ${top} AS "top", ` +
      `(SELECT count(*) FROM ${from}${whereOf(conditions)}) AS "n" FROM (${classed})`,
    statement.params,
  );
  const counts = { up: count(stats.up), down: count(stats.down), ns: count(stats.ns) };
  const nsKept = Math.max(0, budget - counts.up - counts.down);
  const drawn = await connection.query(
    `SELECT * FROM (SELECT *, row_number() OVER (ORDER BY "hash", "x", "y") AS "sample" FROM (${classed}) ` +
      `WHERE "class" = 'ns') WHERE "sample" <= ${nsKept} UNION ALL BY NAME ` +
      `SELECT * FROM (${classed}) WHERE "class" <> 'ns' ORDER BY "x", "y"`,
    statement.params,
  );
  const roles = [...points.shown.map(({ role }) => role), classRole];
  const highest = stats.top === null || stats.top === undefined ? 1 : Number(stats.top);
  const capped = drawn.filter((row) => row.minus_log10_y === null).length;
  const withCap = drawn.map((row) => (row.minus_log10_y === null ? { ...row, minus_log10_y: highest } : row));
  return {
    ...figureAnswer(roles, withCap, counts.ns > nsKept, count(stats.n)),
    counts,
    ...(capped > 0 ? { capped } : {}),
  };
}

const classRole: Role = { name: 'class', type: 'string', column: null, output: 'plain' };
