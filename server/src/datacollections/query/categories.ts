import { DEFAULT_CATEGORY_BUDGET, type FigureComponent, type FigureData } from '@service/common';
import { count, type Source } from './columns.js';
import { asParam, figureAnswer, figureColumns, numberRole, renamed, roleOf } from './figure-rows.js';
import { aggSql, approximateOver, type ComputeOptions } from './fit.js';
import { type NarrowedRows, whereOf } from './narrowed.js';
import type { Statement } from './statement.js';

/**
 * Bars (by x, split by color) and pie slices (by color): the categories with the largest
 * aggregate, at most `max_categories`, and one row folding the rest (`other`), its aggregate
 * computed again from the rest's rows (a mean of the rest, not a mean of means). Bars keep
 * their color groups in the folded row too. The first pass ranks the categories; a second one,
 * only when there is a rest or a color split, aggregates against the kept ones.
 */
export async function categoryData(
  { connection, from, conditions }: NarrowedRows,
  source: Source,
  figure: FigureComponent,
  statement: Statement,
  options: ComputeOptions,
): Promise<FigureData> {
  const { x, y, color } = figureColumns(source, figure);
  const pie = figure.chart === 'pie';
  const key = pie ? color : x;
  if (key === null) throw new Error(`a ${figure.chart} chart needs ${pie ? 'color' : 'x'}`);
  const split = pie ? null : color;
  const budget = figure.max_categories ?? DEFAULT_CATEGORY_BUDGET;
  const agg = figure.agg ?? 'count';
  const measured = agg === 'count' ? null : y;
  const keyName = pie ? 'color' : 'x';
  const roles = [
    roleOf(keyName, key),
    ...(split === null ? [] : [roleOf('color', split)]),
    numberRole('y', measured, aggSql(agg, measured).type),
    numberRole('other', null, 'boolean'),
  ];
  const selects = [`${key.sql} AS "k"`];
  if (split !== null) selects.push(`${split.sql} AS "c"`);
  if (measured !== null) selects.push(`${measured.sql} AS "v"`);
  const rows = `(SELECT ${selects.join(', ')} FROM ${from}${whereOf(conditions)}) AS "m"`;
  const approximate = agg === 'median' && approximateOver(source, options);
  const value = aggSql(agg, measured === null ? null : renamed(measured, '"m"."v"'), undefined, approximate);

  const ranked = await connection.query(
    `SELECT * FROM (SELECT "m"."k" AS "${keyName}", ${value.sql} AS "y", count(*) OVER () AS "groups", ` +
      `sum(count(*)) OVER () AS "total" FROM ${rows} GROUP BY 1) ` +
      `ORDER BY "y" DESC NULLS LAST, "${keyName}" ASC NULLS LAST LIMIT ${budget}`,
    statement.params,
  );
  const first = ranked[0];
  const total = count(first?.total);
  const folded = first !== undefined && count(first.groups) > budget;
  if (split === null && !folded) {
    return figureAnswer(
      roles,
      ranked.map((row) => ({ ...row, other: false })),
      approximate,
      total,
    );
  }
  // The kept categories as a small table, each value back as the column's own type.
  const kept = ranked
    .map((row, index) => `(CAST(${statement.param(asParam(row[keyName] ?? null))} AS ${key.sqlType}), ${index + 1})`)
    .join(', ');
  const top = `(VALUES ${kept}) AS "t"("k", "rank")`;
  if (split === null) {
    const [rest = {}] = await connection.query(
      `SELECT ${value.sql} AS "y" FROM ${rows} ANTI JOIN ${top} ON "m"."k" IS NOT DISTINCT FROM "t"."k"`,
      statement.params,
    );
    const answer = [
      ...ranked.map((row) => ({ ...row, other: false })),
      { [keyName]: null, y: rest.y ?? null, other: true },
    ];
    return figureAnswer(roles, answer, approximate, total);
  }
  const grouped = await connection.query(
    `SELECT CASE WHEN "t"."rank" IS NULL THEN NULL ELSE "m"."k" END AS "${keyName}", "m"."c" AS "color", ` +
      `${value.sql} AS "y", "t"."rank" IS NULL AS "other", min(coalesce("t"."rank", ${budget + 1})) AS "order" ` +
      `FROM ${rows} LEFT JOIN ${top} ON "m"."k" IS NOT DISTINCT FROM "t"."k" GROUP BY 1, 2, 4 ` +
      'ORDER BY "order", "color" ASC NULLS LAST',
    statement.params,
  );
  return figureAnswer(roles, grouped, approximate, total);
}
