import { DEFAULT_CATEGORY_BUDGET, type FigureComponent, type FigureData } from '@service/common';
import type { JsonValue } from '../../engine/duckdb.js';
import { count, type TableSnapshot } from '../sql/columns.js';
import { measuredSql } from '../sql/finite.js';
import { type NarrowedRows, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import { asParam, countRows, figureAnswer, figureColumns, numberOf, numberRole, roleOf } from './figure-rows.js';
import { approximateOver, type ComputeOptions } from './fit.js';

const STATISTICS = ['mean', 'min', 'q1', 'median', 'q3', 'max', 'whisker_low', 'whisker_high'] as const;

/** Values per box the sampled quartiles come from: within about 1% of the interquartile range. */
export const BOX_SAMPLE = 16_384;

/**
 * Box statistics of y per x group (the `max_categories` groups with most values; one box
 * without x): count, mean, min, quartiles interpolated as numpy and pandas do, max, and Tukey's
 * whiskers, the furthest values within 1.5 × IQR of the quartiles. A box with no value beyond its
 * fences has its minimum and maximum as whiskers; for the others a second pass finds them against
 * each group's fences (a self-join would hold every row twice).
 */
export async function boxData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  options: ComputeOptions,
): Promise<FigureData> {
  const { connection, from, conditions } = rows;
  const { x, y } = figureColumns(source, figure);
  if (y === null) throw new Error('a box plot needs y');
  const budget = figure.max_categories ?? DEFAULT_CATEGORY_BUDGET;
  const roles = [
    ...(x === null ? [] : [roleOf('x', x)]),
    numberRole('count', null, 'long'),
    ...STATISTICS.map((name) => numberRole(name, y)),
  ];
  const approximate = await sampledBoxes(rows, source, statement, options);
  // A reservoir sample of each box's values: DuckDB's t-digest (approx_quantile) took 5× longer.
  const quantile = approximate
    ? `reservoir_quantile("v", [0.25, 0.5, 0.75], ${BOX_SAMPLE})`
    : 'quantile_cont("v", [0.25, 0.5, 0.75])';
  const group = x === null ? 'NULL' : x.sql;
  const values = `SELECT ${group} AS "g", CAST(${measuredSql(y)} AS DOUBLE) AS "v" FROM ${from}${whereOf(conditions)}`;
  // The rows matching the filters come from the same pass, summed over every group.
  const groups = await connection.query(
    `SELECT * FROM (SELECT "g", count("v") AS "count", avg("v") AS "mean", min("v") AS "min", ` +
      `${quantile} AS "quartiles", max("v") AS "max", sum(count(*)) OVER () AS "total" ` +
      `FROM (${values}) GROUP BY 1) WHERE "count" > 0 ORDER BY 2 DESC, 1 ASC NULLS LAST LIMIT ${budget}`,
    statement.params,
  );
  if (groups.length === 0) {
    return figureAnswer(roles, [], approximate, await countRows(rows, statement.params));
  }
  const total = count(groups[0]?.total);
  const boxes = groups.map((row) => {
    const [q1 = 0, median = 0, q3 = 0] = (row.quartiles as JsonValue[]).map((value) => numberOf(value) ?? 0);
    const reach = 1.5 * (q3 - q1);
    const [min, max] = [numberOf(row.min), numberOf(row.max)];
    // Without a value beyond a fence, that side's whisker is the extreme value itself.
    const inside = { whisker_low: min, whisker_high: max };
    const outlying = min === null || max === null || min < q1 - reach || max > q3 + reach;
    return { ...row, g: row.g ?? null, x: row.g, q1, median, q3, low: q1 - reach, high: q3 + reach, inside, outlying };
  });
  // Only boxes with values beyond a fence need the second pass.
  const outlying = boxes.filter((box) => box.outlying);
  const whiskers =
    outlying.length === 0
      ? []
      : await connection.query(
          whiskerSql(outlying, values, x === null ? null : x.sqlType, statement),
          statement.params,
        );
  const byIndex = new Map(whiskers.map((row) => [count(row.i), row]));
  const answer = boxes.map((box) => ({
    ...box,
    ...(box.outlying ? byIndex.get(outlying.indexOf(box)) : box.inside),
  }));
  return figureAnswer(roles, answer, approximate, total);
}

/**
 * Whether the quartiles come from a sample: beyond `exactQuantileRows` rows in the table (exact
 * ones hold every value in memory), or beyond `exactBoxValues` rows under the filters (they are
 * drawn, not read: on 12 M rows exact quartiles took 0.5 s where a sample took 0.06 s). The count
 * comes from the request's shared pass when there is one.
 */
async function sampledBoxes(
  rows: NarrowedRows,
  source: TableSnapshot,
  statement: Statement,
  options: ComputeOptions,
): Promise<boolean> {
  if (approximateOver(source, options)) return true;
  if (!mayNeedBoxSample(source, options)) return false;
  return (await countRows(rows, statement.params)) > options.exactBoxValues;
}

/** Whether the table has enough rows for a box plot over it to be sampled. */
export function mayNeedBoxSample(source: TableSnapshot, options: ComputeOptions): boolean {
  return (source.version?.rows ?? Number.POSITIVE_INFINITY) > options.exactBoxValues;
}

/**
 * The whiskers of each box: the lowest value at or above its low fence and the highest at or
 * below its high fence, each row compared with its own group's fences. The fences are joined on
 * the group (a hash join): a CASE per row over even 20 groups took three times as long on 12 M
 * rows. The group values go back as parameters of the column's own type.
 */
function whiskerSql(
  boxes: readonly { g: JsonValue; low: number; high: number }[],
  values: string,
  groupType: string | null,
  statement: Statement,
): string {
  if (groupType === null) {
    const [box] = boxes;
    if (box === undefined) throw new Error('no box to draw whiskers for');
    return (
      `SELECT 0 AS "i", min("v") FILTER (WHERE "v" >= ${statement.param(box.low)}) AS "whisker_low", ` +
      `max("v") FILTER (WHERE "v" <= ${statement.param(box.high)}) AS "whisker_high" FROM (${values})`
    );
  }
  const keyOf = (box: { g: JsonValue }) => `CAST(${statement.param(asParam(box.g))} AS ${groupType})`;
  const fences = boxes
    .map((box, index) => `(${keyOf(box)}, ${index}, ${statement.param(box.low)}, ${statement.param(box.high)})`)
    .join(', ');
  return (
    `SELECT "f"."i" AS "i", min("v") FILTER (WHERE "v" >= "f"."low") AS "whisker_low", ` +
    `max("v") FILTER (WHERE "v" <= "f"."high") AS "whisker_high" FROM (${values}) AS "m" ` +
    `JOIN (VALUES ${fences}) AS "f"("g", "i", "low", "high") ON "m"."g" IS NOT DISTINCT FROM "f"."g" GROUP BY 1`
  );
}
