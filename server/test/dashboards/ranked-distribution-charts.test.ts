import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { call, describeEachDialect } from '../../../test/support/test-server.js';
import { chartHarness, type DataAnswer, rowsOf } from './analytics-table.js';

/*
 * Issue 28: lollipop, diverging bar, dot, stacked bar, strip, ECDF, density and funnel charts
 * computed in DuckDB. The expected numbers were worked out by hand from the small tables below
 * (the comments show the working), not by the code under test.
 */

/** Effects: b has two rows (mean −2, mean se 0.3); f has no effect (left out). */
const EFFECTS_CSV = [
  'taxon,lfc,se,phylum',
  'a,2.0,0.5,P1',
  'b,-3.0,0.2,P1',
  'c,0.5,0.1,P2',
  'd,-0.25,,P2',
  'e,1.0,0.3,P3',
  'f,,0.1,P3',
  'b,-1.0,0.4,P1',
  '',
].join('\n');

/** Enrichment: t3 in B twice (mean count 5, mean padj 0.04). */
const TERMS_CSV = [
  'term,grp,genes,padj',
  't1,A,10,0.01',
  't1,B,4,0.2',
  't2,A,6,0.001',
  't3,B,8,0.05',
  't3,B,2,0.03',
  't4,A,1,0.5',
  '',
].join('\n');

/** Abundances: totals A 8, C 6, B 5, D 4; sample depth orders s2, s3, s1. */
const SAMPLES_CSV = [
  'sample,taxon,abundance,depth',
  's1,A,6,30',
  's1,B,3,30',
  's1,C,1,30',
  's2,A,2,10',
  's2,B,2,10',
  's2,D,4,10',
  's3,C,5,20',
  '',
].join('\n');

/** Five placed points on a 2 × 2 grid of [0, 2] × [0, 2]; the last row has no y. */
const DENSITY_CSV = ['x,y', '0,0', '0,0', '1,1', '2,2', '2,0', '1,', ''].join('\n');

/** 300 distinct values 1…300, in two groups (odd, even). */
const MANY_CSV = ['v,parity', ...Array.from({ length: 300 }, (_, i) => `${i + 1},${i % 2 ? 'even' : 'odd'}`), ''].join(
  '\n',
);

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/ampliseq/${name}`, import.meta.url), 'utf8').replaceAll('\t', ',');

describeEachDialect('the ranked and distribution charts', (dialect) => {
  const charts = chartHarness(dialect, 'Ranked');
  const { draw, dashboardOf } = charts;

  const figure = (id: string, fields: Record<string, unknown>) => ({ component_id: id, type: 'figure', ...fields });

  it('ranks effects by |effect|, keeps the top ones largest first and says how many are not shown', async () => {
    const answer = await draw(EFFECTS_CSV, [
      figure('l', { chart: 'lollipop', x: 'taxon', y: 'lfc', error: 'se', max_categories: 3 }),
      figure('d', { chart: 'diverging_bar', x: 'taxon', y: 'lfc' }),
    ]);
    // Means: a 2, b −2, c 0.5, d −0.25, e 1; |2| ties a and b (by name), then e.
    expect(answer.l).toMatchObject({ total_rows: 7, not_shown: 2, sampled: true });
    const lollipop = rowsOf(answer.l as Record<string, unknown>);
    expect(lollipop.map((row) => [row.x, row.y])).toEqual([
      ['a', 2],
      ['e', 1],
      ['b', -2],
    ]);
    expect(lollipop.map((row) => row.error as number)).toEqual([0.5, 0.3, expect.closeTo(0.3, 12)]);
    expect(answer.d).toMatchObject({ total_rows: 7, not_shown: 0, sampled: false });
    expect(rowsOf(answer.d as Record<string, unknown>).map((row) => [row.x, row.y])).toEqual([
      ['a', 2],
      ['e', 1],
      ['c', 0.5],
      ['d', -0.25],
      ['b', -2],
    ]);
  });

  it('keeps a dot plot’s first terms by size or by colour, with mean sizes and colours', async () => {
    const answer = await draw(TERMS_CSV, [
      figure('size', { chart: 'dot', y: 'term', x: 'grp', size: 'genes', color: 'padj', max_categories: 2 }),
      figure('p', { chart: 'dot', y: 'term', x: 'grp', size: 'genes', color: 'padj', rank_by: 'color_low' }),
      figure('n', { chart: 'dot', y: 'term', x: 'grp' }),
    ]);
    // Best size per term: t1 10, t2 6, t3 5 (mean of 8 and 2), t4 1.
    expect(answer.size).toMatchObject({ not_shown: 2, total_rows: 6 });
    expect(rowsOf(answer.size as Record<string, unknown>)).toEqual([
      { x: 'A', y: 't1', size: 10, color: 0.01 },
      { x: 'B', y: 't1', size: 4, color: 0.2 },
      { x: 'A', y: 't2', size: 6, color: 0.001 },
    ]);
    // Lowest padj per term: t2 0.001, t1 0.01, t3 0.04, t4 0.5.
    const byColor = rowsOf(answer.p as Record<string, unknown>);
    expect(byColor.map((row) => [row.y, row.x])).toEqual([
      ['t2', 'A'],
      ['t1', 'A'],
      ['t1', 'B'],
      ['t3', 'B'],
      ['t4', 'A'],
    ]);
    expect(byColor[3]?.size).toBe(5);
    expect(byColor[3]?.color as number).toBeCloseTo(0.04, 12);
    // Without size: rows per term and group.
    expect(rowsOf(answer.n as Record<string, unknown>).map((row) => [row.y, row.x, row.size])).toEqual([
      ['t3', 'B', 2],
      ['t1', 'A', 1],
      ['t1', 'B', 1],
      ['t2', 'A', 1],
      ['t4', 'A', 1],
    ]);
  });

  it('stacks the top taxa per sample as percentages, the rest as other, samples by sort_by', async () => {
    const answer = await draw(SAMPLES_CSV, [
      figure('pct', {
        chart: 'stacked_bar',
        x: 'sample',
        color: 'taxon',
        y: 'abundance',
        sort_by: 'depth',
        max_categories: 2,
      }),
      figure('raw', { chart: 'stacked_bar', x: 'sample', color: 'taxon', y: 'abundance', normalize: false }),
    ]);
    // Kept A (8) and C (6); B and D in other. s2: 2 of 8 A; s3: all C; s1: 6, 1 and 3 of 10.
    expect(answer.pct).toMatchObject({ not_shown: 2, samples_not_shown: 0, total_rows: 7 });
    expect(rowsOf(answer.pct as Record<string, unknown>)).toEqual([
      { x: 's2', color: 'A', y: 25, other: false, rank: 1 },
      { x: 's2', color: null, y: 75, other: true, rank: 3 },
      { x: 's3', color: 'C', y: 100, other: false, rank: 2 },
      { x: 's1', color: 'A', y: 60, other: false, rank: 1 },
      { x: 's1', color: 'C', y: 10, other: false, rank: 2 },
      { x: 's1', color: null, y: 30, other: true, rank: 3 },
    ]);
    // Sorted by name without sort_by; every taxon kept (4 ≤ 10), sums as they are.
    expect(answer.raw).toMatchObject({ not_shown: 0 });
    expect(rowsOf(answer.raw as Record<string, unknown>).map((row) => [row.x, row.color, row.y])).toEqual([
      ['s1', 'A', 6],
      ['s1', 'C', 1],
      ['s1', 'B', 3],
      ['s2', 'A', 2],
      ['s2', 'B', 2],
      ['s2', 'D', 4],
      ['s3', 'C', 5],
    ]);
  });

  it('orders a funnel’s stages largest first and keeps max_categories of them', async () => {
    const answer = await draw(SAMPLES_CSV, [
      figure('count', { chart: 'funnel', x: 'taxon' }),
      figure('sum', { chart: 'funnel', x: 'taxon', y: 'abundance', agg: 'sum', max_categories: 3 }),
    ]);
    expect(rowsOf(answer.count as Record<string, unknown>).map((row) => [row.x, row.y])).toEqual([
      ['A', 2],
      ['B', 2],
      ['C', 2],
      ['D', 1],
    ]);
    expect(answer.sum).toMatchObject({ not_shown: 1, total_rows: 7 });
    expect(rowsOf(answer.sum as Record<string, unknown>).map((row) => [row.x, row.y])).toEqual([
      ['A', 8],
      ['C', 6],
      ['B', 5],
    ]);
  });

  it('sends a strip’s points by strip, and a stable sample of them beyond max_points', async () => {
    const answer = await draw(SAMPLES_CSV, [figure('s', { chart: 'strip', x: 'abundance', y: 'taxon' })]);
    expect(answer.s).toMatchObject({ sampled: false, total_rows: 7 });
    expect(rowsOf(answer.s as Record<string, unknown>).map((row) => [row.y, row.x])).toEqual([
      ['A', 2],
      ['A', 6],
      ['B', 2],
      ['B', 3],
      ['C', 1],
      ['C', 5],
      ['D', 4],
    ]);
    const components = [figure('s', { chart: 'strip', x: 'v', color: 'parity', max_points: 100 })];
    const { dashboardId } = await dashboardOf(MANY_CSV, components);
    const twice = await Promise.all(
      [0, 1].map(() =>
        call<DataAnswer>(charts.server, 'POST', `/dashboards/${dashboardId}/data`, {
          token: charts.ada.access_token,
          json: {},
        }),
      ),
    );
    const [first, second] = twice.map((one) => one.body.components.s as Record<string, unknown>);
    expect(first).toMatchObject({ sampled: true, total_rows: 300 });
    const values = rowsOf(first ?? {}).map((row) => row.x);
    expect(values).toHaveLength(100);
    expect(new Set(values).size).toBe(100);
    expect(second?.rows).toEqual(first?.rows);
  });

  it('steps an ECDF per group, and thins its steps to the budget keeping each share exact', async () => {
    const answer = await draw(SAMPLES_CSV, [figure('e', { chart: 'ecdf', x: 'abundance', color: 'sample' })]);
    // s1: 1, 3, 6; s2: 2, 2, 4; s3: 5.
    expect(rowsOf(answer.e as Record<string, unknown>).map((row) => [row.color, row.x, row.share])).toEqual([
      ['s1', 1, 1 / 3],
      ['s1', 3, 2 / 3],
      ['s1', 6, 1],
      ['s2', 2, 2 / 3],
      ['s2', 4, 1],
      ['s3', 5, 1],
    ]);
    const many = await draw(MANY_CSV, [figure('e', { chart: 'ecdf', x: 'v', max_points: 100 })]);
    expect(many.e).toMatchObject({ sampled: true, total_rows: 300 });
    const steps = rowsOf(many.e as Record<string, unknown>);
    expect(steps.length).toBeLessThanOrEqual(100);
    expect(steps.length).toBeGreaterThan(90);
    expect(steps[0]).toEqual({ x: 1, share: 1 / 300 });
    expect(steps.at(-1)).toEqual({ x: 300, share: 1 });
    // Values 1…300 each once: the share at v is v / 300.
    for (const step of steps) expect(step.share as number).toBeCloseTo((step.x as number) / 300, 12);
  });

  it('grids a 2-D density: each cell’s rows over the rows placed times the cell’s area', async () => {
    const { g } = await draw(DENSITY_CSV, [figure('g', { chart: 'density_contour', x: 'x', y: 'y', bins: 2 })]);
    expect(g).toMatchObject({
      total_rows: 6,
      grid: { x_low: 0, y_low: 0, x_step: 1, y_step: 1, x_bins: 2, y_bins: 2, placed: 5 },
    });
    // (0,0) twice in the first cell; (2,0) in the lower right; (1,1) and (2,2) in the upper right.
    expect(rowsOf(g as Record<string, unknown>)).toEqual([
      { x: 0.5, y: 0.5, count: 2, density: 0.4 },
      { x: 1.5, y: 0.5, count: 1, density: 0.2 },
      { x: 1.5, y: 1.5, count: 2, density: 0.4 },
    ]);
  });

  it('narrows a card by a clicked category or a brushed range', async () => {
    const components = [
      figure('l', { chart: 'lollipop', x: 'taxon', y: 'abundance' }),
      figure('st', { chart: 'stacked_bar', x: 'sample', color: 'taxon', y: 'abundance' }),
      figure('f', { chart: 'funnel', x: 'sample' }),
      figure('dot', { chart: 'dot', y: 'taxon', x: 'sample' }),
      figure('e', { chart: 'ecdf', x: 'abundance' }),
      figure('s', { chart: 'strip', x: 'depth' }),
      figure('dc', { chart: 'density_contour', x: 'abundance', y: 'depth' }),
      { component_id: 'n', type: 'card', agg: 'count' },
    ];
    const count = async (filters: unknown[]) => (await draw(SAMPLES_CSV, components, filters)).n;
    // Taxon A: 2 rows; sample s1: 3 rows; taxa B or D: 3 rows.
    expect(await count([{ component_id: 'l', value: ['A'] }])).toEqual({ value: 2, unfiltered_value: 7 });
    expect(await count([{ component_id: 'st', value: ['B', 'D'] }])).toEqual({ value: 3, unfiltered_value: 7 });
    expect(await count([{ component_id: 'f', value: ['s1'] }])).toEqual({ value: 3, unfiltered_value: 7 });
    expect(await count([{ component_id: 'dot', value: ['C'] }])).toEqual({ value: 2, unfiltered_value: 7 });
    // abundance in [2, 4]: 3, 2, 2, 4 → 4 rows; depth in [15, 25]: s3 → 1 row.
    expect(await count([{ component_id: 'e', value: [2, 4] }])).toEqual({ value: 4, unfiltered_value: 7 });
    expect(await count([{ component_id: 's', value: [15, 25] }])).toEqual({ value: 1, unfiltered_value: 7 });
    expect(await count([{ component_id: 'dc', value: [5, null] }])).toEqual({ value: 2, unfiltered_value: 7 });
    // A click chart filters by a list, a brushed one by a range.
    const { dashboardId } = await dashboardOf(SAMPLES_CSV, components);
    for (const [id, value] of [
      ['l', [1, 2]],
      ['e', ['A']],
    ] as const) {
      const refused = await call<{ code: string }>(charts.server, 'POST', `/dashboards/${dashboardId}/data`, {
        token: charts.ada.access_token,
        json: { filters: [{ component_id: id, value: id === 'l' ? 'A' : value }] },
      });
      expect(refused.status, id).toBe(400);
      expect(refused.body.code).toBe('validation_failed');
    }
  });

  it('draws the ampliseq data: ANCOM-BC effects, phyla per sample, alpha diversity', async () => {
    const ancombc = await draw(fixture('ancombc_results.tsv'), [
      figure('l', { chart: 'lollipop', x: 'id', y: 'lfc', error: 'se', max_categories: 10 }),
    ]);
    // 32 taxa (ids) over 3 contrasts; the 10 of largest mean |lfc| drawn.
    expect(ancombc.l).toMatchObject({ total_rows: 96, not_shown: 22 });
    const taxa = await draw(fixture('taxonomy_rel_abundance.tsv'), [
      figure('st', { chart: 'stacked_bar', x: 'sample', color: 'Phylum', y: 'rel_abundance' }),
    ]);
    const stacks = rowsOf(taxa.st as Record<string, unknown>);
    const samples = new Set(stacks.map((row) => row.x));
    expect(samples.size).toBe(12);
    for (const sample of samples) {
      const sum = stacks.filter((row) => row.x === sample).reduce((total, row) => total + (row.y as number), 0);
      expect(sum).toBeCloseTo(100, 9);
    }
    const alpha = await draw(fixture('alpha_diversity_multi_canonical.tsv'), [
      figure('s', { chart: 'strip', x: 'shannon', y: 'habitat' }),
      figure('e', { chart: 'ecdf', x: 'shannon', color: 'habitat' }),
    ]);
    expect(alpha.s).toMatchObject({ total_rows: 12, sampled: false });
    expect(rowsOf(alpha.s as Record<string, unknown>)).toContainEqual({
      x: 6.52178855207897,
      y: 'Riverwater',
    });
    const shares = rowsOf(alpha.e as Record<string, unknown>);
    expect(shares.filter((row) => row.share === 1)).toHaveLength(new Set(shares.map((row) => row.color)).size);
  });

  it('exports each kind as a complete ECharts option', async () => {
    const { dashboardId } = await dashboardOf(SAMPLES_CSV, [
      figure('l', { chart: 'lollipop', x: 'taxon', y: 'abundance', error: 'depth' }),
      figure('d', { chart: 'diverging_bar', x: 'taxon', y: 'abundance' }),
      figure('dot', { chart: 'dot', y: 'taxon', x: 'sample', color: 'depth' }),
      figure('st', { chart: 'stacked_bar', x: 'sample', color: 'taxon' }),
      figure('s', { chart: 'strip', x: 'abundance', y: 'taxon' }),
      figure('e', { chart: 'ecdf', x: 'abundance' }),
      figure('dc', { chart: 'density_contour', x: 'abundance', y: 'depth', bins: 4 }),
      figure('f', { chart: 'funnel', x: 'taxon' }),
    ]);
    // Items drawn by each kind's first series: one per taxon, taxon × sample, sample, point, step (+ the 0), stage.
    const items: Record<string, number> = { l: 4, d: 4, dot: 7, st: 3, s: 7, e: 7, f: 4 };
    for (const id of ['l', 'd', 'dot', 'st', 's', 'e', 'dc', 'f']) {
      const answer = await call<{ spec: { series: { type: string; data: unknown[] }[] } }>(
        charts.server,
        'GET',
        `/export/components/${dashboardId}/${id}`,
        { token: charts.ada.access_token },
      );
      expect(answer.status, answer.text).toBe(200);
      const [first] = answer.body.spec.series;
      expect(first, id).toBeDefined();
      if (id === 'dc') expect(answer.body.spec.series.some((series) => series.data.length > 0)).toBe(true);
      else expect(first?.data, id).toHaveLength(items[id] ?? -1);
    }
  });

  it('lists the kinds and their fields in GET /dashboards/schema', async () => {
    const schema = await call<{ $defs: Record<string, { properties?: Record<string, { enum?: string[] }> }> }>(
      charts.server,
      'GET',
      '/dashboards/schema',
    );
    expect(schema.status).toBe(200);
    const properties = schema.body.$defs.FigureComponent?.properties ?? {};
    const kinds = ['lollipop', 'diverging_bar', 'dot', 'stacked_bar', 'strip', 'ecdf', 'density_contour', 'funnel'];
    expect(properties.chart?.enum).toEqual(expect.arrayContaining(kinds));
    for (const field of ['error', 'normalize', 'sort_by', 'rank_by']) expect(properties, field).toHaveProperty(field);
    expect(properties.rank_by?.enum).toEqual(['size', 'color_low', 'color_high']);
  });

  it('refuses a missing or unfitting column when saving, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ chart: 'lollipop', x: 'taxon' }, 'y'],
      [{ chart: 'lollipop', x: 'taxon', y: 'sample' }, 'y'],
      [{ chart: 'lollipop', x: 'taxon', y: 'depth', error: 'sample' }, 'error'],
      [{ chart: 'diverging_bar', x: 'taxon', y: 'depth', error: 'depth' }, 'error'],
      [{ chart: 'dot', x: 'sample' }, 'y'],
      [{ chart: 'dot', y: 'taxon', color: 'sample' }, 'color'],
      [{ chart: 'dot', y: 'taxon', rank_by: 'color_low' }, 'rank_by'],
      [{ chart: 'stacked_bar', x: 'sample' }, 'color'],
      [{ chart: 'stacked_bar', x: 'sample', color: 'taxon', y: 'taxon' }, 'y'],
      [{ chart: 'bar', x: 'sample', normalize: false }, 'normalize'],
      [{ chart: 'strip', x: 'taxon' }, 'x'],
      [{ chart: 'ecdf', x: 'sample' }, 'x'],
      [{ chart: 'density_contour', x: 'depth' }, 'y'],
      [{ chart: 'density_contour', x: 'depth', y: 'depth' }, 'y'],
      [{ chart: 'funnel', x: 'taxon', agg: 'sum', y: 'sample' }, 'y'],
      [{ chart: 'funnel', y: 'depth' }, 'x'],
    ];
    await charts.expectRefused(SAMPLES_CSV, cases);
  });

  it('answers an error in the slot of a chart whose table arrived with a text column', async () => {
    const later = await charts.pendingCollection(SAMPLES_CSV);
    const created = await charts.save(later, [
      { component_id: 'l', type: 'figure', chart: 'lollipop', x: 'taxon', y: 'abundance' },
      { component_id: 'e', type: 'figure', chart: 'ecdf', x: 'abundance' },
      { component_id: 'st', type: 'figure', chart: 'stacked_bar', x: 'sample', color: 'taxon', y: 'abundance' },
    ]);
    expect(created.status, created.text).toBe(201);
    // The table arrives with abundance as text.
    const content = 'sample,taxon,abundance\ns1,A,high\ns2,B,low\n';
    await later.arrive(content);
    const answer = await charts.dataOf(created.body.dashboard_id);
    expect(answer.status, answer.text).toBe(200);
    const unsuitable = (field: string, chart: string) => ({
      error: {
        code: 'unsuitable_column',
        message: expect.stringMatching(new RegExp(`a ${chart} chart needs a numeric column; abundance is string`)),
        field,
      },
    });
    expect(answer.body.components.l).toEqual(unsuitable('y', 'lollipop'));
    expect(answer.body.components.e).toEqual(unsuitable('x', 'ecdf'));
    expect(answer.body.components.st).toEqual(unsuitable('y', 'stacked_bar'));
  });

  it('answers every kind over a table with no usable values, without a 500', async () => {
    const csv = ['sample,taxon,abundance,depth', 's1,,NaN,1', ',A,,2', ''].join('\n');
    const answer = await draw(csv, [
      figure('l', { chart: 'lollipop', x: 'taxon', y: 'abundance' }),
      figure('dot', { chart: 'dot', y: 'taxon', size: 'abundance' }),
      figure('st', { chart: 'stacked_bar', x: 'sample', color: 'taxon', y: 'abundance' }),
      figure('s', { chart: 'strip', x: 'abundance' }),
      figure('e', { chart: 'ecdf', x: 'abundance' }),
      figure('dc', { chart: 'density_contour', x: 'abundance', y: 'depth' }),
      figure('f', { chart: 'funnel', x: 'taxon', agg: 'sum', y: 'abundance' }),
    ]);
    expect(answer.l).toMatchObject({ rows: [], total_rows: 2, not_shown: 0 });
    expect(answer.s).toMatchObject({ rows: [], total_rows: 2 });
    expect(answer.e).toMatchObject({ rows: [], total_rows: 2 });
    expect(answer.dc).toMatchObject({ rows: [], total_rows: 2 });
    // Stacks of nothing: each sample's share is undefined (null), not a division by zero.
    expect(rowsOf(answer.st as Record<string, unknown>).every((row) => row.y === null)).toBe(true);
    expect(answer.f).toMatchObject({ total_rows: 2 });
    expect(answer.dot).toMatchObject({ total_rows: 2 });
  });
});
