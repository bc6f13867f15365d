import { describe, expect, it } from 'vitest';
import {
  collectionsBetween,
  type FilterJoin,
  MAX_CHAINS,
  shortestChains,
} from '../../../server/src/analytics/index.js';

const join = (name: string, left: string, right: string): FilterJoin => ({ name, left, right, on: [['k', 'k']] });

/** The collections a chain walks through, from the component's to the filter's. */
const walk = (joins: FilterJoin[], from: string, to: string) =>
  shortestChains(joins, from, to).map((chain) => [from, ...chain.map((step) => step.to)].join('→'));

describe('the chains of joins that carry a filter', () => {
  it('are the shortest ones only, in the order of their joins’ names whatever the order given', () => {
    const joins = [
      join('d', 'a', 'd'),
      join('c', 'c', 'd'),
      join('b', 'a', 'b'),
      join('e', 'b', 'd'),
      join('z', 'a', 'c'),
    ];
    expect(walk(joins, 'a', 'd')).toEqual(['a→d']);
    expect(walk(joins, 'b', 'c')).toEqual(['b→a→c', 'b→d→c']);
    expect(walk([...joins].reverse(), 'b', 'c')).toEqual(['b→a→c', 'b→d→c']);
  });

  it('take the first join by name between two collections, in either direction', () => {
    const chains = shortestChains([join('second', 'a', 'b'), join('first', 'b', 'a')], 'a', 'b');
    expect(chains.map((chain) => chain.map((step) => step.join.name))).toEqual([['first']]);
  });

  it('are none for the same collection, an unlinked one, or a join of a collection with itself', () => {
    expect(walk([join('j', 'a', 'b')], 'a', 'a')).toEqual([]);
    expect(walk([join('j', 'a', 'b')], 'a', 'c')).toEqual([]);
    expect(walk([join('j', 'a', 'a')], 'a', 'b')).toEqual([]);
  });

  it(`stop at ${MAX_CHAINS} when a dense web of joins has more of one length`, () => {
    // Twelve collections each joined to both ends: twelve chains of two joins.
    const middles = Array.from({ length: 12 }, (_, index) => `m${String(index).padStart(2, '0')}`);
    const joins = middles.flatMap((middle) => [join(`a_${middle}`, 'a', middle), join(`${middle}_z`, middle, 'z')]);
    const chains = walk(joins, 'a', 'z');
    expect(chains).toHaveLength(MAX_CHAINS);
    expect(chains[0]).toBe('a→m00→z');
    expect([...collectionsBetween(joins, ['a'], ['z'])].sort()).toEqual(middles.slice(0, MAX_CHAINS));
  });

  it('name the collections between components and filters, not the ends', () => {
    const joins = [join('ab', 'a', 'b'), join('bc', 'b', 'c'), join('cd', 'c', 'd')];
    expect([...collectionsBetween(joins, ['a', 'd'], ['d'])].sort()).toEqual(['b', 'c']);
    expect([...collectionsBetween(joins, ['b'], ['c'])]).toEqual([]);
  });
});
