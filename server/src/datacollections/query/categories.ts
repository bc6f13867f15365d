import { DEFAULT_CATEGORY_BUDGET, type FigureComponent, type FigureData } from '@service/common';
import { count, type Source } from './columns.js';
import { figureAnswer, figureColumns, numberRole, renamed, roleOf } from './figure-rows.js';
import { aggSql } from './fit.js';
import { type NarrowedRows, whereOf } from './narrowed.js';
import type { Statement } from './statement.js';

/**
 * Bars (by x, split by color) and pie slices (by color): the categories with the largest
 * aggregate, at most `max_categories`, and one row folding the rest (`other`), its aggregate
 * computed again from the rest's rows (a mean of the rest, not a mean of means). Bars keep
 * their color groups in the folded row too.
 */
export async function categoryData(
  { connection, from, conditions }: NarrowedRows,
  source: Source,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const { x, y, color } = figureColumns(source, figure);
  const pie = figure.chart === 'pie';
  const key = pie ? color : x;
  if (key === null) throw new Error(`a ${figure.chart} chart needs ${pie ? 'color' : 'x'}`);
  const split = pie ? null : color;
  const budget = figure.max_categories ?? DEFAULT_CATEGORY_BUDGET;
  const agg = figure.agg ?? 'count';
  const measured = agg === 'count' ? null : y;
  const value = aggSql(agg, measured === null ? null : renamed(measured, '"v"'));
  const selects = [`${key.sql} AS "k"`];
  if (split !== null) selects.push(`${split.sql} AS "c"`);
  if (measured !== null) selects.push(`${measured.sql} AS "v"`);
  const keyName = pie ? 'color' : 'x';
  const rows = await connection.query(
    `WITH "m" AS (SELECT ${selects.join(', ')} FROM ${from}${whereOf(conditions)}), ` +
      `"top" AS (SELECT "k", ${value.sql} AS "a" FROM "m" GROUP BY 1 ORDER BY 2 DESC NULLS LAST, 1 ASC NULLS LAST ` +
      `LIMIT ${budget}), ` +
      `"ranked" AS (SELECT "k", row_number() OVER (ORDER BY "a" DESC NULLS LAST, "k" ASC NULLS LAST) AS "rank" FROM "top") ` +
      `SELECT CASE WHEN "ranked"."rank" IS NULL THEN NULL ELSE "m"."k" END AS "${keyName}", ` +
      `${split === null ? '' : '"m"."c" AS "color", '}` +
      `${value.sql} AS "y", "ranked"."rank" IS NULL AS "other", ` +
      `count(*) AS "n", min(coalesce("ranked"."rank", ${budget + 1})) AS "order" ` +
      `FROM "m" LEFT JOIN "ranked" ON "m"."k" IS NOT DISTINCT FROM "ranked"."k" ` +
      `GROUP BY ${split === null ? '1, 3' : '1, 2, 4'} ` +
      `ORDER BY "order"${split === null ? '' : ', "color" ASC NULLS LAST'}`,
    statement.params,
  );
  const yRole = numberRole('y', measured, value.type);
  const otherRole = numberRole('other', null, 'boolean');
  const roles = pie
    ? [roleOf('color', key), yRole, otherRole]
    : [roleOf('x', key), ...(split === null ? [] : [roleOf('color', split)]), yRole, otherRole];
  const total = rows.reduce((sum, row) => sum + count(row.n), 0);
  return figureAnswer(roles, rows, false, total);
}
