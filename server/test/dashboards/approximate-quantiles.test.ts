import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, rowsOf, serverWithPeople } from './analytics-table.js';

/**
 * Beyond `SERVICE_DASHBOARD_EXACT_QUANTILE_ROWS` rows, medians, quartiles and whiskers come from
 * DuckDB's bounded `approx_quantile` and the figure says `sampled`: here the threshold is 50, so
 * the 120 penguins (analytics-table.ts) take that path; counts, means, minima and maxima stay exact.
 */
describeEachDialect('approximate quantiles beyond the threshold', (dialect) => {
  let server: TestServer;
  let ada: Session;

  beforeAll(async () => {
    const started = await serverWithPeople(dialect, { SERVICE_DASHBOARD_EXACT_QUANTILE_ROWS: '50' });
    server = started.server;
    ada = await started.session('ada@example.org');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('answers box statistics, medians of cards and figures approximately, saying so on figures', async () => {
    const penguins = await projectWithTable(server, ada.access_token, 'Penguins');
    const on = { data_collection_id: penguins.collectionId };
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: {
        project_id: penguins.projectId,
        title: 'Big enough',
        components: [
          { component_id: 'box', type: 'figure', chart: 'box', x: 'species', y: 'mass', ...on },
          { component_id: 'bar', type: 'figure', chart: 'bar', x: 'species', y: 'mass', agg: 'median', ...on },
          { component_id: 'mean', type: 'figure', chart: 'bar', x: 'species', y: 'mass', agg: 'mean', ...on },
          { component_id: 'median', type: 'card', agg: 'median', column: 'mass', ...on },
          { component_id: 'line', type: 'figure', chart: 'line', x: 'mass', max_points: 100, ...on },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${created.body.dashboard_id}/data`, {
      token: ada.access_token,
      json: {},
    });
    expect(answer.status, answer.text).toBe(200);
    const { box, bar, mean, median, line } = answer.body.components as Record<string, Record<string, unknown>>;
    expect(box).toMatchObject({ sampled: true, total_rows: 120 });
    const adelie = rowsOf(box as Record<string, unknown>)[0] as Record<string, number>;
    // Exact: 3000…3590 in steps of 10, quartiles 3147.5, 3295, 3442.5 (a t-digest lands within a step or two).
    expect(adelie).toMatchObject({ x: 'Adelie', count: 60, mean: 3295, min: 3000, max: 3590 });
    expect(Math.abs((adelie.q1 ?? 0) - 3147.5)).toBeLessThanOrEqual(20);
    expect(Math.abs((adelie.median ?? 0) - 3295)).toBeLessThanOrEqual(20);
    expect(Math.abs((adelie.q3 ?? 0) - 3442.5)).toBeLessThanOrEqual(20);
    expect(adelie.whisker_low).toBe(3000);
    expect(adelie.whisker_high).toBe(3590);
    expect(bar).toMatchObject({ sampled: true, total_rows: 120 });
    const medians = rowsOf(bar as Record<string, unknown>);
    expect(medians.map((row) => row.x)).toEqual(['Chinstrap', 'Gentoo', 'Adelie']);
    expect(Math.abs((medians[0]?.y as number) - 4095)).toBeLessThanOrEqual(20);
    // Means stay exact and say nothing of sampling.
    expect(mean).toMatchObject({ sampled: false });
    expect(rowsOf(mean as Record<string, unknown>)[0]).toEqual({ x: 'Chinstrap', y: 4095, other: false });
    expect(Math.abs((median?.value as number) - 3595)).toBeLessThanOrEqual(20);
    expect(median?.unfiltered_value).toBe(median?.value);
    // A line decides to bin from an estimate of x's distinct values (120 > 100 points).
    expect(line).toMatchObject({ sampled: true, total_rows: 120 });
    expect(rowsOf(line as Record<string, unknown>).reduce((sum, row) => sum + (row.y as number), 0)).toBe(120);
  });
});
