import {
  DEFAULT_FIELD_POINT_BUDGET,
  DEFAULT_GENOME_THRESHOLD,
  type FigureComponent,
  type FigureData,
} from '@service/common';
import type { JsonValue, SqlConnection } from '../../engine/duckdb.js';
import { quoteString } from '../../engine/sql.js';
import { chromosomeRank, drawnChromosomeName, MAX_CHROMOSOMES, tooManyChromosomes } from '../sql/chromosomes.js';
import { columnOf, count, type TableSnapshot } from '../sql/columns.js';
import { type NarrowedRows, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import { UnsuitableData } from './data-problems.js';
import { doubleSql, literalSql, minusLog10Sql, validPSql } from './field-points.js';
import { figureAnswer, numberOf, numberRole, type Role } from './figure-rows.js';
import type { ComputeOptions } from './fit.js';

/**
 * Manhattan plots (docs/dashboards.md "Volcano, MA, Manhattan and QQ plots"): chromosomes end to end in
 * natural order (sql/chromosomes.ts). Each chromosome is as long as its highest position in the
 * whole table, whatever the filters, so the axis stays put while they change (and a brush's
 * genome-wide positions mean the same chromosome and position on every answer).
 */

/** Rows of −log10 p in the grid on which non-significant points are thinned (its columns: the rest of the budget). */
const THIN_ROWS = 20;

export async function manhattanData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  options: Pick<ComputeOptions, 'memo'>,
): Promise<FigureData> {
  const { connection, from, conditions } = rows;
  const chromosome = columnOf(source, figure.chromosome ?? '', 'chromosome');
  const position = doubleSql(columnOf(source, figure.position ?? '', 'position'));
  const y = columnOf(source, figure.y ?? '', 'y');
  const threshold = literalSql(figure.threshold ?? DEFAULT_GENOME_THRESHOLD);
  const raw = `CAST(${chromosome.sql} AS VARCHAR)`;
  const p = doubleSql(y);
  const memoKey = options.memo.keyOf(source, `manhattan-lengths\u0000${chromosome.sql}\u0000${position}\u0000${p}`);
  const lengths = await wholeTableLengths(connection, options, memoKey, { from, raw, position, p });
  const chromosomes = laidOut(lengths);
  if (chromosomes.length > MAX_CHROMOSOMES || lengths.length > MAX_CHROMOSOMES * 4)
    throw new UnsuitableData('chromosome', tooManyChromosomes(chromosome.name));
  const placed = placedSql(chromosomes, { from, where: whereOf(conditions), raw, position, p });
  const [stats = {}] = await connection.query(
    `SELECT count(*) FILTER (WHERE "y" < ${threshold}) AS "significant", count(*) AS "drawable", ` +
      `max("minus_log10_y") AS "top", max("minus_log10_y") FILTER (WHERE "y" >= ${threshold}) AS "ns_top", ` +
      `(SELECT count(*) FROM ${from}${whereOf(conditions)}) AS "n" FROM (${placed})`,
    statement.params,
  );
  const budget = figure.max_points ?? DEFAULT_FIELD_POINT_BUDGET;
  const thinned = count(stats.drawable) - count(stats.significant) > Math.max(0, budget - count(stats.significant));
  const top = stats.top === null || stats.top === undefined ? 1 : Number(stats.top);
  const last = chromosomes.at(-1);
  const drawn = await connection.query(
    thinned
      ? thinnedSql(placed, threshold, {
          cells: Math.max(THIN_ROWS, budget - count(stats.significant)),
          length: last === undefined ? 0 : last.offset + last.length,
          top: numberOf(stats.ns_top) ?? top,
        })
      : `SELECT * FROM (${placed}) ORDER BY "genome_position", "y"`,
    statement.params,
  );
  const roles: Role[] = [
    { name: 'chromosome', type: 'string', column: chromosome.name, output: 'plain' },
    { ...numberRole('position', null), column: figure.position ?? null },
    numberRole('genome_position', null),
    numberRole('y', y),
    numberRole('minus_log10_y', y),
  ];
  const capped = drawn.filter((row) => row.minus_log10_y === null).length;
  return {
    ...figureAnswer(
      roles,
      drawn.map((row) => (row.minus_log10_y === null ? { ...row, minus_log10_y: top } : row)),
      thinned,
      count(stats.n),
    ),
    significant: count(stats.significant),
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

/** A chromosome as laid out: its drawn name, the values that write it, its length and offset. */
interface Chromosome {
  name: string;
  raws: string[];
  length: number;
  offset: number;
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
 * The narrowed rows that have a place, with their drawn chromosome, genome-wide position and
 * −log10 p: the chromosome value as written is joined to the few laid out (a hash join, no
 * per-row string work).
 */
function placedSql(
  chromosomes: readonly Chromosome[],
  table: { from: string; where: string; raw: string; position: string; p: string },
): string {
  const values = chromosomes.flatMap(({ name, raws, offset }) =>
    raws.map((raw) => `(${quoteString(raw)}, ${quoteString(name)}, CAST(${offset} AS DOUBLE))`),
  );
  if (values.length === 0) values.push("(NULL, '', 0.0)");
  return (
    `SELECT "placing"."chromosome", "position", "y", ${minusLog10Sql('"y"')} AS "minus_log10_y", ` +
    `"placing"."offset" + "position" AS "genome_position" FROM (SELECT ${table.raw} AS "raw", ` +
    `${table.position} AS "position", ${table.p} AS "y" FROM ${table.from}${table.where}) AS "points" ` +
    `JOIN (VALUES ${values.join(', ')}) AS "placing"("raw", "chromosome", "offset") ON "points"."raw" = "placing"."raw" ` +
    `WHERE "position" >= 0 AND ${validPSql('"y"')}`
  );
}

/**
 * Every significant point, and of the others one per cell of a grid of at most `cells` cells over
 * the genome-wide x and −log10 p (`THIN_ROWS` rows): the one of lowest p (then leftmost), so the
 * shape stays. One aggregate per cell, not a window over every row.
 */
function thinnedSql(placedPoints: string, threshold: string, grid: { cells: number; length: number; top: number }) {
  const { length, top } = grid;
  const width = (Math.max(length, 1) * (1 + 1e-9)) / Math.max(1, Math.floor(grid.cells / THIN_ROWS));
  // The last cell holds the highest value itself (`floor` of exactly it would open one more).
  const height = (Math.max(top, 1) * (1 + 1e-9)) / THIN_ROWS;
  const cell = `floor("genome_position" / ${width}), floor(least(coalesce("minus_log10_y", ${top}), ${top}) / ${height})`;
  const columns = ['chromosome', 'position', 'y', 'minus_log10_y', 'genome_position'];
  const kept = columns.map((name) => `"kept"."${name}" AS "${name}"`).join(', ');
  return (
    `WITH "placed" AS (${placedPoints}) ` +
    `SELECT * FROM "placed" WHERE "y" < ${threshold} UNION ALL ` +
    `SELECT ${kept} FROM (SELECT arg_min({${columns.map((name) => `'${name}': "${name}"`).join(', ')}}, ` +
    `("y", "genome_position")) AS "kept" FROM "placed" WHERE "y" >= ${threshold} GROUP BY ${cell}) ` +
    'ORDER BY "genome_position", "y"'
  );
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
  const [stats = {}] = await connection.query(
    `SELECT count(*) AS "drawable", max(${minusLog10Sql('"p"')}) AS "top", ` +
      `(SELECT count(*) FROM ${from}${whereOf(conditions)}) AS "n" FROM (${valid})`,
    statement.params,
  );
  const n = count(stats.drawable);
  const budget = figure.max_points ?? DEFAULT_FIELD_POINT_BUDGET;
  const top = stats.top === null || stats.top === undefined ? 1 : Number(stats.top);
  const ranked = `SELECT "p", row_number() OVER (ORDER BY "p") AS "i" FROM (${valid})`;
  const head = Math.min(1000, Math.floor(budget / 2));
  const step = Math.ceil(n / (budget - head));
  const thin = n > budget ? ` WHERE "i" <= ${head} OR "i" % ${step} = 0 OR "i" = ${n}` : '';
  const drawn = await connection.query(
    `SELECT -log10(("i" - 0.5) / ${n}) AS "expected", ${minusLog10Sql('"p"')} AS "observed", "p" ` +
      `FROM (${ranked})${thin} ORDER BY "i" DESC`,
    statement.params,
  );
  const middle = await connection.query(
    `SELECT "p" FROM (${ranked}) WHERE "i" IN (${Math.floor((n + 1) / 2)}, ${Math.floor(n / 2) + 1})`,
    statement.params,
  );
  const roles = [numberRole('expected', null), numberRole('observed', y)];
  const capped = drawn.filter((row) => row.observed === null).length;
  return {
    ...figureAnswer(
      roles,
      drawn.map((row) => (row.observed === null ? { ...row, observed: top } : row)),
      n > budget,
      count(stats.n),
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
