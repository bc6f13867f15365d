import { DEFAULT_CATEGORY_BUDGET, type FigureComponent, type FigureData } from '@service/common';
import type { Source } from './columns.js';
import { countRows, figureAnswer, figureColumns, numberRole, roleOf } from './figure-rows.js';
import { type NarrowedRows, whereOf } from './narrowed.js';
import type { Statement } from './statement.js';

const STATISTICS = ['mean', 'min', 'q1', 'median', 'q3', 'max', 'whisker_low', 'whisker_high'] as const;

/**
 * Box statistics of y per x group (the `max_categories` groups with most values; one box
 * without x): count, mean, min, quartiles interpolated as numpy and pandas do, max, and Tukey's
 * whiskers, the furthest values within 1.5 × IQR of the quartiles.
 */
export async function boxData(
  { connection, from, conditions }: NarrowedRows,
  source: Source,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const { x, y } = figureColumns(source, figure);
  if (y === null) throw new Error('a box plot needs y');
  const budget = figure.max_categories ?? DEFAULT_CATEGORY_BUDGET;
  const total = await countRows(connection, from, conditions, statement.params);
  const rows = await connection.query(
    `WITH "m" AS (SELECT ${x === null ? 'NULL' : x.sql} AS "g", CAST(${y.sql} AS DOUBLE) AS "v" ` +
      `FROM ${from}${whereOf(conditions, `${y.sql} IS NOT NULL`)}), ` +
      `"top" AS (SELECT "g" FROM "m" GROUP BY 1 ORDER BY count(*) DESC, 1 ASC NULLS LAST LIMIT ${budget}), ` +
      `"s" AS (SELECT "m"."g", count(*) AS "count", avg("v") AS "mean", min("v") AS "min", ` +
      `quantile_cont("v", 0.25) AS "q1", quantile_cont("v", 0.5) AS "median", quantile_cont("v", 0.75) AS "q3", ` +
      `max("v") AS "max" FROM "m" SEMI JOIN "top" ON "m"."g" IS NOT DISTINCT FROM "top"."g" GROUP BY 1) ` +
      `SELECT "s"."g" AS "x", any_value("s"."count") AS "count", ` +
      `${['mean', 'min', 'q1', 'median', 'q3', 'max'].map((name) => `any_value("s"."${name}") AS "${name}"`).join(', ')}, ` +
      `min("m"."v") FILTER (WHERE "m"."v" >= "s"."q1" - 1.5 * ("s"."q3" - "s"."q1")) AS "whisker_low", ` +
      `max("m"."v") FILTER (WHERE "m"."v" <= "s"."q3" + 1.5 * ("s"."q3" - "s"."q1")) AS "whisker_high" ` +
      `FROM "s" JOIN "m" ON "m"."g" IS NOT DISTINCT FROM "s"."g" GROUP BY 1 ` +
      `ORDER BY 2 DESC, 1 ASC NULLS LAST`,
    statement.params,
  );
  const roles = [
    ...(x === null ? [] : [roleOf('x', x)]),
    numberRole('count', null, 'long'),
    ...STATISTICS.map((name) => numberRole(name, y)),
  ];
  return figureAnswer(roles, rows, false, total);
}
