import {
  DEFAULT_CATEGORY_BUDGET,
  DEFAULT_DENSITY_BINS,
  DEFAULT_ECDF_STEPS,
  DEFAULT_POINT_BUDGET,
  type FigureComponent,
  type FigureData,
} from '@service/common';
import type { SqlValue } from '../../engine/duckdb.js';
import { columnOf, count, type TableSnapshot } from '../sql/columns.js';
import { measuredSql } from '../sql/finite.js';
import { type NarrowedRows, scalarRow, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import { Bins, figureAnswer, numberOf, numberRole, type Role, roleOf } from './figure-rows.js';

/**
 * Distributions drawn point by point, step by step or cell by cell (docs/dashboards.md "Ranked
 * effects, dots, stacked bars, strips, ECDFs, densities and funnels"): strips, ECDFs and 2-D
 * densities, each computed in DuckDB and thinned there to what the chart draws.
 */

const named = (source: TableSnapshot, figure: FigureComponent, field: 'x' | 'y' | 'color') => {
  const name = figure[field];
  return name === undefined ? null : columnOf(source, name, field);
};

/** A numeric column as a double, null where it is null, NaN or ±Infinity. */
const valueSql = (sql: string) => `CAST(${sql} AS DOUBLE)`;

/**
 * Strip: a point per row with a value (x), in its category's strip (y) and group (color); beyond
 * `max_points` the points whose hash of their values comes first (the same sample every time).
 */
export async function stripData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const x = columnOf(source, figure.x ?? '', 'x');
  const shown = [named(source, figure, 'y'), named(source, figure, 'color')];
  const [y, color] = shown;
  const budget = figure.max_points ?? DEFAULT_POINT_BUDGET;
  const value = valueSql(measuredSql(x));
  const selects = [
    `${value} AS "x"`,
    ...(y === null || y === undefined ? [] : [`${y.sql} AS "y"`]),
    ...(color === null || color === undefined ? [] : [`${color.sql} AS "color"`]),
  ];
  const drawable = `${value} IS NOT NULL`;
  const counts = await scalarRow(rows, statement.params, {
    n: 'count(*)',
    drawable: `count(*) FILTER (WHERE ${drawable})`,
  });
  const sampled = count(counts.drawable) > budget;
  const hash = `hash(${selects.map((select) => select.replace(/ AS "\w+"$/, '')).join(', ')})`;
  const points = await rows.connection.query(
    `SELECT * FROM (SELECT ${selects.join(', ')} FROM ${rows.from}${whereOf(rows.conditions, drawable)} ` +
      `${sampled ? `ORDER BY ${hash}, 1 ` : ''}LIMIT ${budget}) ORDER BY ${selects.length > 1 ? '2 ASC NULLS LAST, ' : ''}1`,
    statement.params,
  );
  const roles: Role[] = [
    numberRole('x', x),
    ...(y === null || y === undefined ? [] : [roleOf('y', y)]),
    ...(color === null || color === undefined ? [] : [roleOf('color', color)]),
  ];
  return figureAnswer(roles, points, sampled, count(counts.n));
}

/**
 * ECDF: per group (the `max_categories` groups of most rows), the share of the group's rows at or
 * below each distinct value. A group of more distinct values than its part of `max_points` keeps
 * its first and last step and those where the share crosses an equal step (each share exact).
 */
export async function ecdfData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const x = columnOf(source, figure.x ?? '', 'x');
  const color = named(source, figure, 'color');
  const groupBudget = figure.max_categories ?? DEFAULT_CATEGORY_BUDGET;
  const value = valueSql(measuredSql(x));
  const group = color === null ? 'NULL' : color.sql;
  const [stats = {}] = await rows.connection.query(
    `SELECT count(*) AS "groups", sum("n") AS "placed", (SELECT count(*) FROM ${rows.from}${whereOf(rows.conditions)}) AS "n" ` +
      `FROM (SELECT ${group} AS "c", count(*) AS "n" FROM ${rows.from}${whereOf(rows.conditions, `${value} IS NOT NULL`)} GROUP BY 1)`,
    statement.params,
  );
  const groups = Math.min(count(stats.groups), groupBudget);
  // The first and last step of a group are always kept, so each keeps at most `perGroup` + 2.
  const perGroup = Math.max(1, Math.floor((figure.max_points ?? DEFAULT_ECDF_STEPS) / Math.max(1, groups)) - 2);
  const answer = await rows.connection.query(
    'WITH "steps" AS (SELECT "c", "x", count(*) AS "n" FROM (' +
      `SELECT ${group} AS "c", ${value} AS "x" FROM ${rows.from}${whereOf(rows.conditions, `${value} IS NOT NULL`)}) GROUP BY 1, 2), ` +
      '"kept" AS (SELECT "c" FROM "steps" GROUP BY 1 ORDER BY sum("n") DESC, "c" ASC NULLS LAST ' +
      `LIMIT ${groupBudget}), ` +
      '"cumulative" AS (SELECT "c", "x", CAST(sum("n") OVER "up" AS DOUBLE) / sum("n") OVER "all" AS "share", ' +
      'row_number() OVER "up" AS "i", count(*) OVER "all" AS "last" FROM "steps" SEMI JOIN "kept" ' +
      'ON "steps"."c" IS NOT DISTINCT FROM "kept"."c" ' +
      'WINDOW "up" AS (PARTITION BY "c" ORDER BY "x" ROWS UNBOUNDED PRECEDING), "all" AS (PARTITION BY "c")) ' +
      `SELECT "x", "c" AS "color", "share", "last" > ${perGroup + 2} AS "thinned" FROM "cumulative" ` +
      `WHERE "last" <= ${perGroup + 2} OR "i" = 1 OR "i" = "last" ` +
      `OR ("i" * ${perGroup}) // "last" <> (("i" - 1) * ${perGroup}) // "last" ORDER BY "c" ASC NULLS LAST, "x"`,
    statement.params,
  );
  const roles: Role[] = [
    numberRole('x', x),
    ...(color === null ? [] : [roleOf('color', color)]),
    numberRole('share', null),
  ];
  return {
    ...figureAnswer(
      roles,
      answer,
      answer.some((row) => row.thinned === true),
      count(stats.n),
    ),
    not_shown: Math.max(0, count(stats.groups) - groupBudget),
  };
}

/**
 * 2-D density: x and y in `bins` equal-width bins each (between their lowest and highest value),
 * each non-empty cell's rows, and its density: rows / (rows placed × cell area), so that the
 * densities over the grid sum, times the cell area, to 1.
 */
export async function densityData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const x = columnOf(source, figure.x ?? '', 'x');
  const y = columnOf(source, figure.y ?? '', 'y');
  const [xValue, yValue] = [valueSql(measuredSql(x)), valueSql(measuredSql(y))];
  const placed = `${xValue} IS NOT NULL AND ${yValue} IS NOT NULL`;
  const stats = await scalarRow(rows, statement.params, {
    n: 'count(*)',
    placed: `count(*) FILTER (WHERE ${placed})`,
    x_low: `min(${xValue}) FILTER (WHERE ${placed})`,
    x_high: `max(${xValue}) FILTER (WHERE ${placed})`,
    y_low: `min(${yValue}) FILTER (WHERE ${placed})`,
    y_high: `max(${yValue}) FILTER (WHERE ${placed})`,
  });
  const roles = [
    numberRole('x', x),
    numberRole('y', y),
    numberRole('count', null, 'long'),
    numberRole('density', null),
  ];
  const [xLow, xHigh, yLow, yHigh] = [stats.x_low, stats.x_high, stats.y_low, stats.y_high].map(numberOf);
  const total = count(stats.n);
  if (xLow == null || xHigh == null || yLow == null || yHigh == null) return figureAnswer(roles, [], false, total);
  const bins = figure.bins ?? DEFAULT_DENSITY_BINS;
  const [xBins, yBins] = [new Bins(xLow, xHigh, bins), new Bins(yLow, yHigh, bins)];
  const param = (bound: SqlValue) => statement.param(bound);
  const cells = await rows.connection.query(
    `SELECT ${xBins.indexSql(xValue, param)} AS "i", ${yBins.indexSql(yValue, param)} AS "j", count(*) AS "count" ` +
      `FROM ${rows.from}${whereOf(rows.conditions, placed)} GROUP BY 1, 2 ORDER BY 1, 2`,
    statement.params,
  );
  // An axis of one value is one cell of width 1 (its density then per unit of the other axis).
  const step = (axis: Bins) => (axis.count === 1 ? 1 : axis.edges(0)[1] - axis.edges(0)[0]);
  const [xStep, yStep] = [step(xBins), step(yBins)];
  const area = count(stats.placed) * xStep * yStep;
  const middle = (axis: Bins, index: number) => {
    const [low, high] = axis.edges(index);
    return axis.count === 1 ? low : (low + high) / 2;
  };
  const points = cells.map((cell) => ({
    x: middle(xBins, Number(cell.i)),
    y: middle(yBins, Number(cell.j)),
    count: cell.count,
    density: count(cell.count) / area,
  }));
  return {
    ...figureAnswer(roles, points, false, total),
    grid: {
      x_low: xLow,
      y_low: yLow,
      x_step: xStep,
      y_step: yStep,
      x_bins: xBins.count,
      y_bins: yBins.count,
      placed: count(stats.placed),
    },
  };
}
