import type { JoinColumnPair } from '@service/common';
import { quoteIdentifier } from '../../engine/sql.js';
import { type Column, invalid, type TableSnapshot } from '../sql/columns.js';

/** A join the project declares between two of its collections: what carries filters across. */
export interface FilterJoin {
  name: string;
  left: string;
  right: string;
  /** The key columns, a pair each: the left collection's, then the right one's. */
  on: readonly JoinColumnPair[];
}

/** One join of a chain, walked from the collection `from` to the collection `to`. */
export interface JoinStep {
  from: string;
  to: string;
  join: FilterJoin;
}

/**
 * At most this many chains of equal length carry one filter to one collection: enough for any
 * project a person draws, and a bound on the SQL a dense web of joins would otherwise make.
 */
export const MAX_CHAINS = 8;

/**
 * The links between collections: two collections are linked by the first of their joins by name,
 * and each collection's neighbours are in the order of those joins' names, so chains come out in
 * the same order whatever order the database lists the joins in.
 */
function linksOf(joins: readonly FilterJoin[]): Map<string, Map<string, FilterJoin>> {
  const links = new Map<string, Map<string, FilterJoin>>();
  const byName = [...joins].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const join of byName) {
    if (join.left === join.right) continue;
    for (const [from, to] of [
      [join.left, join.right],
      [join.right, join.left],
    ] as const) {
      const neighbours = links.get(from) ?? new Map<string, FilterJoin>();
      if (!neighbours.has(to)) neighbours.set(to, join);
      links.set(from, neighbours);
    }
  }
  return links;
}

/**
 * Every shortest chain of joins from one collection to another, up to `MAX_CHAINS` (none when no
 * chain links them, or when they are the same collection). A filter on `to` narrows the rows of
 * `from` along each of them (docs/dashboards.md "Filtering and cross-filtering").
 */
export function shortestChains(joins: readonly FilterJoin[], from: string, to: string): JoinStep[][] {
  if (from === to) return [];
  const links = linksOf(joins);
  // Breadth first from the filter's collection: each collection's distance to it.
  const distance = new Map<string, number>([[to, 0]]);
  let frontier = [to];
  while (frontier.length > 0 && !distance.has(from)) {
    const next: string[] = [];
    for (const collection of frontier) {
      for (const neighbour of links.get(collection)?.keys() ?? []) {
        if (distance.has(neighbour)) continue;
        distance.set(neighbour, (distance.get(collection) ?? 0) + 1);
        next.push(neighbour);
      }
    }
    frontier = next;
  }
  if (!distance.has(from)) return [];
  // Forward from the component's collection, one step closer to the filter's at each join.
  const chains: JoinStep[][] = [];
  const walk = (at: string, steps: JoinStep[]) => {
    if (chains.length === MAX_CHAINS) return;
    if (at === to) {
      chains.push(steps);
      return;
    }
    for (const [neighbour, join] of links.get(at) ?? []) {
      if (distance.get(neighbour) === (distance.get(at) ?? 0) - 1)
        walk(neighbour, [...steps, { from: at, to: neighbour, join }]);
    }
  };
  walk(from, []);
  return chains;
}

/**
 * The collections between those of the components and those of the filters, on the chains that
 * carry the filters to them: read like the others, so that a request reads them all at once.
 */
export function collectionsBetween(
  joins: readonly FilterJoin[],
  components: Iterable<string>,
  filters: Iterable<string>,
): Set<string> {
  const between = new Set<string>();
  const filterCollections = [...new Set(filters)];
  for (const component of new Set(components)) {
    for (const filter of filterCollections) {
      for (const chain of shortestChains(joins, component, filter)) {
        for (const step of chain.slice(1)) between.add(step.from);
      }
    }
  }
  return between;
}

/** One join of a chain as SQL: the key columns of the collection before it, and of `collection`. */
export interface JoinHop {
  collection: string;
  ours: string;
  theirs: string;
}

/**
 * One join of a chain as SQL lists of the key columns of the collection it starts from and of
 * the one it goes to; key columns of different types compare as text. A key column a table no
 * longer has is refused at the filter's place (`at`).
 */
export function hopOf({ from, to, join }: JoinStep, sources: ReadonlyMap<string, TableSnapshot>, at: string): JoinHop {
  const ourSource = sources.get(from);
  const theirSource = sources.get(to);
  const oursIsLeft = join.left === from;
  const pairs = join.on.map(([left, right]) => {
    const names = oursIsLeft ? [left, right] : [right, left];
    const [a, b] = [ourSource, theirSource].map((source, side) => {
      const name = names[side]!;
      if (source?.snapshot == null) return null;
      const column = source.byName.get(name);
      if (column === undefined) {
        throw invalid(
          `${at}.component_id`,
          `the join ${JSON.stringify(join.name)} that carries this filter to other collections is on ${JSON.stringify(name)}, which the table of data collection ${source.row.id} no longer has`,
        );
      }
      return column;
    });
    const sameType = a == null || b == null || a.sqlType === b.sqlType;
    const sql = (column: Column | null | undefined, name: string) =>
      sameType ? quoteIdentifier(name) : `CAST(${column?.sql ?? quoteIdentifier(name)} AS VARCHAR)`;
    return [sql(a, names[0]!), sql(b, names[1]!)] as const;
  });
  const list = (side: 0 | 1) => {
    const items = pairs.map((pair) => pair[side]);
    return items.length === 1 ? items[0]! : `(${items.join(', ')})`;
  };
  return { collection: to, ours: list(0), theirs: list(1) };
}

/**
 * A chain of joins as nested semi-joins, innermost the filter's collection with its conditions:
 * the component's rows whose keys some row of the next collection has, whose keys some row of the
 * one after has, and so on to a row matching the filters. `scans` scans the chain's tables in order.
 */
export async function semiJoin(
  chain: readonly JoinHop[],
  inner: readonly string[],
  scans: () => Promise<{ sql: string; alias: string }[]>,
): Promise<string> {
  const tables = await scans();
  let where = inner.join(' AND ');
  for (let index = chain.length - 1; index >= 0; index -= 1) {
    const hop = chain[index]!;
    const table = tables[index]!;
    where = `${hop.ours} IN (SELECT ${hop.theirs} FROM ${table.sql} AS ${table.alias} WHERE ${where})`;
  }
  return `(${where})`;
}
