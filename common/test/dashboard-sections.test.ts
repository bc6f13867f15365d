import { describe, expect, it } from 'vitest';
import { foldSections, sectionMembers } from '../src/dashboard-sections.js';

/** Sections on a grid (docs/dashboards.md "Sections"): what each holds, and the page with some folded. */

const at = (component_id: string, type: string, x: number, y: number, w: number, h: number) => ({
  component: { component_id, type },
  item: { component_id, x, y, w, h },
});

// intro above any section; A holds a and b (side by side), B holds c; C holds nothing.
const page = [
  at('intro', 'text', 0, 0, 12, 2),
  at('A', 'section', 0, 2, 12, 1),
  at('a', 'card', 0, 3, 6, 2),
  at('b', 'figure', 6, 3, 6, 4),
  at('B', 'section', 0, 7, 12, 1),
  at('c', 'table', 0, 8, 12, 5),
  at('C', 'section', 0, 13, 12, 1),
];
const place = (placed: ReturnType<typeof foldSections<(typeof page)[number]>>) =>
  placed.map(({ component, item }) => `${component.component_id}@${item.y}`);

describe('sections', () => {
  it('hold the components between their header and the next section', () => {
    expect(Object.fromEntries(sectionMembers(page))).toEqual({ A: ['a', 'b'], B: ['c'], C: [] });
  });

  it('are read in row order whatever the order of the layout', () => {
    expect(Object.fromEntries(sectionMembers([...page].reverse()))).toEqual({ A: ['b', 'a'], B: ['c'], C: [] });
  });

  it('folded, leave their components out and move the rows below up by the band they held', () => {
    expect(place(foldSections(page, new Set()))).toEqual(['intro@0', 'A@2', 'a@3', 'b@3', 'B@7', 'c@8', 'C@13']);
    // A's band is rows 3–6 (b is 4 rows high): B moves from 7 to 3.
    expect(place(foldSections(page, new Set(['A'])))).toEqual(['intro@0', 'A@2', 'B@3', 'c@4', 'C@9']);
    expect(place(foldSections(page, new Set(['A', 'B'])))).toEqual(['intro@0', 'A@2', 'B@3', 'C@4']);
    // The last section holds nothing: folding it changes nothing.
    expect(place(foldSections(page, new Set(['C'])))).toEqual(place(foldSections(page, new Set())));
  });
});
