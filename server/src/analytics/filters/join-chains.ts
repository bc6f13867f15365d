import type { JoinColumnPair } from '@service/common';

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
