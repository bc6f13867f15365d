import { DEFAULT_CATEGORY_BUDGET, type FigureComponent, type FigureData } from '@service/common';
import { count, type TableSnapshot } from '../sql/columns.js';
import { finiteOrNull } from '../sql/finite.js';
import { type NarrowedRows, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import { asParam, figureAnswer, figureColumns, numberRole, renamed, roleOf } from './figure-rows.js';
import { aggSql, approximateOver, type ComputeOptions } from './fit.js';

/** Aggregates whose value over the rest can be made from each category's partial results. */
const FOLDABLE: ReadonlySet<string> = new Set(['count', 'sum', 'mean', 'min', 'max']);

/**
 * One pass for bars without a color split whose aggregate folds (`FOLDABLE`): each category's
 * value with the partials it is made of, ranked; then the kept ones and, when there is a rest,
 * its value from the rest's partials (a mean of the rest's rows: their sum over their count).
 */
function rankedAndFolded(
  rows: string,
  keyName: string,
  value: string,
  agg: string,
  integral: boolean,
  budget: number,
): string {
  // The mean's partials over finite values only, as the mean itself (finite.ts).
  const v = finiteOrNull('"m"."v"');
  const partials = agg === 'mean' ? `, sum(${v}) AS "s", count(${v}) AS "c"` : '';
  const rest = {
    count: 'CAST(sum("y") AS BIGINT)',
    sum: integral ? 'CAST(sum("y") AS HUGEINT)' : finiteOrNull('CAST(sum("y") AS DOUBLE)'),
    mean: finiteOrNull('CASE WHEN sum("c") > 0 THEN CAST(sum("s") AS DOUBLE) / CAST(sum("c") AS DOUBLE) END'),
    min: 'min("y")',
    max: 'max("y")',
  }[agg];
  return (
    'WITH "ranked" AS MATERIALIZED (SELECT *, ' +
    `row_number() OVER (ORDER BY "y" DESC NULLS LAST, "${keyName}" ASC NULLS LAST) AS "position", ` +
    'sum("n") OVER () AS "total" FROM ' +
    `(SELECT "m"."k" AS "${keyName}", ${value} AS "y", count(*) AS "n"${partials} FROM ${rows} GROUP BY 1)) ` +
    `SELECT "${keyName}", "y", false AS "other", "position", "total" FROM "ranked" WHERE "position" <= ${budget} ` +
    `UNION ALL SELECT NULL, ${rest}, true, ${budget + 1}, NULL FROM "ranked" WHERE "position" > ${budget} ` +
    'HAVING count(*) > 0 ORDER BY "position"'
  );
}

/** What a category chart groups by (x for bars, color for pies), splits by, measures, and answers. */
function categoryRoles(source: TableSnapshot, figure: FigureComponent) {
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
  return { key, keyName, split, budget, agg, measured, roles };
}

/**
 * Bars (by x, split by color) and pie slices (by color): the categories with the largest
 * aggregate, at most `max_categories`, and one row folding the rest (`other`), its aggregate
 * computed again from the rest's rows (a mean of the rest, not a mean of means). Bars keep
 * their color groups in the folded row too. Counts, sums, means, minima and maxima fold in one
 * pass; otherwise the first pass ranks the categories and a second one, only when there is a rest
 * or a color split, aggregates against the kept ones.
 */
export async function categoryData(
  { connection, from, conditions }: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  options: ComputeOptions,
): Promise<FigureData> {
  const { key, keyName, split, budget, agg, measured, roles } = categoryRoles(source, figure);
  const selects = [`${key.sql} AS "k"`];
  if (split !== null) selects.push(`${split.sql} AS "c"`);
  if (measured !== null) selects.push(`${measured.sql} AS "v"`);
  const rows = `(SELECT ${selects.join(', ')} FROM ${from}${whereOf(conditions)}) AS "m"`;
  const approximate = agg === 'median' && approximateOver(source, options);
  const value = aggSql(agg, measured === null ? null : renamed(measured, '"m"."v"'), undefined, approximate);

  if (split === null && FOLDABLE.has(agg)) {
    const answer = await connection.query(
      rankedAndFolded(rows, keyName, value.sql, agg, measured?.kind === 'integer', budget),
      statement.params,
    );
    const kept = answer.filter((row) => row.other !== true);
    return figureAnswer(roles, answer, approximate, count(kept[0]?.total ?? answer[0]?.total));
  }
  const ranked = await connection.query(
    `SELECT * FROM (SELECT "m"."k" AS "${keyName}", ${value.sql} AS "y", count(*) OVER () AS "groups", ` +
      `sum(count(*)) OVER () AS "total" FROM ${rows} GROUP BY 1) ` +
      `ORDER BY "y" DESC NULLS LAST, "${keyName}" ASC NULLS LAST LIMIT ${budget}`,
    statement.params,
  );
  const first = ranked[0];
  // No category under the filters: an empty chart (the kept-categories table below cannot be empty).
  if (first === undefined) return figureAnswer(roles, [], approximate, 0);
  const total = count(first.total);
  const folded = count(first.groups) > budget;
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
