import { DEFAULT_MAX_INTERSECTIONS, type FigureComponent, type FigureData } from '@service/common';
import { columnOf, count, type Source } from '../sql/columns.js';
import { memberSql } from '../sql/membership.js';
import { type NarrowedRows, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';

/**
 * UpSet plots (docs/dashboards.md "Sunburst, treemap, sankey and UpSet"): each row (or item)
 * counted once, in the intersection of exactly the sets it belongs to; rows in no set are not
 * counted. The `max_intersections` largest are sent, the rest counted in `left_out`.
 */

interface Intersection {
  sets: string[];
  count: number;
}

export async function upsetData(
  rows: NarrowedRows,
  source: Source,
  figure: FigureComponent,
  statement: Statement,
): Promise<FigureData> {
  const { intersections, setSizes, total } =
    figure.sets === undefined
      ? await pairIntersections(rows, source, figure, statement)
      : await columnIntersections(rows, source, figure, statement);
  return upsetAnswer(figure, intersections, setSizes, total);
}

/** Set columns: each row's sets as the bits of one integer, counted per integer. */
async function columnIntersections(rows: NarrowedRows, source: Source, figure: FigureComponent, statement: Statement) {
  const names = figure.sets ?? [];
  const columns = names.map((name, index) => columnOf(source, name, `sets[${index}]`));
  const mask = columns.map((column, bit) => `CASE WHEN ${memberSql(column)} THEN ${2 ** bit} ELSE 0 END`).join(' + ');
  const counted = await rows.connection.query(
    `SELECT CAST(${mask} AS BIGINT) AS "mask", count(*) AS "n" FROM ${rows.from}${whereOf(rows.conditions)} GROUP BY 1`,
    statement.params,
  );
  const setSizes = Object.fromEntries(names.map((name) => [name, 0]));
  const intersections: Intersection[] = [];
  let total = 0;
  for (const row of counted) {
    const bits = count(row.mask);
    const n = count(row.n);
    total += n;
    const sets = names.filter((_, bit) => Math.floor(bits / 2 ** bit) % 2 === 1);
    for (const name of sets) setSizes[name] = (setSizes[name] ?? 0) + n;
    if (sets.length > 0) intersections.push({ sets, count: n });
  }
  return { intersections, setSizes, total };
}

/** Item–set pairs: each item's distinct sets (as text, sorted), counted per list. */
async function pairIntersections(rows: NarrowedRows, source: Source, figure: FigureComponent, statement: Statement) {
  const item = columnOf(source, figure.item ?? '', 'item');
  const set = columnOf(source, figure.set ?? '', 'set');
  const pairs =
    `SELECT ${item.sql} AS "item", CAST(${set.sql} AS VARCHAR) AS "set" FROM ${rows.from}` +
    whereOf(rows.conditions, `${item.sql} IS NOT NULL`, `${set.sql} IS NOT NULL`);
  const counted = await rows.connection.query(
    `SELECT "sets", count(*) AS "n" FROM (SELECT list_sort(list(DISTINCT "set")) AS "sets" FROM (${pairs}) ` +
      'GROUP BY "item") GROUP BY 1',
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
  const intersections = counted.map((row) => ({
    sets: (Array.isArray(row.sets) ? row.sets : []).map(String),
    count: count(row.n),
  }));
  const setSizes = Object.fromEntries(sizes.map((row) => [String(row.set), count(row.n)]));
  return { intersections, setSizes, total: count(all.n) };
}

/** Largest first (ties: fewer sets, then by names); beyond the budget, the rest counted as left out. */
function upsetAnswer(
  figure: FigureComponent,
  all: Intersection[],
  setSizes: Record<string, number>,
  total: number,
): FigureData {
  const order = figure.sets ?? Object.keys(setSizes);
  const rank = (sets: string[]) => sets.map((name) => order.indexOf(name));
  all.sort((a, b) => b.count - a.count || a.sets.length - b.sets.length || compareRanks(rank(a.sets), rank(b.sets)));
  const budget = figure.max_intersections ?? DEFAULT_MAX_INTERSECTIONS;
  const kept = all.slice(0, budget);
  const rest = all.slice(budget);
  return {
    columns: [
      { name: 'sets', type: 'string', column: null },
      { name: 'count', type: 'long', column: null },
    ],
    rows: kept.map((intersection) => [intersection.sets.join(' & '), intersection.count]),
    sampled: rest.length > 0,
    total_rows: total,
    set_sizes: setSizes,
    intersections: kept,
    ...(rest.length > 0
      ? { left_out: { intersections: rest.length, rows: rest.reduce((sum, { count }) => sum + count, 0) } }
      : {}),
  };
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return (a[i] ?? 0) - (b[i] ?? 0);
  }
  return a.length - b.length;
}
