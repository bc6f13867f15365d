import { describe, expect, it } from 'vitest';
import { parseNewick } from '../../src/analytics/index.js';

/** A tree as [name, parent, length, support, tips] per node, in preorder. */
function nodes(text: string) {
  const tree = parseNewick(text);
  return tree.parents.map((parent, node) => [
    tree.names[node],
    parent,
    tree.lengths[node],
    tree.supports[node],
    tree.tips[node],
  ]);
}

describe('the Newick parser', () => {
  it('reads nested clades, branch lengths and support values', () => {
    expect(nodes('((A:0.1,B:0.2)0.95:0.3,C:1e-1);')).toEqual([
      [null, -1, null, null, 3],
      [null, 0, 0.3, 0.95, 2],
      ['A', 1, 0.1, null, 1],
      ['B', 1, 0.2, null, 1],
      ['C', 0, 0.1, null, 1],
    ]);
  });

  it('reads quoted labels with spaces and escaped quotes, named clades and comments', () => {
    expect(nodes("(('Homo sapiens':1,'O''Brien''s [x]' [a comment]:2)Hominids[&&NHX:S=1]:3, [c] D)root;")).toEqual([
      ['root', -1, null, null, 3],
      ['Hominids', 0, 3, null, 2],
      ['Homo sapiens', 1, 1, null, 1],
      ["O'Brien's [x]", 1, 2, null, 1],
      ['D', 0, null, null, 1],
    ]);
  });

  it('reads deep trees without recursion', () => {
    const depth = 50_000;
    const text = `${'('.repeat(depth)}A${',B)'.repeat(depth)};`;
    const tree = parseNewick(text);
    expect(tree.tips[0]).toBe(depth + 1);
    expect(tree.parents).toHaveLength(2 * depth + 1);
  });

  it('refuses what is not Newick, saying where', () => {
    const refusals: [string, RegExp][] = [
      ['taxon\tKingdom\nabc\tBacteria\n', /does not end in ;/],
      ['((A,B);', /1 clade\(s\) never closed/],
      ['(A,B));', /unexpected "\)"/],
      ['(A:x,B);', /branch length "" is not a number|branch length "x"/],
      ['(A,B); (C,D);', /text after the closing ;/],
      ["('A,B);", /quoted label is never closed/],
      ['(A,B)[oops;', /comment \[ is never closed/],
      ['A;', /no clade/],
    ];
    for (const [text, message] of refusals) {
      expect(() => parseNewick(text), text).toThrow(message);
    }
  });

  it('parses the ampliseq tree: 2,683 tips', async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(new URL('../fixtures/ampliseq/tree.nwk', import.meta.url), 'utf8');
    const tree = parseNewick(text);
    expect(tree.tips[0]).toBe(2683);
    expect(tree.names.filter((name, node) => name !== null && tree.tips[node] === 1)).toHaveLength(2683);
  });
});
