import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { call, describeEachDialect } from '../../../test/support/test-server.js';
import { chartHarness } from './analytics-table.js';

/*
 * Issue 28: sunburst, treemap, sankey and UpSet plots computed in DuckDB, and the filters their
 * clicks set. Expected numbers are worked out by hand from the small tables below, and for the
 * ampliseq files by code in this test that reads the file on its own.
 */

/** A three-level hierarchy with a null at the last level; n sums, rows count. */
const TREE_CSV = ['k,p,g,n', 'A,x,1,2', 'A,x,2,3', 'A,y,1,5', 'B,z,,4', 'B,z,,1', ''].join('\n');

/** Sets as 0/1 columns: row 4 in none, row 6's null is "not in a". */
const SETS_CSV = ['id,a,b,c', '1,1,0,0', '2,1,1,0', '3,1,1,0', '4,0,0,0', '5,0,1,1', '6,,1,0', '7,2,0,0', ''].join(
  '\n',
);

/** The same kind of sets as item–set pairs (a repeated pair counts once). */
const PAIRS_CSV = ['gene,pathway', 'g1,a', 'g2,a', 'g2,b', 'g3,b', 'g3,a', 'g4,c', 'g4,c', 'g5,', ''].join('\n');

const fixture = (name: string) => readFileSync(new URL(`../fixtures/ampliseq/${name}`, import.meta.url), 'utf8');

describeEachDialect('sunburst, treemap, sankey and UpSet plots', (dialect) => {
  const charts = chartHarness(dialect, 'Sets');
  const { draw, dashboardOf } = charts;

  const rowCount = { component_id: 'rows', type: 'card', agg: 'count' };

  it('nests a sunburst: every prefix, each parent the sum of its children, nulls a node of their own', async () => {
    const { s, t } = await draw(TREE_CSV, [
      { component_id: 's', type: 'figure', chart: 'sunburst', levels: ['k', 'p', 'g'], value: 'n' },
      { component_id: 't', type: 'figure', chart: 'treemap', levels: ['k', 'p'] },
    ]);
    expect(s?.nodes).toEqual([
      { path: ['A'], value: 10 },
      { path: ['B'], value: 5 },
      { path: ['A', 'x'], value: 5 },
      { path: ['A', 'y'], value: 5 },
      { path: ['B', 'z'], value: 5 },
      { path: ['A', 'y', 1], value: 5 },
      { path: ['B', 'z', null], value: 5 },
      { path: ['A', 'x', 2], value: 3 },
      { path: ['A', 'x', 1], value: 2 },
    ]);
    expect(s).toMatchObject({ total_rows: 5, sampled: false });
    expect(s?.rows).toEqual([
      ['A', 'y', 1, 5],
      ['B', 'z', null, 5],
      ['A', 'x', 2, 3],
      ['A', 'x', 1, 2],
    ]);
    // Without a value, rows are counted.
    expect(t?.nodes).toEqual([
      { path: ['A'], value: 3 },
      { path: ['B'], value: 2 },
      { path: ['A', 'x'], value: 2 },
      { path: ['B', 'z'], value: 2 },
      { path: ['A', 'y'], value: 1 },
    ]);
  });

  it('folds the smallest values of a level into one "Other" per parent and says how many', async () => {
    const { s } = await draw(TREE_CSV, [
      { component_id: 's', type: 'figure', chart: 'sunburst', levels: ['k', 'g'], value: 'n', max_categories: 2 },
    ]);
    // g by total: 1 (7), null (5), 2 (3): 2 is folded.
    expect(s?.folded).toEqual([{ level: 1, values: 1 }]);
    expect(s?.sampled).toBe(true);
    expect(s?.nodes).toEqual([
      { path: ['A'], value: 10 },
      { path: ['B'], value: 5 },
      { path: ['A', 1], value: 7 },
      { path: ['B', null], value: 5 },
      { path: ['A', 'Other'], value: 3, other: true },
    ]);
  });

  it('a click on a node narrows the others to its path, null values included', async () => {
    const { data } = await dashboardOf(TREE_CSV, [
      { component_id: 's', type: 'figure', chart: 'sunburst', levels: ['k', 'p', 'g'], value: 'n' },
      rowCount,
    ]);
    const count = async (value: unknown[]) => {
      const answer = await data([{ component_id: 's', value }]);
      expect(answer.status, answer.text).toBe(200);
      return (answer.body.components.rows as { value: number }).value;
    };
    expect(await count(['A'])).toBe(3);
    expect(await count(['A', 'x'])).toBe(2);
    expect(await count(['A', 'x', 2])).toBe(1);
    expect(await count(['B', 'z', null])).toBe(2);
    const tooDeep = await data([{ component_id: 's', value: ['A', 'x', 1, 'extra'] }]);
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body).toMatchObject({ code: 'validation_failed' });
  });

  it('sums a sankey’s flows between successive levels, leaving out nulls; a click filters on a flow or node', async () => {
    const { data } = await dashboardOf(TREE_CSV, [
      { component_id: 'k', type: 'figure', chart: 'sankey', levels: ['k', 'p', 'g'], value: 'n' },
      rowCount,
    ]);
    const answer = await data();
    expect(answer.status, answer.text).toBe(200);
    const sankey = answer.body.components.k as Record<string, unknown>;
    expect(sankey.links).toEqual([
      { level: 0, from: 'A', to: 'x', value: 5 },
      { level: 0, from: 'A', to: 'y', value: 5 },
      { level: 0, from: 'B', to: 'z', value: 5 },
      { level: 1, from: 'y', to: 1, value: 5 },
      { level: 1, from: 'x', to: 2, value: 3 },
      { level: 1, from: 'x', to: 1, value: 2 },
    ]);
    expect(sankey).toMatchObject({ total_rows: 5, sampled: false });
    const count = async (value: unknown[]) => {
      const narrowed = await data([{ component_id: 'k', value }]);
      expect(narrowed.status, narrowed.text).toBe(200);
      return (narrowed.body.components.rows as { value: number }).value;
    };
    expect(await count([1, 'x', 2])).toBe(1);
    expect(await count([0, 'A', 'y'])).toBe(1);
    expect(await count([0, 'B'])).toBe(2);
    expect(await count([2, 1])).toBe(2);
    const badLevel = await data([{ component_id: 'k', value: [2, 'x', 1] }]);
    expect(badLevel.status).toBe(400);
  });

  it('counts an UpSet plot’s rows once in exactly their sets, largest first, and keeps its budget', async () => {
    const { u, small } = await draw(SETS_CSV, [
      { component_id: 'u', type: 'figure', chart: 'upset', sets: ['a', 'b', 'c'] },
      { component_id: 'small', type: 'figure', chart: 'upset', sets: ['a', 'b', 'c'], max_intersections: 2 },
    ]);
    // a: rows 1, 2, 3, 7 (2 is not 0); b: 2, 3, 5, 6; c: 5. Row 4 is in no set.
    expect(u?.set_sizes).toEqual({ a: 4, b: 4, c: 1 });
    expect(u?.intersections).toEqual([
      { sets: ['a'], count: 2 },
      { sets: ['a', 'b'], count: 2 },
      { sets: ['b'], count: 1 },
      { sets: ['b', 'c'], count: 1 },
    ]);
    expect(u).toMatchObject({ total_rows: 7, sampled: false });
    expect(u?.left_out).toBeUndefined();
    expect(small?.intersections).toEqual([
      { sets: ['a'], count: 2 },
      { sets: ['a', 'b'], count: 2 },
    ]);
    expect(small).toMatchObject({ left_out: { intersections: 2, rows: 2 }, sampled: true });
  });

  it('counts an UpSet plot of item–set pairs by item', async () => {
    const { u } = await draw(PAIRS_CSV, [
      { component_id: 'u', type: 'figure', chart: 'upset', item: 'gene', set: 'pathway' },
    ]);
    // g1 {a}, g2 {a, b}, g3 {a, b}, g4 {c}; g5 has no set.
    expect(u?.set_sizes).toEqual({ a: 3, b: 2, c: 1 });
    expect(u?.intersections).toEqual([
      { sets: ['a', 'b'], count: 2 },
      { sets: ['a'], count: 1 },
      { sets: ['c'], count: 1 },
    ]);
  });

  it('a click on an intersection narrows the others to the rows in exactly those sets', async () => {
    const { data } = await dashboardOf(SETS_CSV, [
      { component_id: 'u', type: 'figure', chart: 'upset', sets: ['a', 'b', 'c'] },
      rowCount,
    ]);
    const count = async (value: unknown[]) => {
      const answer = await data([{ component_id: 'u', value }]);
      expect(answer.status, answer.text).toBe(200);
      return (answer.body.components.rows as { value: number }).value;
    };
    // Each as many as its intersection counts: rows 2 and 3; row 6 (row 5 is in c too).
    expect(await count(['a', 'b'])).toBe(2);
    expect(await count(['b'])).toBe(1);
    expect(await count(['c'])).toBe(0);
    const unknown = await data([{ component_id: 'u', value: ['d'] }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'validation_failed' });
  });

  it('draws the ampliseq UpSet matrix with the intersection sizes counted here from the file', async () => {
    const text = fixture('upset_canonical.tsv');
    const [header = '', ...lines] = text.trim().split('\n');
    const sets = header.split('\t').slice(1);
    const expected = new Map<string, number>();
    const sizes = Object.fromEntries(sets.map((set) => [set, 0]));
    for (const line of lines) {
      const flags = line.split('\t').slice(1);
      const member = sets.filter((_, index) => flags[index] === '1');
      for (const set of member) sizes[set] = (sizes[set] ?? 0) + 1;
      if (member.length > 0) expected.set(member.join('|'), (expected.get(member.join('|')) ?? 0) + 1);
    }
    const { u } = await draw(text.replaceAll('\t', ','), [{ component_id: 'u', type: 'figure', chart: 'upset', sets }]);
    expect(u?.set_sizes).toEqual(sizes);
    const answered = u?.intersections as { sets: string[]; count: number }[];
    expect(new Map(answered.map(({ sets, count }) => [sets.join('|'), count]))).toEqual(expected);
    const counts = answered.map(({ count }) => count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(u?.total_rows).toBe(lines.length);
  });

  it('draws the ampliseq taxonomy as a sunburst whose sums match the file', async () => {
    const text = fixture('sunburst_canonical.tsv');
    const [, ...lines] = text.trim().split('\n');
    const byPhylum = new Map<string, number>();
    let total = 0;
    for (const line of lines) {
      const cells = line.split('\t');
      const key = `${cells[2]}|${cells[3]}`;
      byPhylum.set(key, (byPhylum.get(key) ?? 0) + Number(cells[8]));
      total += Number(cells[8]);
    }
    const { s } = await draw(text.replaceAll('\t', ','), [
      {
        component_id: 's',
        type: 'figure',
        chart: 'sunburst',
        levels: ['Kingdom', 'Phylum', 'Class'],
        value: 'abundance',
        max_categories: 500,
      },
    ]);
    const nodes = s?.nodes as { path: string[]; value: number }[];
    const phyla = nodes.filter((node) => node.path.length === 2);
    expect(phyla).toHaveLength(byPhylum.size);
    for (const node of phyla) expect(node.value).toBeCloseTo(byPhylum.get(node.path.join('|')) ?? Number.NaN, 9);
    const kingdoms = nodes.filter((node) => node.path.length === 1);
    expect(kingdoms.reduce((sum, node) => sum + node.value, 0)).toBeCloseTo(total, 9);
    for (const parent of nodes.filter((node) => node.path.length < 3)) {
      const children = nodes.filter(
        (node) => node.path.length === parent.path.length + 1 && parent.path.every((v, i) => node.path[i] === v),
      );
      expect(children.reduce((sum, node) => sum + node.value, 0)).toBeCloseTo(parent.value, 9);
    }
  });

  it('refuses missing or unfit fields when saving, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ chart: 'sunburst' }, 'levels'],
      [{ chart: 'sankey', levels: ['k'] }, 'levels'],
      [{ chart: 'treemap', levels: ['k', 'k'] }, 'levels'],
      [{ chart: 'sunburst', levels: ['k', 'nope'] }, 'levels[1]'],
      [{ chart: 'treemap', levels: ['k'], value: 'p' }, 'value'],
      [{ chart: 'upset' }, 'sets'],
      [{ chart: 'upset', sets: ['n', 'k'] }, 'sets[1]'],
      [{ chart: 'upset', item: 'k' }, 'set'],
    ];
    await charts.expectRefused(TREE_CSV, cases);
  });

  it('exports each kind as a complete ECharts option', async () => {
    const { dashboardId } = await dashboardOf(SETS_CSV, [
      { component_id: 's', type: 'figure', chart: 'sunburst', levels: ['a', 'b'] },
      { component_id: 't', type: 'figure', chart: 'treemap', levels: ['a', 'b'] },
      { component_id: 'k', type: 'figure', chart: 'sankey', levels: ['a', 'b', 'c'] },
      { component_id: 'u', type: 'figure', chart: 'upset', sets: ['a', 'b', 'c'] },
    ]);
    const types = { s: 'sunburst', t: 'treemap', k: 'sankey', u: 'bar' };
    for (const [id, type] of Object.entries(types)) {
      const answer = await call<{ spec: { series: { type: string; data?: unknown[] }[] } }>(
        charts.server,
        'GET',
        `/export/components/${dashboardId}/${id}`,
        { token: charts.ada.access_token },
      );
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.spec.series[0]?.type, id).toBe(type);
      expect(answer.body.spec.series[0]?.data?.length, id).toBeGreaterThan(0);
    }
  });
});
