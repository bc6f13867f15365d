import { DEFAULT_POINT_BUDGET, type FigureComponent, type FigureData, type OffMapPoints } from '@service/common';
import type { JsonValue } from '../../engine/duckdb.js';
import { type Column, columnOf, count, type TableSnapshot } from '../sql/columns.js';
import { measuredSql } from '../sql/finite.js';
import { type NarrowedRows, scalarRow, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import { drawableSql, figureAnswer, figureColumns, numberOf, numberRole, type Role, roleOf } from './figure-rows.js';

/**
 * A point map's rows (docs/dashboards.md "Maps"): a point per row at `longitude` (x) and
 * `latitude` (y), coloured by `color` and sized by `size`; beyond the point budget, a density
 * grid instead: the rows counted, in DuckDB, per cell of a grid of latitude and longitude whose
 * cells over the points' extent are no more than the budget. Coordinates off the map
 * (|latitude| > 90, |longitude| > 180) are counted and the commonest reported (`off_map`), as a
 * choropleth reports its unknown codes, never drawn; rows without both coordinates are `missing`.
 */
export async function pointMapData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  if (figure.latitude === undefined || figure.longitude === undefined) throw new Error('a point map needs both');
  const place: Place = {
    longitude: columnOf(source, figure.longitude, 'longitude'),
    latitude: columnOf(source, figure.latitude, 'latitude'),
  };
  const { x, y, placed, onMap } = placeSql(place);
  const totals = await scalarRow(rows, statement.params, {
    n: 'count(*)',
    missing: `count(*) FILTER (WHERE NOT (${placed}))`,
    off: `count(*) FILTER (WHERE ${placed} AND NOT (${onMap}))`,
    points: `count(*) FILTER (WHERE ${placed} AND ${onMap})`,
    west: `min(${x}) FILTER (WHERE ${onMap})`,
    east: `max(${x}) FILTER (WHERE ${onMap})`,
    south: `min(${y}) FILTER (WHERE ${onMap})`,
    north: `max(${y}) FILTER (WHERE ${onMap})`,
  });
  const points = count(totals.points);
  const budget = figure.max_points ?? DEFAULT_POINT_BUDGET;
  const answer =
    points > budget
      ? await densityGrid(rows, place, statement, { budget, points, extent: extentOf(totals) })
      : await pointsOf(rows, source, figure, place, statement);
  const off_map: OffMapPoints = {
    rows: count(totals.off),
    examples: count(totals.off) === 0 ? [] : await offMapExamples(rows, place, statement),
    missing: count(totals.missing),
  };
  return { ...answer, total_rows: count(totals.n), off_map };
}

/** The columns of a point's longitude and latitude. */
interface Place {
  longitude: Column;
  latitude: Column;
}

/** A point's coordinates as SQL, and the conditions of a row having both, and of their being on the map. */
function placeSql({ longitude, latitude }: Place) {
  const x = measuredSql(longitude);
  const y = measuredSql(latitude);
  return { x, y, placed: drawableSql(longitude, latitude), onMap: `abs(${x}) <= 180 AND abs(${y}) <= 90` };
}

/** Every point on the map (no more than the budget), ordered by longitude and latitude. */
async function pointsOf(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  place: Place,
  statement: Statement,
): Promise<FigureData> {
  const { color, size } = figureColumns(source, figure);
  const { placed, onMap } = placeSql(place);
  const shown = [
    { role: roleOf('x', place.longitude), column: place.longitude },
    { role: roleOf('y', place.latitude), column: place.latitude },
    ...(color === null ? [] : [{ role: roleOf('color', color), column: color }]),
    ...(size === null ? [] : [{ role: roleOf('size', size), column: size }]),
  ];
  // A NaN or ±Infinity color or size is drawn as none.
  const select = shown.map(({ role, column }) => `${measuredSql(column)} AS "${role.name}"`).join(', ');
  const points = await rows.connection.query(
    `SELECT ${select} FROM ${rows.from}${whereOf(rows.conditions, placed, onMap)} ORDER BY 1, 2`,
    statement.params,
  );
  return figureAnswer(
    shown.map(({ role }) => role),
    points,
    false,
    points.length,
  );
}

/** The lowest and highest longitude and latitude of the points on the map. */
interface Extent {
  west: number;
  east: number;
  south: number;
  north: number;
}

const extentOf = (totals: Record<string, JsonValue | undefined>): Extent => ({
  west: numberOf(totals.west) ?? -180,
  east: numberOf(totals.east) ?? 180,
  south: numberOf(totals.south) ?? -90,
  north: numberOf(totals.north) ?? 90,
});

/**
 * The sides a density grid's cell may have, in degrees, finest first: each `[numerator,
 * denominator]`, so that a cell's index is `floor(degrees × denominator / numerator)` (rounded to
 * 6 decimals first: 0.29 × 100 is 28.999999999999996 in floating point).
 */
const CELLS: readonly (readonly [number, number])[] = [
  [1, 100],
  [1, 50],
  [1, 20],
  [1, 10],
  [1, 5],
  [1, 2],
  [1, 1],
  [2, 1],
  [5, 1],
  [10, 1],
  [20, 1],
  [45, 1],
  [90, 1],
];

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

/** The finest cell whose grid over the extent has no more cells than the budget (the coarsest otherwise). */
export function densityCell(extent: Extent, budget: number): readonly [number, number] {
  const cells = (low: number, high: number, [numerator, denominator]: readonly [number, number]) =>
    Math.floor(round6((high * denominator) / numerator)) - Math.floor(round6((low * denominator) / numerator)) + 1;
  const fits = CELLS.find(
    (cell) => cells(extent.west, extent.east, cell) * cells(extent.south, extent.north, cell) <= budget,
  );
  return fits ?? (CELLS[CELLS.length - 1] as readonly [number, number]);
}

/** The points counted per cell of the grid: `x`, `y` the cell's centre, `n` its rows. */
async function densityGrid(
  rows: NarrowedRows,
  place: Place,
  statement: Statement,
  { budget, points, extent }: { budget: number; points: number; extent: Extent },
): Promise<FigureData> {
  const { x, y, placed, onMap } = placeSql(place);
  const [numerator, denominator] = densityCell(extent, budget);
  // The last cell takes in the edge itself (latitude 90, longitude 180).
  const index = (value: string, edge: number) =>
    `least(floor(round(${value} * ${denominator} / ${numerator}, 6)), ${Math.ceil((edge * denominator) / numerator) - 1})`;
  const cells = await rows.connection.query(
    `SELECT ${index(x, 180)} AS "i", ${index(y, 90)} AS "j", count(*) AS "n" ` +
      `FROM ${rows.from}${whereOf(rows.conditions, placed, onMap)} GROUP BY 1, 2 ORDER BY 1, 2`,
    statement.params,
  );
  const centre = (at: unknown) => ((Number(at) + 0.5) * numerator) / denominator;
  const roles: Role[] = [
    numberRole('x', place.longitude),
    numberRole('y', place.latitude),
    numberRole('n', null, 'long'),
  ];
  const answer = figureAnswer(
    roles,
    cells.map((cell) => ({ x: centre(cell.i), y: centre(cell.j), n: cell.n })),
    false,
    points,
  );
  return { ...answer, density: { cell: numerator / denominator, points } };
}

/** The commonest coordinates off the map, most rows first. */
async function offMapExamples(
  rows: NarrowedRows,
  place: Place,
  statement: Statement,
): Promise<OffMapPoints['examples']> {
  const { x, y, placed, onMap } = placeSql(place);
  const found = await rows.connection.query(
    `SELECT ${y} AS "latitude", ${x} AS "longitude", count(*) AS "n" FROM ${rows.from}` +
      `${whereOf(rows.conditions, placed, `NOT (${onMap})`)} GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 10`,
    statement.params,
  );
  return found.map((row) => ({
    latitude: Number(row.latitude),
    longitude: Number(row.longitude),
    rows: count(row.n),
  }));
}
