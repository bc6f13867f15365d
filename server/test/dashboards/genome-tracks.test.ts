import { readFileSync } from 'node:fs';
import { dashboardDataAnswerSchema } from '@service/common';
import { expect, it } from 'vitest';
import { call, describeEachDialect, uploadFile } from '../../../test/support/test-server.js';
import { chartHarness, type DataAnswer, rowsOf, upsert } from './analytics-table.js';

/*
 * Issue 28, the genome tracks: coverage (min/max per bucket) and trees. The expected numbers were
 * worked out by hand from the small tables below, not by the code under test.
 */

/**
 * Two samples along positions 1…10 and a third at one position. With 4 buckets over [1, 10] (each
 * 2.25 wide) the positions fall in {1, 2, 3}, {4, 5}, {6, 7}, {8, 9, 10}.
 */
const COVERAGE_CSV = [
  'sample,pos,depth',
  'a,1,10',
  'a,2,12',
  'a,3,0', // a dropout
  'a,4,11',
  'a,5,50', // a peak
  'a,6,10',
  'a,7,9',
  'a,8,8',
  'a,9,', // left out: no depth
  'a,10,7',
  ...Array.from({ length: 10 }, (_, i) => `b,${i + 1},${i + 1}`),
  'c,5,3',
  'c,,4', // left out: no position
  '',
].join('\n');

/** Tips A, B, 'C d' (quoted, with a space) and E; the table names A, B, C d and X (no tip). */
const TREE = "((A:1,B:2)0.9:1,('C d':1,E:1):2);";
const TIPS_CSV = 'tip,habitat\nA,river\nB,soil\nC d,river\nX,lake\n';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/ampliseq/${name}`, import.meta.url), 'utf8');

describeEachDialect('the genome tracks', (dialect) => {
  const charts = chartHarness(dialect, 'Tracks');
  const { draw } = charts;
  let treeProjects = 0;

  const track = { type: 'figure', chart: 'coverage', position: 'pos', y: 'depth', color: 'sample' };

  it('keeps the lowest and highest depth of each bucket, per sample', async () => {
    const { c } = await draw(COVERAGE_CSV, [{ component_id: 'c', ...track, buckets: 4 }]);
    expect(c).toMatchObject({ total_rows: 22, sampled: true, bucket_width: 2.25, left_out_series: 0 });
    const rows = rowsOf(c as Record<string, unknown>).map((row) => [
      row.color,
      row.x_low,
      row.x_high,
      row.min,
      row.max,
      Math.round((row.mean as number) * 1000) / 1000,
    ]);
    expect(rows).toEqual([
      ['a', 1, 3.25, 0, 12, 7.333],
      ['a', 3.25, 5.5, 11, 50, 30.5],
      ['a', 5.5, 7.75, 9, 10, 9.5],
      ['a', 7.75, 10, 7, 8, 7.5],
      ['b', 1, 3.25, 1, 3, 2],
      ['b', 3.25, 5.5, 4, 5, 4.5],
      ['b', 5.5, 7.75, 6, 7, 6.5],
      ['b', 7.75, 10, 8, 10, 9],
      ['c', 3.25, 5.5, 3, 3, 3],
    ]);
  });

  it('sends every position when they fit the buckets; leaves out samples beyond max_categories', async () => {
    const { c } = await draw(COVERAGE_CSV, [{ component_id: 'c', ...track, max_categories: 2 }]);
    expect(c).toMatchObject({ total_rows: 22, sampled: true, bucket_width: 0, left_out_series: 1 });
    const rows = rowsOf(c as Record<string, unknown>);
    expect(rows.map((row) => row.color)).toEqual([...Array(9).fill('a'), ...Array(10).fill('b')]);
    expect(rows.filter((row) => row.color === 'a').map((row) => [row.x_low, row.min, row.max])).toEqual([
      [1, 10, 10],
      [2, 12, 12],
      [3, 0, 0],
      [4, 11, 11],
      [5, 50, 50],
      [6, 10, 10],
      [7, 9, 9],
      [8, 8, 8],
      [10, 7, 7],
    ]);
  });

  it('keeps the first samples by their order, numbers as numbers and a missing sample last', async () => {
    // Lanes 10, 9, 2 and none: by number 2, 9, 10, then the missing one; two kept, 2 and 9 (not 10,
    // which sorts before 9 as text), and the lane 9's own positions 1 and 3 (nothing between).
    const csv = ['lane,pos,depth', '10,1,5', '9,1,6', '9,3,8', '2,2,7', ',1,4', ''].join('\n');
    const { c } = await draw(csv, [{ component_id: 'c', ...track, color: 'lane', max_categories: 2 }]);
    expect(c).toMatchObject({ total_rows: 5, sampled: true, bucket_width: 0, left_out_series: 2 });
    const rows = rowsOf(c as Record<string, unknown>).map((row) => [row.color, row.x_low, row.min, row.max]);
    expect(rows).toEqual([
      [2, 2, 7, 7],
      [9, 1, 6, 6],
      [9, 3, 8, 8],
    ]);
  });

  it('narrows a card by a brushed range of positions', async () => {
    const answer = await draw(
      COVERAGE_CSV,
      [
        { component_id: 'c', ...track },
        { component_id: 'n', type: 'card', agg: 'count' },
      ],
      [{ component_id: 'c', value: [4, 7] }],
    );
    // Positions 4…7: four rows of a, four of b, one of c.
    expect(answer.n).toEqual({ value: 9, unfiltered_value: 22 });
    expect(answer.c).toMatchObject({ total_rows: 22 });
  });

  it('refuses a coverage track without its depth, or with a text depth, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ chart: 'coverage', position: 'pos' }, 'y'],
      [{ chart: 'coverage', position: 'pos', y: 'sample' }, 'y'],
      [{ chart: 'coverage', position: 'sample', y: 'depth' }, 'position'],
    ];
    await charts.expectRefused(COVERAGE_CSV, cases);
  });

  /** A collection holding a table of `csv` and the Newick files `trees` (path → text), and a dashboard of `components` on it. */
  async function treeDashboard(csv: string, trees: Record<string, string>, components: Record<string, unknown>[]) {
    const project = await call<{ project_id: string }>(charts.server, 'POST', '/projects', {
      token: charts.ada.access_token,
      json: { name: `Trees ${++treeProjects}` },
    });
    const projectId = project.body.project_id;
    const workflow = await call<{ workflow_id: string }>(charts.server, 'POST', `/projects/${projectId}/workflows`, {
      token: charts.ada.access_token,
      json: { name: 'wf' },
    });
    const collection = await call<{ data_collection_id: string }>(
      charts.server,
      'POST',
      `/workflows/${workflow.body.workflow_id}/datacollections`,
      {
        token: charts.ada.access_token,
        json: { tag: 'tips', pattern: 'tips\\.(csv|tsv)|[^/]+\\.nwk', format: csv.includes('\t') ? 'tsv' : 'csv' },
      },
    );
    const id = collection.body.data_collection_id;
    const table = csv.includes('\t') ? 'tips.tsv' : 'tips.csv';
    expect(await uploadFile(charts.server, charts.ada.access_token, id, { path: table, content: csv })).toBe(201);
    for (const [path, content] of Object.entries(trees)) {
      expect(await uploadFile(charts.server, charts.ada.access_token, id, { path, content })).toBe(201);
    }
    // The table is built from the table file alone: the tree files are left out.
    await upsert(charts.server, charts.ada.access_token, id);
    const created = await call<{ dashboard_id: string; code?: string; errors?: { path: string; message: string }[] }>(
      charts.server,
      'POST',
      '/dashboards',
      {
        token: charts.ada.access_token,
        json: {
          project_id: projectId,
          title: 'Tree',
          components: components.map((component) => ({ data_collection_id: id, ...component })),
        },
      },
    );
    return { created, collectionId: id };
  }

  async function dataOf(dashboardId: string, filters: unknown[] = []) {
    const answer = await call<DataAnswer>(charts.server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: charts.ada.access_token,
      json: { filters },
    });
    expect(answer.status, answer.text).toBe(200);
    const encoded = JSON.parse(JSON.stringify(dashboardDataAnswerSchema.encode(answer.body as never)));
    expect(answer.body).toEqual(encoded);
    return answer.body.components;
  }

  const treeFigure = { component_id: 't', type: 'figure', chart: 'tree', tip: 'tip', color: 'habitat' };

  it('draws a Newick tree with its tips coloured by the table, counting the tips it lacks', async () => {
    const { created } = await treeDashboard(TIPS_CSV, { 'tree.nwk': TREE }, [
      treeFigure,
      { component_id: 'n', type: 'card', agg: 'count' },
      { component_id: 'h', type: 'interactive', widget: 'multiselect', column: 'habitat' },
    ]);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { t, n } = await dataOf(created.body.dashboard_id);
    expect(n).toEqual({ value: 4, unfiltered_value: 4 });
    expect(t).toMatchObject({ total_rows: 4, unmatched_tips: 1, tree_file: 'tree.nwk', sampled: false });
    const nodes = rowsOf(t as Record<string, unknown>).map((row) => [
      row.node,
      row.parent,
      row.name,
      row.length,
      row.support,
      row.tips,
      row.color,
      row.matched,
    ]);
    expect(nodes).toEqual([
      [0, null, null, null, null, 4, null, false],
      [1, 0, null, 1, 0.9, 2, null, false],
      [2, 1, 'A', 1, null, 1, 'river', true],
      [3, 1, 'B', 2, null, 1, 'soil', true],
      [4, 0, null, 2, null, 2, null, false],
      [5, 4, 'C d', 1, null, 1, 'river', true],
      [6, 4, 'E', 1, null, 1, null, false],
    ]);
    // A click on the clade of A and B narrows the others to their rows…
    const clicked = await dataOf(created.body.dashboard_id, [{ component_id: 't', value: ['A', 'B'] }]);
    expect(clicked.n).toEqual({ value: 2, unfiltered_value: 4 });
    // …and a filter elsewhere leaves the tips it excludes uncoloured.
    const soil = await dataOf(created.body.dashboard_id, [{ component_id: 'h', value: ['soil'] }]);
    expect(soil.t).toMatchObject({ total_rows: 1, unmatched_tips: 3 });
  });

  it('draws the ampliseq tree: 2,683 tips, each coloured by its dominant habitat', async () => {
    const { created } = await treeDashboard(fixture('tree_metadata.tsv'), { 'tree.nwk': fixture('tree.nwk') }, [
      { component_id: 't', type: 'figure', chart: 'tree', tip: 'taxon', color: 'dominant_habitat', layout: 'radial' },
    ]);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { t } = await dataOf(created.body.dashboard_id);
    expect(t).toMatchObject({ total_rows: 2683, unmatched_tips: 0 });
    const rows = rowsOf(t as Record<string, unknown>);
    expect(rows[0]?.tips).toBe(2683);
    const byHabitat: Record<string, number> = {};
    for (const row of rows) if (row.matched) byHabitat[String(row.color)] = (byHabitat[String(row.color)] ?? 0) + 1;
    // Counted from the metadata file by a separate script.
    expect(byHabitat).toEqual({ Rare: 969, Sediment: 663, Soil: 504, Riverwater: 275, Groundwater: 203, Mixed: 69 });
  });

  it('refuses a tree file that is not Newick when saving, and says so in the slot when it changed later', async () => {
    const bad = await treeDashboard(TIPS_CSV, { 'tree.nwk': TIPS_CSV }, [treeFigure]);
    expect(bad.created.status).toBe(400);
    expect(bad.created.body.code).toBe('validation_failed');
    expect(bad.created.body.errors?.map((error) => error.path)).toEqual(['body.components[0].tree_file']);
    expect(bad.created.body.errors?.[0]?.message).toMatch(/tree\.nwk: not a Newick tree/);
    const none = await treeDashboard(TIPS_CSV, {}, [treeFigure]);
    expect(none.created.status).toBe(400);
    expect(none.created.body.errors?.map((error) => error.path)).toEqual(['body.components[0].tree_file']);

    const { created, collectionId } = await treeDashboard(TIPS_CSV, { 'tree.nwk': TREE }, [treeFigure]);
    expect(created.status).toBe(201);
    expect(
      await uploadFile(charts.server, charts.ada.access_token, collectionId, { path: 'tree.nwk', content: '((A,B);' }),
    ).toBe(201);
    const { t } = await dataOf(created.body.dashboard_id);
    expect(t).toEqual({
      error: {
        code: 'unreadable_tree',
        message: expect.stringMatching(/^tree\.nwk: not a Newick tree: 1 clade\(s\) never closed/),
        field: 'tree_file',
      },
    });
  });
});
