import { DEFAULT_MAX_INTERSECTIONS, type FigureComponent, type FigureData } from '@service/common';
import type { JsonValue } from '../../engine/duckdb.js';
import { columnOf, count, type TableSnapshot } from '../sql/columns.js';
import { memberSql } from '../sql/membership.js';
import { type NarrowedRows, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';

/**
 * UpSet plots (docs/dashboards.md "Sunburst, treemap, sankey and UpSet"): each row (or item)
 * counted once, in the intersection of exactly the sets it belongs to; rows in no set are not
 * counted. The `max_intersections` largest are sent (chosen in DuckDB: a million items may fall
 * into as many intersections), the rest counted in `left_out`.
 */

interface Intersection {
  sets: string[];
  count: number;
}

interface Counted {
  intersections: Intersection[];
  setSizes: Record<string, number>;
  total: number;
  /** Intersections and their rows, all of them (kept or not). */
  groups: number;
  counted: number;
}

export async function upsetData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const budget = figure.max_intersections ?? DEFAULT_MAX_INTERSECTIONS;
  const counted =
    figure.sets === undefined
      ? await pairIntersections(rows, source, figure, statement, budget)
      : await columnIntersections(rows, source, figure, statement, budget);
  return upsetAnswer(counted);
}

/** The largest groups of `grouped` (`"key"`, `"n"`) with how many groups and rows there are in all. */
const largestSql = (grouped: string, order: string, budget: number) =>
  `SELECT *, count(*) OVER () AS "groups", sum("n") OVER () AS "counted" FROM (${grouped}) ` +
  `ORDER BY "n" DESC, ${order} LIMIT ${budget}`;

/**
 * Set columns: each row's sets as the bits of one integer, counted per integer, in one scan of the
 * rows: the set sizes and the total are sums over those few counts, not a second pass.
 */
async function columnIntersections(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  budget: number,
): Promise<Counted> {
  const names = figure.sets ?? [];
  const members = names.map((name, index) => memberSql(columnOf(source, name, `sets[${index}]`)));
  const mask = members.map((member, bit) => `CASE WHEN ${member} THEN ${2 ** bit} ELSE 0 END`).join(' + ');
  const masks = `SELECT CAST(${mask} AS BIGINT) AS "key" FROM ${rows.from}${whereOf(rows.conditions)}`;
  const sizes = names.map((_, bit) => `sum("n") FILTER (WHERE ("key" & ${2 ** bit}) <> 0) AS "s${bit}"`);
  const largest = largestSql('SELECT "key", "n" FROM "counts" WHERE "key" <> 0', 'bit_count("key"), "key"', budget);
  const answer = await rows.connection.query(
    `WITH "counts" AS MATERIALIZED (SELECT "key", count(*) AS "n" FROM (${masks}) GROUP BY 1) ` +
      `SELECT "largest".*, "sizes".* FROM (SELECT sum("n") AS "total", ${sizes.join(', ')} FROM "counts") AS "sizes" ` +
      `LEFT JOIN (${largest}) AS "largest" ON true ORDER BY "n" DESC, bit_count("key"), "key"`,
    statement.params,
  );
  const kept = answer.filter((row) => row.key !== null && row.key !== undefined);
  const [totals = {}] = answer;
  return {
    intersections: kept.map((row) => {
      const bits = count(row.key);
      return { sets: names.filter((_, bit) => Math.floor(bits / 2 ** bit) % 2 === 1), count: count(row.n) };
    }),
    setSizes: Object.fromEntries(names.map((name, i) => [name, count(totals[`s${i}`])])),
    total: count(totals.total),
    ...totalsOf(kept),
  };
}

function totalsOf(largest: readonly Record<string, JsonValue | undefined>[]) {
  return { groups: count(largest[0]?.groups), counted: count(largest[0]?.counted) };
}

/** Item–set pairs: each item's distinct sets (as text, sorted), counted per list. */
async function pairIntersections(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  budget: number,
): Promise<Counted> {
  const item = columnOf(source, figure.item ?? '', 'item');
  const set = columnOf(source, figure.set ?? '', 'set');
  const pairs =
    `SELECT ${item.sql} AS "item", CAST(${set.sql} AS VARCHAR) AS "set" FROM ${rows.from}` +
    whereOf(rows.conditions, `${item.sql} IS NOT NULL`, `${set.sql} IS NOT NULL`);
  const lists = `SELECT list_sort(list(DISTINCT "set")) AS "key" FROM (${pairs}) GROUP BY "item"`;
  const largest = await rows.connection.query(
    largestSql(`SELECT "key", count(*) AS "n" FROM (${lists}) GROUP BY 1`, 'len("key"), "key"', budget),
    statement.params,
  );
  const sizes = await rows.connection.query(
    `SELECT "set", count(DISTINCT "item") AS "n" FROM (${pairs}) GROUP BY 1 ORDER BY 1`,
    statement.params,
  );
  const [all = {}] = await rows.connection.query(
    `SELECT count(*) AS "n" FROM ${rows.from}${whereOf(rows.conditions)}`,
    statement.params,
  );
  return {
    intersections: largest.map((row) => ({
      sets: (Array.isArray(row.key) ? row.key : []).map(String),
      count: count(row.n),
    })),
    setSizes: Object.fromEntries(sizes.map((row) => [String(row.set), count(row.n)])),
    total: count(all.n),
    ...totalsOf(largest),
  };
}

/** The kept intersections, largest first (ties: fewer sets first), and what was left out. */
function upsetAnswer({ intersections, setSizes, total, groups, counted }: Counted): FigureData {
  const keptRows = intersections.reduce((sum, intersection) => sum + intersection.count, 0);
  const leftOut = groups - intersections.length;
  return {
    columns: [
      { name: 'sets', type: 'string', column: null },
      { name: 'count', type: 'long', column: null },
    ],
    rows: intersections.map((intersection) => [intersection.sets.join(' & '), intersection.count]),
    sampled: leftOut > 0,
    total_rows: total,
    set_sizes: setSizes,
    intersections,
    ...(leftOut > 0 ? { left_out: { intersections: leftOut, rows: counted - keptRows } } : {}),
  };
}
