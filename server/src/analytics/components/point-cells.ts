import { identifierApart } from '../../engine/sql.js';
import type { Role } from './figure-rows.js';

/**
 * The volcano and MA plots' thinning grid (field-points.ts), and the copy of a table version that
 * holds each row's class, cell, rank and sample order: a filter change then only filters and
 * groups ready integers, as a Manhattan plot does (manhattan-cells.ts).
 *
 * Why a copy: classing every narrowed row, computing −log10 p and its cell, and keeping each
 * cell's row of lowest p as a struct took DuckDB ~0.2 s for each plot over 800,000 of 1 M rows,
 * at every filter change, and a dashboard's plots shared two CPUs with the browser drawing them.
 * Over the copy the same answer is a grouping of integers (~10 ms). For that the grid lies over
 * the whole table's extent, not the narrowed rows': a row's cell does not depend on the filters.
 */

/** What a volcano or MA plot draws, as SQL over the rows. */
export interface ClassedPoints {
  /** The SQL of the fold change and of the p value (null: every point is `ns`). */
  fold: string;
  p: string | null;
  /** Columns sent besides `class`, by role name (`x` and `y` among them). */
  shown: { role: Role; sql: string }[];
  /** The role drawn along y (volcano: −log10 p, MA: the fold change). */
  plotY: 'minus_log10_y' | 'y';
  /** Rows left out (a coordinate missing). */
  drawable: string[];
  /** The point's class (`up`, `down`, `ns`), as the contract defines it. */
  classSql: string;
}

/** The extent of the plotted points over the whole table, and the highest finite −log10 p (the cap of p = 0). */
export interface PointExtent {
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
  highest: number;
}

/** A grid of `side` × `side` cells over the extent: one point of each class per cell once thinned. */
export interface PointGrid {
  side: number;
  xMin: number;
  width: number;
  yMin: number;
  height: number;
  /** Where a point of p = 0 is placed (volcano: its −log10 p is null). */
  highest: number;
}

export function pointGrid(extent: PointExtent, budget: number): PointGrid {
  // `ns` points fill most cells and `up`/`down` ones a share of them again: half the budget's
  // cells keep the whole answer near the budget.
  const side = Math.max(1, Math.floor(Math.sqrt(budget / 2)));
  // The last cell holds the highest value itself (`floor` of exactly it would open one more).
  const width = (Math.max(extent.xMax - extent.xMin, 1e-12) * (1 + 1e-9)) / side;
  const height = (Math.max(Math.max(extent.yMax, extent.highest) - extent.yMin, 1e-12) * (1 + 1e-9)) / side;
  return { side, xMin: extent.xMin, width, yMin: extent.yMin, height, highest: extent.highest };
}

/**
 * A point's cell along x and y, from the SQL of its x and plotted y (null for a volcano's p = 0,
 * placed at `highest`): the same text over the rows and in the copy, so the same doubles.
 */
export function cellSql(x: string, y: string, grid: PointGrid): { cellX: string; cellY: string } {
  return {
    cellX: `floor((${x} - ${grid.xMin}) / ${grid.width})`,
    cellY: `floor((coalesce(${y}, ${grid.highest}) - ${grid.yMin}) / ${grid.height})`,
  };
}

/** The copy's own columns, named apart from the table's. */
export interface PointColumns {
  /** The row's class, null when it is not drawn. */
  classed: string;
  /** Its cell: column × side + row. */
  cell: string;
  /** Its place in the order of (p, x, y, hash): a cell keeps its least. */
  rank: string;
  /** Its place in the order of (hash, x, y): the `ns` points sampled are the first. */
  sample: string;
}

/** `PointColumns` of names the table's columns do not take (`taken`). */
export function pointColumns(taken: ReadonlySet<string>): PointColumns {
  const unused = (name: string) => identifierApart(`__points_${name}`, taken);
  return { classed: unused('class'), cell: unused('cell'), rank: unused('rank'), sample: unused('sample') };
}

/** What the copy and its statements are computed from. */
export interface PointsOf {
  points: ClassedPoints;
  grid: PointGrid;
  names: PointColumns;
}

/** The SQL of a shown role over the rows. */
export function shownSql(points: ClassedPoints, role: string): string {
  return points.shown.find((shown) => shown.role.name === role)?.sql ?? 'NULL';
}

/** The order a cell keeps the least of, and the `ns` sample's, as SQL over the rows. */
export function orderSql(points: ClassedPoints): { rank: string; sample: string; hash: string } {
  const [x, y] = [shownSql(points, 'x'), shownSql(points, 'y')];
  const hash = `hash(${points.shown.map(({ sql }) => sql).join(', ')})`;
  return { rank: `${points.p ?? 'NULL'}, ${x}, ${y}, ${hash}`, sample: `${hash}, ${x}, ${y}`, hash };
}

/**
 * The copy's rows (a SELECT over the version's rows as "dc_rows"): each row as it is, so that any
 * filter still applies, with its class (null when not drawn), cell, rank and sample order.
 */
export function pointsCopySql({ points, grid, names }: PointsOf): string {
  const drawable = points.drawable.join(' AND ');
  const { cellX, cellY } = cellSql(shownSql(points, 'x'), shownSql(points, points.plotY), grid);
  const order = orderSql(points);
  return (
    `SELECT "dc_rows".*, CASE WHEN ${drawable} THEN ${points.classSql} END AS ${names.classed}, ` +
    `CASE WHEN ${drawable} THEN CAST(${cellX} AS BIGINT) * ${grid.side} + CAST(${cellY} AS BIGINT) END AS ${names.cell}, ` +
    `row_number() OVER (ORDER BY ${order.rank}) AS ${names.rank}, ` +
    `row_number() OVER (ORDER BY ${order.sample}) AS ${names.sample} FROM "dc_rows"`
  );
}

/** The shown columns, class and order of the copy's rows that `where` keeps, ordered by x and y. */
function readBackSql({ points, names }: PointsOf, from: string, where: string): string {
  const shown = points.shown.map(({ role, sql }) => `${sql} AS "${role.name}"`);
  return `SELECT ${shown.join(', ')}, ${names.classed} AS "class", ${names.rank} AS "__order" FROM ${from}${where}`;
}

/**
 * Ordered by x and y (ties by rank), the rank itself left out of the answer: a BIGINT is read as a
 * BigInt and written as text, for each of thousands of rows.
 */
const ORDERED = 'ORDER BY "x", "y", "__order"';
const readOrdered = (rows: string) => `SELECT * EXCLUDE ("__order") FROM (${rows}) ${ORDERED}`;

/** The class counts, the highest finite −log10 p (`top`: a volcano's cap of p = 0) and the narrowed rows, from the copy. */
export function copyStatsSql({ names }: PointsOf, from: string, where: string, top: string): string {
  const counted = (name: string) => `count(*) FILTER (WHERE ${names.classed} = '${name}') AS "${name}"`;
  return (
    `SELECT ${counted('up')}, ${counted('down')}, ${counted('ns')}, ` +
    `max(CASE WHEN ${names.classed} IS NOT NULL THEN ${top} END) AS "top", count(*) AS "n" FROM ${from}${where}`
  );
}

/** Over the copy, `gridSql` (field-points.ts): each cell's least rank, and the `hits` most significant up and down points. */
export function copyGridSql(of: PointsOf, from: string, where: (extra: string) => string, hits: number): string {
  const { names } = of;
  const kept =
    `SELECT min(${names.rank}) AS "r" FROM ${from}${where(`${names.classed} IS NOT NULL`)} GROUP BY ${names.classed}, ${names.cell} ` +
    `UNION (SELECT ${names.rank} FROM ${from}${where(`${names.classed} <> 'ns'`)} ORDER BY ${names.rank} LIMIT ${hits})`;
  return (
    `WITH "kept" AS MATERIALIZED (${kept}) ` +
    readOrdered(readBackSql(of, from, ` WHERE ${names.rank} IN (SELECT "r" FROM "kept")`))
  );
}

/** Over the copy, every `up` and `down` point and the `kept` first `ns` points in sample order. */
export function copySampledSql(of: PointsOf, from: string, where: (extra: string) => string, kept: number): string {
  const { names } = of;
  const sampled = `SELECT ${names.sample} AS "s" FROM ${from}${where(`${names.classed} = 'ns'`)} ORDER BY ${names.sample} LIMIT ${kept}`;
  return readOrdered(
    `${readBackSql(of, from, where(`${names.classed} <> 'ns'`))} ` +
      `UNION ALL ${readBackSql(of, from, where(`${names.sample} IN (${sampled})`))}`,
  );
}
