import { identifierApart, quoteString } from '../../engine/sql.js';
import { literalSql, minusLog10Sql, validPSql } from './field-points.js';

/**
 * The Manhattan plot's thinning grid (genome.ts), and the copy of a table version that holds each
 * row's cell of it: a filter change then only filters and groups ready integers.
 *
 * Why a copy: computing per row, at every filter change, the join of its chromosome value to the
 * layout, −log10 p and the cell, then grouping on four keys and keeping the lowest row as a
 * struct, was nearly all of a change's time (10 M variants: p50 1.4 s, 3.7 s at worst on a shared
 * host, docs/performance.md `field-charts`). The layout, the grid and the threshold do not change
 * with the filters, so each row's cell is computed once per table version and chart, and the row
 * of lowest p of a cell is the least of a rank given once in that order (0.5 s, 0.7 s at worst).
 */

/** Rows of −log10 p in the grid on which non-significant points are thinned (its columns: the rest of the budget). */
export const THIN_ROWS = 20;
/**
 * The one pass groups on a grid of this many times the columns an answer may keep: once it has
 * counted the significant rows, runs of whole columns are merged until the grid fits the rest of
 * the budget, so each merged cell still keeps its own lowest p.
 */
export const FINE_COLUMNS = 4;

/** A chromosome as laid out: its drawn name, the values that write it, its length and offset. */
export interface Chromosome {
  name: string;
  raws: string[];
  length: number;
  offset: number;
}

/** The grid's extent: the genome's length and the budget of points; its height −log10 of the threshold. */
export interface Grid {
  budget: number;
  length: number;
  threshold: number;
}

/** The fine grid: its columns, a column's width along the genome and a row's height in −log10 p. */
export function cellSizes(grid: Grid): { columns: number; width: number; height: number } {
  const columns = Math.max(1, Math.floor(grid.budget / THIN_ROWS)) * FINE_COLUMNS;
  const width = (Math.max(grid.length, 1) * (1 + 1e-9)) / columns;
  // The last row holds the threshold itself (`floor` of exactly it would open one more).
  const height = (Math.max(-Math.log10(grid.threshold), 1) * (1 + 1e-9)) / THIN_ROWS;
  return { columns, width, height };
}

/** The SQL of a row's chromosome value as written (`raw`), its position and its p. */
export interface Placing {
  raw: string;
  position: string;
  p: string;
}

/** The laid-out chromosomes as a relation `"placing"(raw, index, offset)`, its columns named `names`. */
export function placingSql(chromosomes: readonly Chromosome[], names = PLACING_NAMES): string {
  const values = chromosomes.flatMap(({ raws, offset }, index) =>
    raws.map((raw) => `(${quoteString(raw)}, ${index}, CAST(${offset} AS DOUBLE))`),
  );
  if (values.length === 0) values.push("('', CAST(NULL AS INTEGER), 0.0)");
  return `(VALUES ${values.join(', ')}) AS "placing"(${[names.raw, names.index, names.offset].join(', ')})`;
}

const PLACING_NAMES = { raw: '"raw"', index: '"index"', offset: '"offset"' };

/** What a row of the answer's statement becomes in the answer (its chromosome by index in the layout). */
export const PLACED_COLUMNS = `"index", "position", "y", ${minusLog10Sql('"y"')} AS "minus_log10_y", "genome_position"`;

/**
 * The counts of a row of the answer's statement (its rows, then the totals every row carries), as
 * DOUBLE (exact to 2^53) rather than the HUGEINT their sums are: a HUGEINT is read as a BigInt,
 * written as text and parsed again, ~40 ms of the event loop for 10,000 rows of four.
 */
export const COUNT_COLUMNS = ['rows', 'significant', 'others', 'n']
  .map((name) => `CAST("${name}" AS DOUBLE) AS "${name}"`)
  .join(', ');

/** Every row of `fine` (its "kind" and "rows") with the totals: significant rows, the others, and all. */
export function countedSql(fine: string): string {
  const sumOf = (kind: string) => `sum(CASE WHEN ${kind} THEN "rows" ELSE 0 END) OVER ()`;
  return `SELECT *, ${sumOf('"kind" = 1')} AS "significant", ${sumOf('"kind" = 2')} AS "others", ${sumOf('true')} AS "n" FROM (${fine})`;
}

/** How many fine columns make one once the significant rows are counted: 1 unless the others do not all fit. */
export function mergedColumnsSql(grid: Grid): string {
  const { columns } = cellSizes(grid);
  const rest = `greatest(0, ${grid.budget} - "significant")`;
  return `CASE WHEN "others" > ${rest} THEN ceil(${columns} / greatest(1, floor(greatest(${THIN_ROWS}, ${rest}) / ${THIN_ROWS}))) ELSE 1 END`;
}

/** The copy's own columns, named apart from the table's. */
export interface CellColumns {
  /** Null without a place, −rank when significant, else the cell: column × THIN_ROWS + row. */
  key: string;
  /** The row's place in the order of (p, genome-wide position, chromosome index, position). */
  rank: string;
  /** The placing relation's columns, named apart from the table's so that its expressions stay unambiguous. */
  placing: typeof PLACING_NAMES;
}

/** `CellColumns` of names the table's columns do not take (`taken`). */
export function cellColumns(taken: ReadonlySet<string>): CellColumns {
  const unused = (name: string) => identifierApart(`__manhattan_${name}`, taken);
  return {
    key: unused('key'),
    rank: unused('rank'),
    placing: { raw: unused('raw'), index: unused('index'), offset: unused('offset') },
  };
}

/** What the copy and its statement are computed from. */
export interface CellsOf {
  chromosomes: readonly Chromosome[];
  placing: Placing;
  grid: Grid;
  names: CellColumns;
}

/**
 * The copy's rows (a SELECT over the version's rows as "dc_rows"): each row as it is, so that any
 * filter still applies, with its `key` and `rank` (`CellColumns`). A row's key is what
 * `keptSql` (genome.ts) groups it by: its fine cell, or for a significant row a key of its own
 * (identical significant rows were one group of several rows there, sent as many times: here
 * as many groups of one). The rank orders rows as the struct whose least a cell keeps there.
 */
export function cellsCopySql({ chromosomes, placing, grid, names }: CellsOf): string {
  const { raw, position, p } = placing;
  const { width, height } = cellSizes(grid);
  const at = (column: 'index' | 'offset') => `"placing".${names.placing[column]}`;
  const genome = `${at('offset')} + ${position}`;
  const placed = `${at('index')} IS NOT NULL AND ${position} >= 0 AND ${validPSql(p)}`;
  const cell =
    `CAST(floor((${genome}) / ${width}) AS BIGINT) * ${THIN_ROWS} + ` +
    `CAST(least(floor(-log10(${p}) / ${height}), ${THIN_ROWS - 1}) AS BIGINT)`;
  const key = `CASE WHEN ${placed} THEN CASE WHEN ${p} < ${literalSql(grid.threshold)} THEN -1 ELSE ${cell} END END`;
  const rank = `row_number() OVER (ORDER BY ${p}, ${genome}, ${at('index')}, ${position})`;
  // The window's output comes in rank order: a cell's least rank is then found early in the file.
  const keyed =
    `SELECT "dc_rows".*, ${key} AS ${names.key}, ${rank} AS ${names.rank} ` +
    `FROM "dc_rows" LEFT JOIN ${placingSql(chromosomes, names.placing)} ON ${raw} = "placing".${names.placing.raw}`;
  return `SELECT * REPLACE (CASE WHEN ${names.key} = -1 THEN -${names.rank} ELSE ${names.key} END AS ${names.key}) FROM (${keyed})`;
}

/**
 * What `keptSql` (genome.ts) answers, over the copy (`from`, narrowed by `where`): the filtered
 * rows grouped by their key alone, keeping the least rank; merged as there; and only then the
 * kept rows read back by rank (their values computed as there).
 */
export function cellsKeptSql(of: CellsOf, from: string, where: string): string {
  const { names, grid } = of;
  const fine =
    `SELECT "key", CASE WHEN "key" IS NULL THEN 0 WHEN "key" < 0 THEN 1 ELSE 2 END AS "kind", "rows", "r" FROM (` +
    `SELECT ${names.key} AS "key", count(*) AS "rows", min(${names.rank}) AS "r" FROM ${from}${where} GROUP BY 1)`;
  const merged = `floor(("key" // ${THIN_ROWS}) / ${mergedColumnsSql(grid)}) * ${THIN_ROWS} + "key" % ${THIN_ROWS}`;
  const cells =
    `SELECT "kind", CASE WHEN "kind" = 2 THEN ${merged} ELSE "key" END AS "cell", "significant", "others", "n", ` +
    `sum("rows") AS "rows", min("r") AS "r" FROM (${countedSql(fine)}) GROUP BY ALL`;
  return (
    `WITH "manhattan_cells" AS MATERIALIZED (${cells}) ` +
    `SELECT "kind", ${COUNT_COLUMNS}, ${PLACED_COLUMNS} ` +
    `FROM "manhattan_cells" JOIN (${keptRowsSql(of, from)}) USING ("r") ORDER BY "genome_position", "y"`
  );
}

/**
 * The rows whose rank "manhattan_cells" kept, as `classedSql` (genome.ts) places them: read by
 * rank first, then joined to the layout (joined first, every row read was: 0.17 s more on 10 M).
 */
function keptRowsSql({ chromosomes, placing, names }: CellsOf, from: string): string {
  const { raw, position, p } = placing;
  const at = (column: 'index' | 'offset') => `"placing".${names.placing[column]}`;
  const kept =
    `SELECT ${names.rank} AS "r", ${raw} AS "raw", ${position} AS "position", ${p} AS "y" ` +
    `FROM ${from} WHERE ${names.rank} IN (SELECT "r" FROM "manhattan_cells")`;
  return (
    `SELECT "r", ${at('index')} AS "index", "position", "y", ${at('offset')} + "position" AS "genome_position" ` +
    `FROM (${kept}) AS "kept" LEFT JOIN ${placingSql(chromosomes, names.placing)} ON "kept"."raw" = "placing".${names.placing.raw}`
  );
}
