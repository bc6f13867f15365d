import {
  type CardComponent,
  type CardData,
  DEFAULT_SPARKLINE_VERSIONS,
  finestTimeGrain,
  MAX_SPARKLINE_POINTS,
  type TimeGrain,
} from '@service/common';
import { DomainError } from '../../errors.js';
import type { Narrowing } from '../filters/narrowing.js';
import { columnOf, jsonValue, type TableSnapshot } from '../sql/columns.js';
import { type NarrowedRows, withNarrowedRows } from '../sql/narrowed.js';
import type { TableReader } from '../sql/reader.js';
import { Statement } from '../sql/statement.js';
import { cardAggSql } from './card-aggregates.js';
import { approximateOver, type ComputeOptions, fitProblems } from './fit.js';

/**
 * What a card shows beside its number (docs/dashboards.md "Cards"): its change against the table's
 * previous version or a reference, and its sparkline across the table's versions or per period of
 * a date column. Every number is the card's aggregate under the dashboard's filters.
 */

type Extras = Pick<CardData, 'comparison' | 'sparkline'>;

/** Periods a sparkline draws at most when the card names a fine grain over a long span (the latest are kept). */
const MAX_PERIODS = 400;

/** The card's comparison and sparkline, for a card whose number is `value` on the snapshot `source`. */
export async function cardExtras(
  reader: TableReader,
  source: TableSnapshot,
  card: CardComponent,
  narrowing: Narrowing,
  options: ComputeOptions,
  value: unknown,
): Promise<Extras> {
  const history = new VersionHistory(reader, source, card, narrowing, options);
  const extras: Extras = {};
  if (card.comparison !== undefined) {
    const reference =
      card.comparison.against === 'reference'
        ? { value: card.comparison.value, version: undefined }
        : await history.previous();
    extras.comparison = change(numberOf(value), reference.value, reference.version);
  }
  if (card.sparkline?.over === 'versions') extras.sparkline = await history.sparkline(card.sparkline.count, value);
  if (card.sparkline?.over === 'column') {
    extras.sparkline = await periodSparkline(reader, source, card, narrowing, options, card.sparkline);
  }
  return extras;
}

function change(value: number | null, reference: number | null, version: number | null | undefined) {
  const delta = value === null || reference === null ? null : value - reference;
  const percent = delta === null || reference === null || reference === 0 ? null : (delta / Math.abs(reference)) * 100;
  return { reference, ...(version === undefined ? {} : { version }), change: delta, change_pct: percent };
}

function numberOf(value: unknown): number | null {
  const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(number) ? number : null;
}

/** The card's number at earlier versions of its table, each computed once per request. */
class VersionHistory {
  private readonly known = new Map<number, Promise<number | null>>();

  constructor(
    private readonly reader: TableReader,
    private readonly source: TableSnapshot,
    private readonly card: CardComponent,
    private readonly narrowing: Narrowing,
    private readonly options: ComputeOptions,
  ) {}

  /** The number at the version before the one read; null (and no version) when there is none. */
  async previous(): Promise<{ value: number | null; version: number | null }> {
    const current = this.source.snapshot?.version ?? 0;
    if (current === 0) return { value: null, version: null };
    return { value: await this.at(current - 1), version: current - 1 };
  }

  /** The number at each of the last `count` versions, oldest first, the one read last. */
  async sparkline(count = DEFAULT_SPARKLINE_VERSIONS, value: unknown): Promise<NonNullable<Extras['sparkline']>> {
    const current = this.source.snapshot?.version ?? 0;
    const first = Math.max(0, current - count + 1);
    const points: { x: number; value: number | null }[] = [];
    // One version after the other: each is a scan, and a request's other components are running too.
    for (let version = first; version < current; version += 1)
      points.push({ x: version, value: await this.at(version) });
    points.push({ x: current, value: numberOf(value) });
    return { points };
  }

  private at(version: number): Promise<number | null> {
    let known = this.known.get(version);
    if (known === undefined) {
      known = this.compute(version);
      this.known.set(version, known);
    }
    return known;
  }

  /**
   * The number over an earlier version: null when that version had no table, lacks a column the
   * card or the filters read, or can no longer be read (vacuumed).
   */
  private async compute(version: number): Promise<number | null> {
    try {
      const earlier = await this.reader.load(this.source.row, version);
      if (earlier.snapshot === null || fitProblems(earlier.byName, this.card).length > 0) return null;
      const statement = new Statement();
      return await withNarrowedRows(this.reader, earlier, this.narrowing, statement, async (rows) => {
        const approximate = approximateOver(earlier, this.options);
        const filter = rows.conditions.length === 0 ? undefined : rows.conditions.join(' AND ');
        const aggregate = cardAggSql(earlier, this.card, filter, approximate);
        const [row = {}] = await rows.connection.query(
          `SELECT ${aggregate.sql} AS "v" FROM ${rows.from}`,
          statement.params,
        );
        return numberOf(jsonValue(row.v, aggregate.output));
      });
    } catch (error) {
      if (error instanceof DomainError) return null;
      throw error;
    }
  }
}

/** The card's number per period of a date column, oldest first, at the card's grain or the finest that fits. */
async function periodSparkline(
  reader: TableReader,
  source: TableSnapshot,
  card: CardComponent,
  narrowing: Narrowing,
  options: ComputeOptions,
  sparkline: { column: string; grain?: TimeGrain | undefined },
): Promise<NonNullable<Extras['sparkline']>> {
  if (source.snapshot === null) return { points: [] };
  const dates = columnOf(source, sparkline.column, 'sparkline.column');
  const statement = new Statement();
  return withNarrowedRows(reader, source, narrowing, statement, async (rows) => {
    const kept = [...rows.conditions, `${dates.sql} IS NOT NULL`].join(' AND ');
    const grain = sparkline.grain ?? (await finestGrain(rows, dates.sql, kept, statement.params));
    const aggregate = cardAggSql(source, card, undefined, approximateOver(source, options));
    const periods = await rows.connection.query(
      `SELECT strftime(date_trunc('${grain}', ${dates.sql}), '%Y-%m-%d') AS "x", ${aggregate.sql} AS "v" ` +
        `FROM ${rows.from} WHERE ${kept} GROUP BY 1 ORDER BY 1 DESC LIMIT ${MAX_PERIODS}`,
      statement.params,
    );
    const points = periods
      .reverse()
      .map((row) => ({ x: String(row.x), value: numberOf(jsonValue(row.v, aggregate.output)) }));
    return { points, grain };
  });
}

/** The finest grain whose periods over the rows' dates stay within MAX_SPARKLINE_POINTS. */
async function finestGrain(
  rows: NarrowedRows,
  dates: string,
  kept: string,
  params: Statement['params'],
): Promise<TimeGrain> {
  const [span = {}] = await rows.connection.query(
    `SELECT date_diff('day', CAST(min(${dates}) AS DATE), CAST(max(${dates}) AS DATE)) AS "days" FROM ${rows.from} WHERE ${kept}`,
    params,
  );
  return finestTimeGrain(Number(span.days ?? 0), MAX_SPARKLINE_POINTS);
}
