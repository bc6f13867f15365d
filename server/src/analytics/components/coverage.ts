import {
  DEFAULT_COVERAGE_BUCKETS,
  DEFAULT_COVERAGE_SERIES,
  type FigureComponent,
  type FigureData,
} from '@service/common';
import type { JsonValue, ListRows, SqlRow } from '../../engine/duckdb.js';
import {
  chromosomeNameSql,
  chromosomeRankSql,
  drawnChromosomeName,
  MAX_CHROMOSOMES,
  tooManyChromosomes,
} from '../sql/chromosomes.js';
import { columnOf, count, jsonValue, type Output, type TableSnapshot } from '../sql/columns.js';
import { type NarrowedRows, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import { UnsuitableData } from './data-problems.js';
import { doubleSql } from './field-points.js';
import { answerColumns, asParam, Bins, numberOf, numberRole, type Role, roleOf } from './figure-rows.js';
import type { ComputeOptions } from './fit.js';

/**
 * Coverage tracks (docs/dashboards.md "Coverage tracks and phylogenetic trees"): depth along
 * positions, one line per sample. Beyond `buckets` distinct positions the positions fall into
 * that many equal-width buckets, and each sample's bucket keeps its lowest and highest depth (and
 * the mean), so a one-base dropout or peak stays visible however wide the bucket. At most
 * `max_categories` samples (the first by name) are drawn; the answer counts those left out. With a
 * `chromosome` column one contig is drawn (`contig`, default the first in natural order).
 */
export async function coverageData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  options: Pick<ComputeOptions, 'memo'>,
): Promise<FigureData> {
  const { connection, from, conditions } = rows;
  const position = doubleSql(columnOf(source, figure.position ?? '', 'position'));
  const y = columnOf(source, figure.y ?? '', 'y');
  const color = figure.color === undefined ? null : columnOf(source, figure.color, 'color');
  const colorSql = color === null ? 'NULL' : color.sql;
  const contigs = await chosenContig(rows, source, figure, statement, options);
  const points =
    `SELECT ${colorSql} AS "color", ${position} AS "position", ${doubleSql(y)} AS "depth" ` +
    `FROM ${from}${whereOf(conditions, contigs?.condition ?? [])}`;
  const kept = figure.max_categories ?? DEFAULT_COVERAGE_SERIES;
  const drawable = `SELECT * FROM (${points}) WHERE "position" IS NOT NULL AND "depth" IS NOT NULL`;
  const stats = await trackStats(rows, drawable, kept, statement);
  const series = count(stats.series);
  const shown = series > kept ? firstSeries(drawable, stats.last ?? null, statement) : drawable;
  const budget = figure.buckets ?? DEFAULT_COVERAGE_BUCKETS;
  const low = numberOf(stats.low);
  const high = numberOf(stats.high);
  const bucketed = count(stats.positions) > budget && low !== null && high !== null;
  const bins = bucketed ? new Bins(low, high, budget) : null;
  const bucket = bins === null ? '"position"' : bins.indexSql('"position"', (value) => statement.param(value));
  const drawn = await connection.queryLists(
    `SELECT "color", ${inBucketOrder(['bucket', 'min', 'max', 'mean'])} FROM (SELECT "color", ${bucket} AS "bucket", ` +
      `min("depth") AS "min", max("depth") AS "max", avg("depth") AS "mean" FROM (${shown}) GROUP BY ALL) ` +
      'GROUP BY "color" ORDER BY "color" ASC NULLS LAST',
    statement.params,
  );
  const roles: Role[] = [
    ...(color === null ? [] : [roleOf('color', color)]),
    { ...numberRole('x_low', null), column: figure.position ?? null },
    { ...numberRole('x_high', null), column: figure.position ?? null },
    numberRole('min', y),
    numberRole('max', y),
    numberRole('mean', y),
  ];
  return {
    columns: answerColumns(roles),
    rows: bucketRows(drawn, bins, color === null ? null : roleOf('color', color).output),
    sampled: bucketed || series > kept,
    total_rows: count(stats.n),
    bucket_width: bins === null || low === null || high === null ? 0 : (high - low) / bins.count,
    left_out_series: Math.max(0, series - kept),
    ...(contigs === null
      ? {}
      : {
          contigs: contigs.names,
          contig: contigs.chosen,
          // The drawn contig's positions from 0: a brush reads them back as a genomic interval.
          chromosomes: [{ name: contigs.chosen, offset: 0, length: Math.max(0, high ?? 0) }],
        }),
  };
}

/** Each of the named columns as one list of doubles per sample, by bucket (read as typed arrays). */
const inBucketOrder = (names: readonly string[]) =>
  names.map((name) => `list(CAST("${name}" AS DOUBLE) ORDER BY "bucket") AS "${name}"`).join(', ');

/**
 * The answer's rows, `[color?, x_low, x_high, min, max, mean]`, made as arrays from each sample's
 * lists of buckets: 40,000 of them at 20 samples × 2,000 buckets. DuckDB sends a sample's buckets
 * as lists (a line per bucket took a third longer to read, and left more garbage behind), read
 * as typed arrays (`queryLists`): converting them to arrays of numbers first took as long again.
 */
function bucketRows({ rows: samples, lists }: ListRows, bins: Bins | null, colorOutput: Output | null): JsonValue[][] {
  const rows: JsonValue[][] = [];
  for (const [index, sample] of samples.entries()) {
    const { bucket = EMPTY, min = EMPTY, max = EMPTY, mean = EMPTY } = lists[index] ?? {};
    const color = colorOutput === null ? null : jsonValue(sample.color, colorOutput);
    for (let at = 0; at < bucket.length; at++) {
      const number = bucket[at]!;
      const [low, high] = bins === null ? [number, number] : bins.edges(number);
      const [lowest, highest, average] = [finite(min[at]), finite(max[at]), finite(mean[at])];
      // Literal arrays: spreading the five numbers after the colour took four times as long.
      rows.push(
        colorOutput === null
          ? [finite(low), finite(high), lowest, highest, average]
          : [color, finite(low), finite(high), lowest, highest, average],
      );
    }
  }
  return rows;
}

const EMPTY = new Float64Array(0);
/** A number of the answer: null where it is missing or not finite (NaN in the typed lists). */
const finite = (value: number | undefined): number | null =>
  value !== undefined && Number.isFinite(value) ? value : null;

/**
 * A track of several contigs (`chromosome`): every contig of the whole table in natural order
 * (remembered per snapshot; more than `MAX_CHROMOSOMES` is the component's error), the one drawn
 * (`contig`, or the first) and the condition keeping its rows; null without `chromosome`.
 */
async function chosenContig(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  options: Pick<ComputeOptions, 'memo'>,
): Promise<{ names: string[]; chosen: string; condition: string } | null> {
  if (figure.chromosome === undefined) return null;
  const name = chromosomeNameSql(columnOf(source, figure.chromosome, 'chromosome').sql);
  const key = options.memo.keyOf(source, `coverage-contigs\u0000${name}`);
  let names = options.memo.get(key) as string[] | undefined;
  if (names === undefined) {
    const found = await rows.connection.query(
      `SELECT "name" FROM (SELECT DISTINCT ${name} AS "name" FROM ${rows.from}) WHERE "name" IS NOT NULL AND "name" <> '' ` +
        `ORDER BY ${chromosomeRankSql('"name"')}, "name" LIMIT ${MAX_CHROMOSOMES + 1}`,
      [],
    );
    names = found.map((row) => String(row.name));
    options.memo.set(key, names);
  }
  if (names.length > MAX_CHROMOSOMES) throw new UnsuitableData('chromosome', tooManyChromosomes(figure.chromosome));
  const wanted = figure.contig === undefined ? names[0] : drawnChromosomeName(figure.contig);
  if (wanted !== undefined && !names.includes(wanted)) {
    throw new UnsuitableData(
      'contig',
      `the table has no contig ${JSON.stringify(figure.contig)} in ${figure.chromosome}`,
    );
  }
  const chosen = wanted ?? '';
  return { names, chosen, condition: `${name} = ${statement.param(chosen)}` };
}

/**
 * In one statement: the rows under the filters (`n`), the drawable rows' distinct positions, their
 * lowest and highest, how many samples (series) they have and the `kept`-th sample by name
 * (`last`). Each sample's extent is grouped once and read three times; counting distinct samples
 * and listing the first ones were two more scans of every row.
 */
async function trackStats(
  { connection, from, conditions }: NarrowedRows,
  drawable: string,
  kept: number,
  statement: Statement,
): Promise<SqlRow> {
  const [stats = {}] = await connection.query(
    `WITH "samples" AS MATERIALIZED (SELECT "color", min("position") AS "low", max("position") AS "high" ` +
      `FROM (${drawable}) GROUP BY "color") ` +
      `SELECT (SELECT count(*) FROM ${from}${whereOf(conditions)}) AS "n", ` +
      `(SELECT count(DISTINCT "position") FROM (${drawable})) AS "positions", ` +
      `(SELECT count(*) FROM "samples") AS "series", (SELECT min("low") FROM "samples") AS "low", ` +
      `(SELECT max("high") FROM "samples") AS "high", ` +
      `(SELECT "color" FROM "samples" ORDER BY "color" ASC NULLS LAST LIMIT 1 OFFSET ${kept - 1}) AS "last"`,
    statement.params,
  );
  return stats;
}

/**
 * The rows of the first samples by name up to `last`, the last kept (a missing sample last: with
 * more samples than are kept, the kept ones all have a name). One comparison instead of a list
 * of them, which DuckDB can also check against each row group's range of names.
 */
function firstSeries(drawable: string, last: JsonValue, statement: Statement): string {
  return `SELECT * FROM (${drawable}) WHERE "color" <= ${statement.param(asParam(last))}`;
}
