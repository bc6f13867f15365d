import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  call,
  describeEachDialect,
  type Session,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, rowsOf, serverWithPeople, upsert } from './analytics-table.js';

/**
 * Every chart's data from `POST /dashboards/{id}/data` on the known penguins table
 * (analytics-table.ts) and a small table of weights with outliers: exact counts, means, bin
 * edges, quartiles, whiskers, top-N with "other", and a sampled scatter.
 */

/** Weights with an outlier in A, and a group C whose only value is missing. */
const WEIGHTS = 'g,v\nA,1\nA,2\nA,3\nA,4\nA,5\nA,6\nA,7\nA,8\nA,9\nA,100\nB,10\nB,20\nB,30\nC,\n';

describeEachDialect('figure data', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let penguins: string;
  let weights: string;
  let projectId: string;

  beforeAll(async () => {
    const started = await serverWithPeople(dialect);
    server = started.server;
    ada = await started.session('ada@example.org');
    const project = await projectWithTable(server, ada.access_token, 'Penguins');
    projectId = project.projectId;
    penguins = project.collectionId;
    const collection = await call<{ data_collection_id: string }>(
      server,
      'POST',
      `/workflows/${project.workflowId}/datacollections`,
      { token: ada.access_token, json: { tag: 'w', pattern: 'w\\.csv', format: 'csv' } },
    );
    weights = collection.body.data_collection_id;
    expect(await uploadFile(server, ada.access_token, weights, { path: 'w.csv', content: WEIGHTS })).toBe(201);
    await upsert(server, ada.access_token, weights);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  /** The data of figures (on penguins unless they name another collection), by component id. */
  const figures = async (specs: Record<string, Record<string, unknown>>) => {
    const components = Object.entries(specs).map(([component_id, spec]) => ({
      component_id,
      type: 'figure',
      data_collection_id: penguins,
      ...spec,
    }));
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: projectId, title: 'Figures', components },
    });
    expect(created.status, created.text).toBe(201);
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${created.body.dashboard_id}/data`, {
      token: ada.access_token,
      json: {},
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.components;
  };

  it('draws every point of a scatter within its budget, and a repeatable uniform sample beyond it', async () => {
    const data = await figures({
      all: { chart: 'scatter', x: 'mass', y: 'flipper', color: 'species', size: 'flipper' },
      sampled: { chart: 'scatter', x: 'mass', y: 'flipper', max_points: 100 },
    });
    const all = data.all as Record<string, unknown>;
    expect(all.columns).toEqual([
      { name: 'x', type: 'long', column: 'mass' },
      { name: 'y', type: 'double', column: 'flipper' },
      { name: 'color', type: 'string', column: 'species' },
      { name: 'size', type: 'double', column: 'flipper' },
    ]);
    expect(all).toMatchObject({ sampled: false, total_rows: 120 });
    expect((all.rows as unknown[]).length).toBe(120);
    expect((all.rows as unknown[])[0]).toEqual([3000, 0.5, 'Adelie', 0.5]);
    expect((all.rows as unknown[])[119]).toEqual([4190, 9.5, 'Chinstrap', 9.5]);

    const sampled = data.sampled as Record<string, unknown>;
    expect(sampled).toMatchObject({ sampled: true, total_rows: 120 });
    const points = sampled.rows as [number, number][];
    expect(points.length).toBe(100);
    expect(new Set(points.map(([x]) => x)).size).toBe(100);
    // Each point is a row of the table (flipper follows from mass), in order of x.
    for (const [x, y] of points) expect(y).toBe((((x - 3000) / 10) % 10) + 0.5);
    expect(points.map(([x]) => x)).toEqual([...points.map(([x]) => x)].sort((a, b) => a - b));
    const again = await figures({ sampled: { chart: 'scatter', x: 'mass', y: 'flipper', max_points: 100 } });
    expect((again.sampled as Record<string, unknown>).rows).toEqual(points);
  });

  it('aggregates a line or area per x (and color) in order of x, binning x beyond the point budget', async () => {
    const data = await figures({
      mean: { chart: 'line', x: 'day', y: 'mass', agg: 'mean' },
      counted: { chart: 'area', x: 'day', color: 'island' },
      binned: { chart: 'line', x: 'mass', max_points: 100 },
    });
    const mean = rowsOf(data.mean as Record<string, unknown>);
    expect(mean.length).toBe(30);
    // Day d holds i = d, d+30, d+60, d+90: mean mass 3000 + 10·d + 450.
    expect(mean[0]).toEqual({ x: '2024-01-01', y: 3450 });
    expect(mean[29]).toEqual({ x: '2024-01-30', y: 3740 });
    expect(data.mean).toMatchObject({ sampled: false, total_rows: 120 });
    const counted = rowsOf(data.counted as Record<string, unknown>);
    expect(counted.slice(0, 2)).toEqual([
      { x: '2024-01-01', color: 'Dream', y: 4 },
      { x: '2024-01-02', color: 'Biscoe', y: 4 },
    ]);
    const binned = data.binned as Record<string, unknown>;
    expect(binned).toMatchObject({ sampled: true, total_rows: 120 });
    const bins = rowsOf(binned);
    expect(bins.length).toBeLessThanOrEqual(100);
    // 100 bins of 11.9 g: the first holds 3000 and 3010.
    expect(bins[0]).toEqual({ x: 3000, y: 2 });
    expect(bins.reduce((sum, row) => sum + (row.y as number), 0)).toBe(120);
  });

  it('keeps the top categories of a bar or pie and folds the rest into "other", re-aggregated from its rows', async () => {
    const data = await figures({
      counted: { chart: 'bar', x: 'species', max_categories: 2 },
      mean: { chart: 'bar', x: 'species', y: 'mass', agg: 'mean', max_categories: 2 },
      distinct: { chart: 'bar', x: 'day', y: 'island', agg: 'count_distinct', max_categories: 2 },
      stacked: { chart: 'bar', x: 'species', color: 'island', max_categories: 2 },
      pie: { chart: 'pie', color: 'species', max_categories: 2 },
      all: { chart: 'bar', x: 'species', y: 'mass', agg: 'max' },
    });
    expect(rowsOf(data.counted as Record<string, unknown>)).toEqual([
      { x: 'Adelie', y: 60, other: false },
      { x: 'Gentoo', y: 40, other: false },
      { x: null, y: 20, other: true },
    ]);
    expect(data.counted).toMatchObject({ sampled: false, total_rows: 120 });
    expect(rowsOf(data.mean as Record<string, unknown>)).toEqual([
      { x: 'Chinstrap', y: 4095, other: false },
      { x: 'Gentoo', y: 3795, other: false },
      { x: null, y: 3295, other: true },
    ]);
    // Every day has one island, but the 28 folded days have both: a sum of the parts would say 28.
    expect(rowsOf(data.distinct as Record<string, unknown>)).toEqual([
      { x: '2024-01-01', y: 1, other: false },
      { x: '2024-01-02', y: 1, other: false },
      { x: null, y: 2, other: true },
    ]);
    expect(rowsOf(data.stacked as Record<string, unknown>)).toEqual([
      { x: 'Adelie', color: 'Biscoe', y: 30, other: false },
      { x: 'Adelie', color: 'Dream', y: 30, other: false },
      { x: 'Gentoo', color: 'Biscoe', y: 20, other: false },
      { x: 'Gentoo', color: 'Dream', y: 20, other: false },
      { x: null, color: 'Biscoe', y: 10, other: true },
      { x: null, color: 'Dream', y: 10, other: true },
    ]);
    expect(rowsOf(data.pie as Record<string, unknown>)).toEqual([
      { color: 'Adelie', y: 60, other: false },
      { color: 'Gentoo', y: 40, other: false },
      { color: null, y: 20, other: true },
    ]);
    expect((data.pie as Record<string, unknown>).columns).toEqual([
      { name: 'color', type: 'string', column: 'species' },
      { name: 'y', type: 'long', column: null },
      { name: 'other', type: 'boolean', column: null },
    ]);
    expect(rowsOf(data.all as Record<string, unknown>)).toEqual([
      { x: 'Chinstrap', y: 4190, other: false },
      { x: 'Gentoo', y: 3990, other: false },
      { x: 'Adelie', y: 3590, other: false },
    ]);
  });

  it('counts a histogram in equal-width bins between min and max, numbers, dates, log scale and colors', async () => {
    const data = await figures({
      mass: { chart: 'histogram', x: 'mass', bins: 7 },
      days: { chart: 'histogram', x: 'day', bins: 3 },
      log: { chart: 'histogram', x: 'mass', bins: 2, log_x: true },
      colored: { chart: 'histogram', x: 'mass', bins: 2, color: 'island' },
    });
    const edges = [3000, 3170, 3340, 3510, 3680, 3850, 4020, 4190];
    expect(rowsOf(data.mass as Record<string, unknown>)).toEqual(
      [17, 17, 17, 17, 17, 17, 18].map((count, index) => ({
        x_low: edges[index],
        x_high: edges[index + 1],
        count,
      })),
    );
    expect(data.mass).toMatchObject({ sampled: false, total_rows: 120 });
    // 29 days in 3 bins of 9 days 16 hours.
    expect(rowsOf(data.days as Record<string, unknown>)).toEqual([
      { x_low: '2024-01-01T00:00:00.000Z', x_high: '2024-01-10T16:00:00.000Z', count: 40 },
      { x_low: '2024-01-10T16:00:00.000Z', x_high: '2024-01-20T08:00:00.000Z', count: 40 },
      { x_low: '2024-01-20T08:00:00.000Z', x_high: '2024-01-30T00:00:00.000Z', count: 40 },
    ]);
    // Log bins meet at the geometric mean √(3000 · 4190) ≈ 3545.42: masses up to 3540 below it.
    const log = rowsOf(data.log as Record<string, unknown>);
    expect(log.map((row) => row.count)).toEqual([55, 65]);
    expect(log[0]?.x_low as number).toBeCloseTo(3000, 6);
    expect(log[0]?.x_high as number).toBeCloseTo(Math.sqrt(3000 * 4190), 6);
    expect(log[1]?.x_high as number).toBeCloseTo(4190, 6);
    expect(rowsOf(data.colored as Record<string, unknown>)).toEqual([
      { x_low: 3000, x_high: 3595, color: 'Biscoe', count: 30 },
      { x_low: 3595, x_high: 4190, color: 'Biscoe', count: 30 },
      { x_low: 3000, x_high: 3595, color: 'Dream', count: 30 },
      { x_low: 3595, x_high: 4190, color: 'Dream', count: 30 },
    ]);
  });

  it('summarizes boxes with interpolated quartiles and Tukey whiskers, and violins in shared bins', async () => {
    const data = await figures({
      box: { chart: 'box', x: 'g', y: 'v', data_collection_id: weights },
      whole: { chart: 'box', y: 'v', data_collection_id: weights },
      violin: { chart: 'violin', x: 'g', y: 'v', bins: 2, data_collection_id: weights },
    });
    const box = data.box as Record<string, unknown>;
    expect(box.columns).toEqual([
      { name: 'x', type: 'string', column: 'g' },
      { name: 'count', type: 'long', column: null },
      ...['mean', 'min', 'q1', 'median', 'q3', 'max', 'whisker_low', 'whisker_high'].map((name) => ({
        name,
        type: 'double',
        column: 'v',
      })),
    ]);
    expect(rowsOf(box)).toEqual([
      // 100 lies beyond q3 + 1.5·IQR = 7.75 + 6.75: the upper whisker stops at 9.
      {
        x: 'A',
        count: 10,
        mean: 14.5,
        min: 1,
        q1: 3.25,
        median: 5.5,
        q3: 7.75,
        max: 100,
        whisker_low: 1,
        whisker_high: 9,
      },
      { x: 'B', count: 3, mean: 20, min: 10, q1: 15, median: 20, q3: 25, max: 30, whisker_low: 10, whisker_high: 30 },
    ]);
    expect(box).toMatchObject({ sampled: false, total_rows: 14 });
    const whole = rowsOf(data.whole as Record<string, unknown>);
    expect(whole).toEqual([
      {
        count: 13,
        mean: 205 / 13,
        min: 1,
        q1: 4,
        median: 7,
        q3: 10,
        max: 100,
        whisker_low: 1,
        whisker_high: 10,
      },
    ]);
    expect(rowsOf(data.violin as Record<string, unknown>)).toEqual([
      { x: 'A', y_low: 1, y_high: 50.5, count: 9 },
      { x: 'A', y_low: 50.5, y_high: 100, count: 1 },
      { x: 'B', y_low: 1, y_high: 50.5, count: 3 },
      { x: 'B', y_low: 50.5, y_high: 100, count: 0 },
    ]);
  });

  it('groups boxes by any simple column: dates, booleans, integers', async () => {
    const data = await figures({
      byDay: { chart: 'box', x: 'day', y: 'mass', max_categories: 2 },
      byMale: { chart: 'box', x: 'male', y: 'mass' },
      byMass: { chart: 'box', x: 'mass', y: 'flipper', max_categories: 2 },
      // Past 50 groups the whiskers are found by a join rather than a CASE per row.
      manyMasses: { chart: 'box', x: 'mass', y: 'flipper', max_categories: 60 },
    });
    // Every day holds 4 rows; 2024-01-01 holds i = 0, 30, 60, 90, the next day i + 1.
    expect(rowsOf(data.byDay as Record<string, unknown>)).toEqual([
      {
        x: '2024-01-01',
        count: 4,
        mean: 3450,
        min: 3000,
        q1: 3225,
        median: 3450,
        q3: 3675,
        max: 3900,
        whisker_low: 3000,
        whisker_high: 3900,
      },
      {
        x: '2024-01-02',
        count: 4,
        mean: 3460,
        min: 3010,
        q1: 3235,
        median: 3460,
        q3: 3685,
        max: 3910,
        whisker_low: 3010,
        whisker_high: 3910,
      },
    ]);
    expect(
      rowsOf(data.byMale as Record<string, unknown>).map(({ x, count, mean, whisker_low, whisker_high }) => ({
        x,
        count,
        mean,
        whisker_low,
        whisker_high,
      })),
    ).toEqual([
      { x: false, count: 90, mean: 3600, whisker_low: 3010, whisker_high: 4190 },
      { x: true, count: 30, mean: 3580, whisker_low: 3000, whisker_high: 4160 },
    ]);
    expect(
      rowsOf(data.byMass as Record<string, unknown>).map((row) => [row.x, row.whisker_low, row.whisker_high]),
    ).toEqual([
      [3000, 0.5, 0.5],
      [3010, 1.5, 1.5],
    ]);
    const many = rowsOf(data.manyMasses as Record<string, unknown>);
    expect(many.length).toBe(60);
    expect(many.map((row) => [row.x, row.whisker_low, row.whisker_high])).toEqual(
      Array.from({ length: 60 }, (_, i) => [3000 + 10 * i, (i % 10) + 0.5, (i % 10) + 0.5]),
    );
  });

  it('crosses x and y in a heatmap: text axes top-N, numeric axes binned, cells counted or aggregated', async () => {
    const data = await figures({
      counted: { chart: 'heatmap', x: 'species', y: 'island' },
      top: { chart: 'heatmap', x: 'species', y: 'island', max_categories: 2 },
      binned: { chart: 'heatmap', x: 'mass', y: 'island', bins: 2, agg: 'mean', color: 'flipper' },
    });
    expect(rowsOf(data.counted as Record<string, unknown>)).toEqual([
      { x: 'Adelie', y: 'Biscoe', value: 30 },
      { x: 'Adelie', y: 'Dream', value: 30 },
      { x: 'Chinstrap', y: 'Biscoe', value: 10 },
      { x: 'Chinstrap', y: 'Dream', value: 10 },
      { x: 'Gentoo', y: 'Biscoe', value: 20 },
      { x: 'Gentoo', y: 'Dream', value: 20 },
    ]);
    expect(rowsOf(data.top as Record<string, unknown>).map((row) => row.x)).toEqual([
      'Adelie',
      'Adelie',
      'Gentoo',
      'Gentoo',
    ]);
    expect(data.top).toMatchObject({ total_rows: 120 });
    // Odd i (Biscoe) have flippers 1.5, 3.5, …, 9.5 equally often: mean 5.5; even ones 4.5.
    expect(rowsOf(data.binned as Record<string, unknown>)).toEqual([
      { x: 3000, y: 'Biscoe', value: 5.5 },
      { x: 3000, y: 'Dream', value: 4.5 },
      { x: 3595, y: 'Biscoe', value: 5.5 },
      { x: 3595, y: 'Dream', value: 4.5 },
    ]);
  });
});
