import { DEFAULT_BINS, DEFAULT_CATEGORY_BUDGET, type FigureComponent, type FigureData } from '@service/common';
import type { JsonValue, SqlRow } from '../../engine/duckdb.js';
import { type Column, count, isNumeric, jsonValue, outputOf, type TableSnapshot } from '../sql/columns.js';
import { type NarrowedRows, scalarRow, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import {
  type Axis,
  axisOf,
  Bins,
  binStats,
  countRows,
  figureAnswer,
  figureColumns,
  histogramAxis,
  numberOf,
  numberRole,
  type Role,
  roleOf,
} from './figure-rows.js';
import { aggSql, approximateOver, type ComputeOptions, isTemporal } from './fit.js';

/** The bins of an axis over the rows (null when no row has a value to bin). */
async function binsOf(
  rows: NarrowedRows,
  axis: Axis,
  bins: number,
  statement: Statement,
): Promise<{ bins: Bins | null; total: number }> {
  const stats = await scalarRow(rows, statement.params, binStats(axis));
  const low = numberOf(stats.low);
  const high = numberOf(stats.high);
  return { bins: low === null || high === null ? null : new Bins(low, high, bins), total: count(stats.n) };
}

/**
 * Groups (a color or an x) ranked by their rows, most first; beyond `limit` they are folded into
 * one null group (`fold`) or left out. `inner` must answer "bin", "group" and "count".
 */
function rankedGroups(inner: string, limit: number, fold: boolean): string {
  // Materialized: with the windows over a subquery, DuckDB ran the scan twice (2× the time).
  const ranked =
    'SELECT *, dense_rank() OVER (ORDER BY "total" DESC, "group" ASC NULLS LAST) AS "rank" FROM ' +
    '(SELECT *, sum("count") OVER (PARTITION BY "group") AS "total" FROM "binned")';
  const binned = `WITH "binned" AS MATERIALIZED (${inner}) `;
  return fold
    ? `${binned}SELECT "bin", CASE WHEN "rank" <= ${limit} THEN "group" END AS "group", sum("count") AS "count", ` +
        `min("rank") AS "rank" FROM (${ranked}) GROUP BY 1, 2 ORDER BY "rank", "bin"`
    : `${binned}SELECT * FROM (${ranked}) WHERE "rank" <= ${limit} ORDER BY "rank", "bin"`;
}

/** Every bin of every group in order, empty bins counted 0 (a histogram or violin draws them). */
function filled(rows: readonly SqlRow[], bins: Bins, grouped: boolean) {
  const groups = new Map<string, { group: JsonValue; counts: Map<number, number> }>();
  for (const row of rows) {
    const group = grouped ? (row.group ?? null) : null;
    const keyOf = JSON.stringify(group);
    const entry = groups.get(keyOf) ?? { group, counts: new Map<number, number>() };
    entry.counts.set(Number(row.bin), count(row.count));
    groups.set(keyOf, entry);
  }
  return [...groups.values()].flatMap(({ group, counts }) =>
    Array.from({ length: bins.count }, (_, index) => ({ group, index, count: counts.get(index) ?? 0 })),
  );
}

/**
 * Counts of x in `bins` equal-width bins between its lowest and highest value (dates and
 * timestamps too, their edges as ISO-8601 timestamps). `log_x`: bins equal on a log scale over
 * the positive values only (the others are not counted). With color, one series of bins per
 * color value (the most frequent `max_categories`; the rest fold into a null color).
 */
export async function histogramData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const { x, color } = figureColumns(source, figure);
  if (x === null) throw new Error('a histogram needs x');
  const axis = histogramAxis(x, figure);
  const { bins, total } = await binsOf(rows, axis, figure.bins ?? DEFAULT_BINS, statement);
  const edgeRole = (name: string): Role => ({ name, type: axis.type, column: x.name, output: 'plain' });
  const roles = [
    edgeRole('x_low'),
    edgeRole('x_high'),
    ...(color === null ? [] : [roleOf('color', color)]),
    numberRole('count', null, 'long'),
  ];
  if (bins === null) return figureAnswer(roles, [], false, total);
  const inner =
    `SELECT ${bins.indexSql(axis.value, (v) => statement.param(v))} AS "bin", ` +
    `${color === null ? 'NULL' : color.sql} AS "group", count(*) AS "count" ` +
    `FROM ${rows.from}${whereOf(rows.conditions, `${axis.value} IS NOT NULL`)} GROUP BY 1, 2`;
  const counted = await rows.connection.query(
    rankedGroups(inner, figure.max_categories ?? DEFAULT_CATEGORY_BUDGET, true),
    statement.params,
  );
  const output = color === null ? 'plain' : outputOf(color.kind);
  const answer = filled(counted, bins, color !== null).map(({ group, index, count }) => {
    const [low, high] = bins.edges(index);
    return { x_low: axis.edge(low), x_high: axis.edge(high), color: jsonValue(group, output), count };
  });
  return figureAnswer(roles, answer, false, total);
}

/**
 * Density bins of y per x group (the `max_categories` groups with most rows), all groups
 * sharing the same `bins` equal-width bins between y's lowest and highest value.
 */
export async function violinData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const { x, y } = figureColumns(source, figure);
  if (y === null) throw new Error('a violin needs y');
  const axis = axisOf(y);
  const { bins, total } = await binsOf(rows, axis, figure.bins ?? DEFAULT_BINS, statement);
  const roles = [
    ...(x === null ? [] : [roleOf('x', x)]),
    numberRole('y_low', y),
    numberRole('y_high', y),
    numberRole('count', null, 'long'),
  ];
  if (bins === null) return figureAnswer(roles, [], false, total);
  const inner =
    `SELECT ${bins.indexSql(axis.value, (v) => statement.param(v))} AS "bin", ` +
    `${x === null ? 'NULL' : x.sql} AS "group", count(*) AS "count" ` +
    `FROM ${rows.from}${whereOf(rows.conditions, `${axis.value} IS NOT NULL`)} GROUP BY 1, 2`;
  const counted = await rows.connection.query(
    rankedGroups(inner, figure.max_categories ?? DEFAULT_CATEGORY_BUDGET, false),
    statement.params,
  );
  const output = x === null ? 'plain' : outputOf(x.kind);
  const answer = filled(counted, bins, x !== null).map(({ group, index, count }) => {
    const [low, high] = bins.edges(index);
    return { x: jsonValue(group, output), y_low: low, y_high: high, count };
  });
  return figureAnswer(roles, answer, false, total);
}

/**
 * x by y: numeric and temporal axes in `bins` equal-width bins (the cell's x or y is its bin's
 * low edge), others their `max_categories` most frequent values (rows of the rest are left
 * out); the cell's value is `agg` of color, or its row count.
 */
export async function heatmapData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  options: ComputeOptions,
): Promise<FigureData> {
  const { x, y, color } = figureColumns(source, figure);
  if (x === null || y === null) throw new Error('a heatmap needs x and y');
  const binCount = figure.bins ?? DEFAULT_BINS;
  const budget = figure.max_categories ?? DEFAULT_CATEGORY_BUDGET;
  const agg = figure.agg ?? 'count';
  const measured = agg === 'count' ? null : color;
  const approximate = agg === 'median' && approximateOver(source, options);
  const value = aggSql(agg, measured, undefined, approximate);
  const binned = (column: Column) => isNumeric(column) || isTemporal(column);
  // One statement at a time on a connection.
  const axes: ({ axis: Axis; bins: Bins | null } | null)[] = [];
  for (const column of [x, y]) {
    const axis = binned(column) ? axisOf(column) : null;
    axes.push(axis === null ? null : { axis, bins: (await binsOf(rows, axis, binCount, statement)).bins });
  }
  const total = await countRows(rows, statement.params);
  const conditions = [...rows.conditions];
  const cell = [x, y].map((column, index) => {
    const binning = axes[index];
    if (binning === null || binning === undefined) return column.sql;
    conditions.push(`${binning.axis.value} IS NOT NULL`);
    return binning.bins === null ? 'NULL' : binning.bins.indexSql(binning.axis.value, (v) => statement.param(v));
  });
  // Categorical axes keep their most frequent values.
  const keep = [x, y].flatMap((column, index) =>
    axes[index] === null
      ? [
          `${column.sql} IN (SELECT ${column.sql} FROM ${rows.from}${whereOf(rows.conditions)} ` +
            `GROUP BY 1 ORDER BY count(*) DESC, 1 ASC NULLS LAST LIMIT ${budget})`,
        ]
      : [],
  );
  const cells = await rows.connection.query(
    `SELECT ${cell[0]} AS "x", ${cell[1]} AS "y", ${value.sql} AS "value" ` +
      `FROM ${rows.from}${whereOf(conditions, keep)} GROUP BY 1, 2 ORDER BY 1 ASC NULLS LAST, 2 ASC NULLS LAST`,
    statement.params,
  );
  const roleFor = (name: 'x' | 'y', column: Column, index: number): Role => {
    const binning = axes[index];
    if (binning === null || binning === undefined) return roleOf(name, column);
    return { name, type: binning.axis.type, column: column.name, output: 'plain' };
  };
  const edgeOf = (index: number, bin: JsonValue | undefined): JsonValue | undefined => {
    const binning = axes[index];
    if (binning === null || binning === undefined || binning.bins === null) return bin;
    return binning.axis.edge(binning.bins.edges(Number(bin))[0]);
  };
  const answer = cells.map((row) => ({ ...row, x: edgeOf(0, row.x), y: edgeOf(1, row.y) }));
  return figureAnswer(
    [roleFor('x', x, 0), roleFor('y', y, 1), numberRole('value', measured, value.type)],
    answer,
    approximate,
    total,
  );
}
