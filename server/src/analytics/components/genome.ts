import {
  DEFAULT_GENOME_THRESHOLD,
  DEFAULT_MANHATTAN_POINT_BUDGET,
  DEFAULT_POINT_BUDGET,
  type FigureComponent,
  type FigureData,
} from '@service/common';
import type { JsonValue, SqlConnection, SqlRow } from '../../engine/duckdb.js';
import { chromosomeRank, drawnChromosomeName, MAX_CHROMOSOMES, tooManyChromosomes } from '../sql/chromosomes.js';
import { type Column, columnOf, count, type TableSnapshot } from '../sql/columns.js';
import { type NarrowedRows, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import { UnsuitableData } from './data-problems.js';
import { doubleSql, literalSql, minusLog10Sql, validPSql } from './field-points.js';
import { countRows, figureAnswer, numberRole, type Role } from './figure-rows.js';
import type { ComputeOptions } from './fit.js';
import {
  type CellsOf,
  type Chromosome,
  COUNT_COLUMNS,
  cellColumns,
  cellSizes,
  cellsCopySql,
  cellsKeptSql,
  countedSql,
  type Grid,
  mergedColumnsSql,
  PLACED_COLUMNS,
  type Placing,
  placingSql,
  THIN_ROWS,
} from './manhattan-cells.js';

/**
 * Manhattan plots (docs/dashboards.md "Volcano, MA, Manhattan and QQ plots"): chromosomes end to end in
 * natural order (sql/chromosomes.ts). Each chromosome is as long as its highest position in the
 * whole table, whatever the filters, so the axis stays put while they change (and a brush's
 * genome-wide positions mean the same chromosome and position on every answer).
 */

export async function manhattanData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  options: Pick<ComputeOptions, 'memo'>,
): Promise<FigureData> {
  const chromosome = columnOf(source, figure.chromosome ?? '', 'chromosome');
  const y = columnOf(source, figure.y ?? '', 'y');
  const position = doubleSql(columnOf(source, figure.position ?? '', 'position'));
  const placing = { raw: `CAST(${chromosome.sql} AS VARCHAR)`, position, p: doubleSql(y) };
  const memoKey = options.memo.keyOf(
    source,
    `manhattan-lengths\u0000${chromosome.sql}\u0000${position}\u0000${placing.p}`,
  );
  const lengths = await wholeTableLengths(rows.connection, options, memoKey, { from: rows.from, ...placing });
  const chromosomes = laidOut(lengths);
  if (chromosomes.length > MAX_CHROMOSOMES || lengths.length > MAX_CHROMOSOMES * 4)
    throw new UnsuitableData('chromosome', tooManyChromosomes(chromosome.name));
  const last = chromosomes.at(-1);
  const grid = {
    budget: figure.max_points ?? DEFAULT_MANHATTAN_POINT_BUDGET,
    length: last === undefined ? 0 : last.offset + last.length,
    threshold: figure.threshold ?? DEFAULT_GENOME_THRESHOLD,
  };
  const cells: CellsOf = { chromosomes, placing, grid, names: cellColumns(new Set(source.byName.keys())) };
  const { drawn, thinned, totals } = await drawnRows(rows, cells, statement);
  return manhattanAnswer(figure, { chromosome, y, chromosomes, drawn, thinned, totals });
}

/**
 * The rows drawn and the totals: from the version's copy holding each row's cell
 * (manhattan-cells.ts) once it is built, else from the rows themselves; the same answer either way.
 */
async function drawnRows(rows: NarrowedRows, cells: CellsOf, statement: Statement) {
  const { connection, conditions } = rows;
  const { chromosomes, placing, grid } = cells;
  const copy = rows.derivedCopy(cellsCopySql(cells));
  try {
    const from = copy?.from ?? rows.from;
    const where = whereOf(conditions);
    const classed = classedSql(chromosomes, { from, where, ...placing }, grid.threshold);
    const keptStatement = copy === null ? keptSql(classed, grid) : cellsKeptSql(cells, from, where);
    const kept = await connection.query(keptStatement, statement.params);
    const totals = totalsOf(kept);
    const thinned = totals.others > Math.max(0, grid.budget - totals.significant);
    // Unthinned, a cell of several rows stands for them all: then the rows themselves are read.
    const drawn =
      thinned || kept.every((row) => row.kind !== 2 || count(row.rows) === 1)
        ? placedRows(kept)
        : await connection.query(
            `SELECT ${PLACED_COLUMNS} FROM (${classed}) WHERE "kind" > 0 ORDER BY "genome_position", "y"`,
            statement.params,
          );
    return { drawn, thinned, totals };
  } finally {
    copy?.release();
  }
}

/** The answer's rows (their chromosome by name), the cap of −log10 0, and the layout. */
function manhattanAnswer(
  figure: FigureComponent,
  answer: {
    chromosome: Column;
    y: Column;
    chromosomes: readonly Chromosome[];
    drawn: readonly SqlRow[];
    thinned: boolean;
    totals: Totals;
  },
): FigureData {
  const { chromosome, y, chromosomes, drawn, thinned, totals } = answer;
  const roles: Role[] = [
    { name: 'chromosome', type: 'string', column: chromosome.name, output: 'plain' },
    { ...numberRole('position', null), column: figure.position ?? null },
    numberRole('genome_position', null),
    numberRole('y', y),
    numberRole('minus_log10_y', y),
  ];
  // Every cell keeps its lowest p: the highest finite −log10 p of the rows is among those drawn.
  const top =
    drawn.reduce<number | null>((highest, row) => {
      const value = row.minus_log10_y === null ? null : Number(row.minus_log10_y);
      return value === null || (highest !== null && highest >= value) ? highest : value;
    }, null) ?? 1;
  const capped = drawn.filter((row) => row.minus_log10_y === null).length;
  // One literal shape per row, not a spread of the row read (~40 ms for 10,000 rows).
  const named = drawn.map((row) => ({
    chromosome: chromosomes[Number(row.index)]?.name ?? '',
    position: row.position,
    genome_position: row.genome_position,
    y: row.y,
    minus_log10_y: row.minus_log10_y ?? top,
  }));
  return {
    ...figureAnswer(roles, named, thinned, totals.n),
    significant: totals.significant,
    chromosomes: chromosomes.map(({ name, offset, length }) => ({ name, offset, length })),
    ...(capped > 0 ? { capped } : {}),
  };
}

/** The highest position of each value of the chromosome column as written (`raw`), over the whole table. */
type Lengths = { raw: string; length: number }[];

/**
 * One aggregate over the whole table (no filter: no parameters), remembered per snapshot: each
 * chromosome value as written and its highest position (of the rows with a valid p). Names are drawn from these few values in
 * JavaScript, not per row. More values than a figure lays out are not all listed (`laidOut` refuses).
 */
async function wholeTableLengths(
  connection: SqlConnection,
  options: Pick<ComputeOptions, 'memo'>,
  key: string | null,
  table: { from: string; raw: string; position: string; p: string },
): Promise<Lengths> {
  const known = options.memo.get(key) as Lengths | undefined;
  if (known !== undefined) return known;
  const found = await connection.query(
    `SELECT ${table.raw} AS "raw", max(${table.position}) AS "length" FROM ${table.from} ` +
      `WHERE ${table.raw} IS NOT NULL AND ${table.position} >= 0 AND ${validPSql(table.p)} GROUP BY 1 LIMIT ${MAX_CHROMOSOMES * 4 + 1}`,
    [],
  );
  const lengths = found.map((row) => ({ raw: String(row.raw), length: Number(row.length) }));
  options.memo.set(key, lengths as unknown as JsonValue);
  return lengths;
}

/** Chromosomes in natural order (sql/chromosomes.ts), each as long as its highest position, end to end. */
function laidOut(lengths: Lengths): Chromosome[] {
  const byName = new Map<string, Chromosome>();
  for (const { raw, length } of lengths) {
    const name = drawnChromosomeName(raw);
    if (name === '') continue;
    const known = byName.get(name);
    if (known === undefined) byName.set(name, { name, raws: [raw], length, offset: 0 });
    else {
      known.raws.push(raw);
      known.length = Math.max(known.length, length);
    }
  }
  const ordered = [...byName.values()].sort(
    (a, b) => chromosomeRank(a.name) - chromosomeRank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  let offset = 0;
  for (const chromosome of ordered) {
    chromosome.offset = offset;
    offset += chromosome.length;
  }
  return ordered;
}

/**
 * Every narrowed row with its chromosome's index in the layout, genome-wide position, p and
 * `kind`: 0 without a place (a chromosome not laid out, a negative position, an invalid p), 1
 * significant (below the threshold), 2 the others. The chromosome value as written is joined to
 * the few laid out (a hash join, no per-row string work); rows without one stay, to be counted.
 */
function classedSql(
  chromosomes: readonly Chromosome[],
  table: Placing & { from: string; where: string },
  threshold: number,
): string {
  const placed = `"placing"."index" IS NOT NULL AND "position" >= 0 AND ${validPSql('"y"')}`;
  return (
    `SELECT "placing"."index" AS "index", "position", "y", "placing"."offset" + "position" AS "genome_position", ` +
    `CASE WHEN ${placed} THEN CASE WHEN "y" < ${literalSql(threshold)} THEN 1 ELSE 2 END ELSE 0 END AS "kind" ` +
    `FROM (SELECT ${table.raw} AS "raw", ${table.position} AS "position", ${table.p} AS "y" FROM ${table.from}${table.where}) AS "points" ` +
    `LEFT JOIN ${placingSql(chromosomes)} ON "points"."raw" = "placing"."raw"`
  );
}

/**
 * In one pass over the rows: every significant row (identical ones as one, with their number in
 * `rows`), and of the others one per cell of a grid over the genome-wide position and −log10 p
 * (`THIN_ROWS` rows up to −log10 of the threshold, which no other row passes): the one of lowest p
 * (then leftmost), so the shape stays. The grid has `FINE_COLUMNS` times the columns; once the
 * significant rows are counted (a window over the cells), runs of them are merged to leave at most
 * `budget − significant` cells, and only when the others do not all fit. The row of kind 0 counts
 * the rows without a place; every row carries the totals (`totalsOf`).
 */
function keptSql(classed: string, grid: Grid): string {
  const { width, height } = cellSizes(grid);
  // The lowest struct is the row of lowest p, then leftmost: one aggregate for the whole row.
  const lowest = `{${['y', 'genome_position', 'index', 'position'].map((name) => `'${name}': "${name}"`).join(', ')}}`;
  const fine =
    'SELECT "kind", CASE "kind" WHEN 1 THEN "index" END AS "a", ' +
    `CASE "kind" WHEN 1 THEN "position" WHEN 2 THEN floor("genome_position" / ${width}) END AS "b", ` +
    `CASE "kind" WHEN 1 THEN "y" WHEN 2 THEN least(floor(-log10("y") / ${height}), ${THIN_ROWS - 1}) END AS "c", ` +
    `count(*) AS "rows", min(${lowest}) AS "kept" FROM (${classed}) GROUP BY 1, 2, 3, 4`;
  const unpacked = ['y', 'genome_position', 'index', 'position'].map((name) => `"kept"."${name}" AS "${name}"`);
  return (
    `SELECT "kind", ${COUNT_COLUMNS}, ${PLACED_COLUMNS} FROM (` +
    `SELECT "kind", "rows", ${unpacked.join(', ')}, "significant", "others", "n" FROM (` +
    `SELECT "kind", "a", CASE WHEN "kind" = 2 THEN floor("b" / ${mergedColumnsSql(grid)}) ELSE "b" END AS "b", "c", "significant", "others", "n", ` +
    `sum("rows") AS "rows", min("kept") AS "kept" FROM (${countedSql(fine)}) GROUP BY ALL)) ORDER BY "genome_position", "y"`
  );
}

/** The totals every row of `keptSql` carries: significant rows, the others, and all narrowed rows. */
interface Totals {
  significant: number;
  others: number;
  n: number;
}

function totalsOf(kept: readonly SqlRow[]): Totals {
  const [first] = kept;
  if (first === undefined) return { significant: 0, others: 0, n: 0 };
  return { significant: count(first.significant), others: count(first.others), n: count(first.n) };
}

/** The rows of `keptSql` that are drawn: each significant row as many times as it was found. */
function placedRows(kept: readonly SqlRow[]): SqlRow[] {
  return kept.flatMap((row) => {
    if (row.kind === 0) return [];
    return row.kind === 1 ? Array.from({ length: count(row.rows) }, () => row) : [row];
  });
}

/** χ² with one degree of freedom at its median: the denominator of the genomic inflation factor λ. */
export const CHI2_MEDIAN = 0.4549;

/**
 * QQ plot: observed against expected −log10 p ((i − 0.5) / n for the i-th smallest of n), and λ
 * = median(χ²) / 0.4549 with χ² = (Φ⁻¹(p / 2))². Beyond the budget, the 1,000 most significant
 * points (half the budget if smaller) are kept and the rest thinned to every k-th by rank.
 */
export async function qqData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const { connection, from, conditions } = rows;
  const y = columnOf(source, figure.y ?? '', 'y');
  const p = doubleSql(y);
  const valid = `SELECT ${p} AS "p" FROM ${from}${whereOf(conditions, validPSql(p))}`;
  const budget = figure.max_points ?? DEFAULT_POINT_BUDGET;
  const head = Math.min(1000, Math.floor(budget / 2));
  // One sort of the p values gives each its rank `i` of `n`, the count and the highest −log10 p
  // with it (a statement of its own for those scanned the rows once more).
  const ranked =
    `SELECT "p", row_number() OVER (ORDER BY "p") AS "i", count(*) OVER () AS "n", ` +
    `max(${minusLog10Sql('"p"')}) OVER () AS "top" FROM (${valid})`;
  const step = `CAST(ceil("n" / ${budget - head}) AS BIGINT)`;
  const drawnRank = `("n" <= ${budget} OR "i" <= ${head} OR "i" % ${step} = 0 OR "i" = "n")`;
  // The one or two middle p values (λ) come with the drawn points.
  const middleRank = `("i" = ("n" + 1) // 2 OR "i" = "n" // 2 + 1)`;
  const read = await connection.query(
    `SELECT -log10(("i" - 0.5) / "n") AS "expected", ${minusLog10Sql('"p"')} AS "observed", "p", ` +
      `${drawnRank} AS "drawn", ${middleRank} AS "middle", CAST("n" AS DOUBLE) AS "n", "top" ` +
      `FROM (${ranked}) WHERE ${drawnRank} OR ${middleRank} ORDER BY "i" DESC`,
    statement.params,
  );
  // Every narrowed row, a p value or not (from the request's shared pass when it has it).
  const total = await countRows(rows, statement.params);
  const n = count(read[0]?.n);
  const top = read[0]?.top === null || read[0]?.top === undefined ? 1 : Number(read[0].top);
  const middle = read.filter((row) => row.middle === true);
  const drawn = read.filter((row) => row.drawn === true);
  const roles = [numberRole('expected', null), numberRole('observed', y)];
  const capped = drawn.filter((row) => row.observed === null).length;
  return {
    ...figureAnswer(
      roles,
      drawn.map((row) => (row.observed === null ? { ...row, observed: top } : row)),
      n > budget,
      total,
    ),
    lambda: inflation(middle.map((row) => Number(row.p))),
    ...(capped > 0 ? { capped } : {}),
  };
}

/** λ from the one or two middle p values: the median of their χ², over χ²'s own median. */
export function inflation(middle: readonly number[]): number | null {
  if (middle.length === 0) return null;
  const chi2 = middle.map((p) => normalQuantile(p / 2) ** 2);
  const median = chi2.reduce((sum, value) => sum + value, 0) / chi2.length;
  return Number.isFinite(median) ? median / CHI2_MEDIAN : null;
}

/**
 * Φ⁻¹(q), the standard normal quantile: Acklam's rational approximation (relative error below
 * 1.15e-9 over the whole range, enough for a λ shown to a few digits).
 */
export function normalQuantile(q: number): number {
  if (q <= 0) return Number.NEGATIVE_INFINITY;
  if (q >= 1) return Number.POSITIVE_INFINITY;
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (t: number) =>
    (((((c[0]! * t + c[1]!) * t + c[2]!) * t + c[3]!) * t + c[4]!) * t + c[5]!) /
    ((((d[0]! * t + d[1]!) * t + d[2]!) * t + d[3]!) * t + 1);
  let x: number;
  if (q < 0.02425) x = tail(Math.sqrt(-2 * Math.log(q)));
  else if (q > 1 - 0.02425) x = -tail(Math.sqrt(-2 * Math.log(1 - q)));
  else {
    const r = (q - 0.5) ** 2;
    x =
      ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * (q - 0.5)) /
      (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
  }
  return x;
}
