import {
  DEFAULT_MATRIX_ROW_BUDGET,
  type FigureComponent,
  type FigureData,
  MATRIX_COLUMN_BUDGET,
} from '@service/common';
import type { JsonValue } from '../../engine/duckdb.js';
import { quoteString } from '../../engine/sql.js';
import { columnOf, count, type TableSnapshot } from '../sql/columns.js';
import { type NarrowedRows, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import {
  averageLinkage,
  type Clustering,
  type DenseMatrix,
  inDrawingOrder,
  transposed,
  zScores,
} from './clustering.js';
import { doubleSql } from './field-points.js';
import { answerColumns, numberRole, type Role } from './figure-rows.js';

/**
 * A clustered heatmap (docs/dashboards.md "Clustered heatmaps"): DuckDB turns a wide table (a row
 * label and numeric columns) or a long one (row, column, value) into cells, one per row and
 * column (several values of a cell averaged), keeps the `max_rows` rows of highest variance and at
 * most `MATRIX_COLUMN_BUDGET` columns; the server scales and clusters what is left
 * (average linkage on Euclidean distances, clustering.ts).
 */

const labelSql = (sql: string) => `CAST(${sql} AS VARCHAR)`;

/** `(…)` of string literals, for IN. */
const inList = (values: readonly string[]) => `(${values.length > 0 ? values.map(quoteString).join(', ') : 'NULL'})`;

/** Every cell of a long table as (row, column, value), values as doubles (null where not finite). */
function rawCellsSql(source: TableSnapshot, figure: FigureComponent, { from, conditions }: NarrowedRows): string {
  const row = columnOf(source, figure.row ?? '', 'row');
  const column = columnOf(source, figure.column ?? '', 'column');
  const value = columnOf(source, figure.value ?? '', 'value');
  return (
    `SELECT ${labelSql(row.sql)} AS "row", ${labelSql(column.sql)} AS "column", ${doubleSql(value)} AS "value" ` +
    `FROM ${from}${whereOf(conditions, `${row.sql} IS NOT NULL`, `${column.sql} IS NOT NULL`)}`
  );
}

interface Cells {
  rows: string[];
  columns: string[];
  /** The kept rows' values, in `rows` and `columns` order. */
  matrix: DenseMatrix;
  totalRows: number;
  totalColumns: number;
  /** The table's rows under the filters (the figure's `total_rows`). */
  filteredRows: number;
}

/** The cells of the kept rows and columns, with how many there were before the budgets. */
function keptCells(rows: NarrowedRows, source: TableSnapshot, figure: FigureComponent, statement: Statement) {
  return figure.matrix_columns === undefined
    ? longCells(rows, source, figure, statement)
    : wideCells(rows, source, figure, statement, [...new Set(figure.matrix_columns)]);
}

/**
 * A wide table: per row label the mean of each column, as one list, the `max_rows` labels of
 * highest variance across their columns kept by DuckDB; Node reads one line per kept row. The
 * list, not a column per mean: a line of 200 named values cost twice as much to read; the lists
 * go straight into one typed array (SqlConnection.queryMatrix). A first statement counts the
 * rows, the labels and the distinct labels: when no label is on two lines (the usual case), each
 * line's values are its means (the mean of one value is that value) and the lines are read
 * without grouping, half of the second statement's time for 5,000 × 200.
 */
async function wideCells(
  { connection, from, conditions }: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  columns: string[],
): Promise<Cells> {
  const row = columnOf(source, figure.row ?? '', 'row');
  const label = labelSql(row.sql);
  const [counts = {}] = await connection.query(
    `SELECT count(*) AS "n", count(${label}) AS "labelled", count(DISTINCT ${label}) AS "labels" ` +
      `FROM ${from}${whereOf(conditions)}`,
    statement.params,
  );
  const labels = count(counts.labels);
  const unique = count(counts.labelled) === labels;
  const means = columns.map((name, index) => {
    const value = doubleSql(columnOf(source, name, `matrix_columns[${index}]`));
    return unique ? value : `avg(${value})`;
  });
  const budget = figure.max_rows ?? DEFAULT_MATRIX_ROW_BUDGET;
  const kept = await connection.queryMatrix(
    `SELECT "row", "means" FROM (SELECT ${label} AS "row", [${means.join(', ')}] AS "means" FROM ${from}` +
      `${whereOf(conditions, `${row.sql} IS NOT NULL`)}${unique ? '' : ' GROUP BY 1'}) ` +
      `QUALIFY row_number() OVER (ORDER BY list_aggregate("means", 'var_samp') DESC NULLS LAST, "row") <= ${budget} ` +
      'ORDER BY "row"',
    statement.params,
  );
  if (kept.rows.length > 0 && kept.width !== columns.length) throw new Error('a heatmap row of the wrong width');
  return {
    rows: kept.rows.map((line) => String(line.row)),
    columns,
    matrix: { values: kept.values, rows: kept.rows.length, columns: columns.length },
    totalRows: labels,
    totalColumns: columns.length,
    filteredRows: count(counts.n),
  };
}

/** A long table: its cells (several values of one averaged), the rows of highest variance kept. */
async function longCells(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<Cells> {
  const { connection } = rows;
  const raw = rawCellsSql(source, figure, rows);
  const columnList = await connection.query(
    `SELECT "column", count(*) OVER () AS "total" FROM (SELECT DISTINCT "column" FROM (${raw})) ` +
      `ORDER BY 1 LIMIT ${MATRIX_COLUMN_BUDGET}`,
    statement.params,
  );
  const columns = columnList.map((line) => String(line.column));
  const budget = figure.max_rows ?? DEFAULT_MATRIX_ROW_BUDGET;
  const cells = await connection.query(
    `WITH "cells" AS MATERIALIZED (SELECT "row", "column", avg("value") AS "value" FROM (${raw}) ` +
      `WHERE "column" IN ${inList(columns)} GROUP BY 1, 2), ` +
      '"ranked" AS (SELECT "row", count(*) OVER () AS "total", row_number() OVER ' +
      '(ORDER BY var_samp("value") DESC NULLS LAST, "row") AS "rank" FROM "cells" GROUP BY 1) ' +
      `SELECT "cells".*, "total" FROM "cells" JOIN "ranked" USING ("row") WHERE "rank" <= ${budget}`,
    statement.params,
  );
  const kept = [...new Set(cells.map((cell) => String(cell.row)))].sort();
  const [rowAt, columnAt] = [positions(kept), positions(columns)];
  const values = new Float64Array(kept.length * columns.length).fill(Number.NaN);
  for (const cell of cells) {
    const [row, column] = [rowAt.get(String(cell.row)), columnAt.get(String(cell.column))];
    if (row !== undefined && column !== undefined) values[row * columns.length + column] = cellValue(cell.value);
  }
  const [total = {}] = await connection.query(
    `SELECT count(*) AS "n" FROM ${rows.from}${whereOf(rows.conditions)}`,
    statement.params,
  );
  return {
    rows: kept,
    columns,
    matrix: { values, rows: kept.length, columns: columns.length },
    totalRows: count(cells[0]?.total),
    totalColumns: count(columnList[0]?.total),
    filteredRows: count(total.n),
  };
}

/** A cell's value, NaN when it has none (or none finite). */
function cellValue(value: JsonValue | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : Number.NaN;
}

/**
 * Decimals of the z-scores sent: a ten-thousandth of a standard deviation is far below a colour
 * step and what a tooltip needs, and full-precision doubles (~19 characters each) were most of
 * the answer's 5 MB and a third of its JSON time. The clustering uses them unrounded.
 */
const Z_DECIMALS = 4;

/** Each label's index. */
const positions = (labels: readonly string[]) => new Map(labels.map((label, at) => [label, at]));

/** Identity order, without a tree, for what is not clustered (or too little to cluster). */
const unclustered = (size: number): Clustering => ({ merges: [], order: Array.from({ length: size }, (_, i) => i) });

export async function clusteredHeatmapData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const cells = await keptCells(rows, source, figure, statement);
  const raw = cells.matrix;
  const scaled = figure.scale === 'row';
  const drawn = scaled ? zScores(raw) : raw;
  const clusterRows = figure.cluster_rows !== false && cells.rows.length > 1;
  const clusterColumns = figure.cluster_columns !== false && cells.columns.length > 1;
  const rowClusters = clusterRows ? averageLinkage(drawn) : unclustered(cells.rows.length);
  const columnClusters = clusterColumns ? averageLinkage(transposed(drawn)) : unclustered(cells.columns.length);
  const drawnRows = rowClusters.order.map((r) => cells.rows[r] ?? '');
  return {
    columns: answerColumns(cellRoles(source, figure)),
    rows: [],
    sampled: cells.totalRows > cells.rows.length,
    total_rows: cells.filteredRows,
    matrix: {
      rows: drawnRows,
      columns: columnClusters.order.map((c) => cells.columns[c] ?? ''),
      values: inDrawingOrderFlat(drawn, rowClusters.order, columnClusters.order, scaled ? Z_DECIMALS : undefined),
      ...(scaled ? { raw: inDrawingOrderFlat(raw, rowClusters.order, columnClusters.order) } : {}),
      row_tree: clusterRows ? inDrawingOrder(rowClusters) : null,
      column_tree: clusterColumns ? inDrawingOrder(columnClusters) : null,
      annotations: await annotationsOf(rows, source, figure, statement, drawnRows),
      total_rows: cells.totalRows,
      total_columns: cells.totalColumns,
    },
  };
}

/**
 * A matrix's values row by row in drawing order, null where a cell has none, rounded to
 * `decimals` places when given: one flat list of plain numbers, which JSON.stringify writes
 * faster than anything built by hand (a row per cell, labels repeated, was 9 MB at 1,000 × 200
 * and most of the answer's time). Rounding here spares a copy of the matrix.
 */
function inDrawingOrderFlat(
  matrix: DenseMatrix,
  rowOrder: readonly number[],
  columnOrder: readonly number[],
  decimals?: number,
): (number | null)[] {
  const scale = 10 ** (decimals ?? 0);
  // Made at its length, of numbers: V8 keeps the list unboxed until a null arrives (growing it by
  // push copied it over and over).
  const flat = new Array<number | null>(rowOrder.length * columnOrder.length).fill(0);
  let at = 0;
  for (const r of rowOrder) {
    const start = r * matrix.columns;
    for (const c of columnOrder) {
      const value = matrix.values[start + c] as number;
      flat[at++] = Number.isNaN(value) ? null : decimals === undefined ? value : Math.round(value * scale) / scale;
    }
  }
  return flat;
}

/** The roles of the cells (`matrix.values` and `matrix.raw`), as the figure's `columns`. */
function cellRoles(source: TableSnapshot, figure: FigureComponent): Role[] {
  const row = columnOf(source, figure.row ?? '', 'row');
  const label = (name: string, column: string | null): Role => ({ name, type: 'string', column, output: 'plain' });
  const value = figure.value === undefined ? null : columnOf(source, figure.value, 'value');
  const roles = [label('row', row.name), label('column', figure.column ?? null), numberRole('value', value)];
  return figure.scale === 'row' ? [...roles, numberRole('raw', value)] : roles;
}

/** Each annotation column's value per drawn row (the lowest, when a row label has several). */
async function annotationsOf(
  { connection, from, conditions }: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  drawnRows: readonly string[],
): Promise<{ name: string; values: JsonValue[] }[]> {
  const names = figure.annotations ?? [];
  if (names.length === 0 || drawnRows.length === 0) return [];
  const row = columnOf(source, figure.row ?? '', 'row');
  const selects = names.map(
    (name, index) => `min(${columnOf(source, name, `annotations[${index}]`).sql}) AS "a${index}"`,
  );
  const found = await connection.query(
    `SELECT ${labelSql(row.sql)} AS "row", ${selects.join(', ')} FROM ${from}` +
      `${whereOf(conditions, `${labelSql(row.sql)} IN ${inList(drawnRows)}`)} GROUP BY 1`,
    statement.params,
  );
  const byRow = new Map(found.map((line) => [String(line.row), line]));
  return names.map((name, index) => ({
    name,
    values: drawnRows.map((label) => jsonOf(byRow.get(label)?.[`a${index}`])),
  }));
}

const jsonOf = (value: JsonValue | undefined): JsonValue => value ?? null;
