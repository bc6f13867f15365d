import type { DashboardFilter } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, rowsOf, serverWithPeople } from './analytics-table.js';

/**
 * A box plot over more rows under the filters than `SERVICE_DASHBOARD_EXACT_BOX_VALUES` takes its
 * quartiles from a sample of each box's values and says `sampled`; at or below it, they are exact.
 * Here the threshold is 50: the 120 penguins (analytics-table.ts) are over it, Gentoo's 40 under.
 * A box's sample (16,384 values) holds all of a small group's values, so its quartiles are values
 * of the group next to the exact ones.
 */
describeEachDialect('box plots sampled beyond the rows under the filters', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let dashboardId: string;

  beforeAll(async () => {
    const started = await serverWithPeople(dialect, { SERVICE_DASHBOARD_EXACT_BOX_VALUES: '50' });
    server = started.server;
    ada = await started.session('ada@example.org');
    const penguins = await projectWithTable(server, ada.access_token, 'Penguins');
    const on = { data_collection_id: penguins.collectionId };
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: {
        project_id: penguins.projectId,
        title: 'Boxes',
        components: [
          { component_id: 'box', type: 'figure', chart: 'box', x: 'species', y: 'mass', ...on },
          { component_id: 'count', type: 'card', agg: 'count', ...on },
          { component_id: 'species', type: 'interactive', widget: 'multiselect', column: 'species', ...on },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const box = async (filters: DashboardFilter[], components?: string[]) => {
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: ada.access_token,
      json: { filters, ...(components === undefined ? {} : { components }) },
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.components.box as Record<string, unknown>;
  };

  it('says sampled over more rows than the threshold, exact at or below it', async () => {
    const all = await box([]);
    expect(all).toMatchObject({ sampled: true, total_rows: 120 });
    // Gentoo: i = 60…99, mass 3600…3990 in steps of 10.
    const gentoo = { x: 'Gentoo', count: 40, min: 3600, q1: 3697.5, median: 3795, q3: 3892.5, max: 3990 };
    const sampled = rowsOf(all).find((row) => row.x === 'Gentoo') as Record<string, number>;
    // Exact but for the quartiles: values of the sample (not interpolated), within a step of 10.
    expect(sampled).toMatchObject({ count: 40, min: 3600, max: 3990, mean: 3795 });
    for (const quartile of ['q1', 'median', 'q3'] as const) {
      expect(Math.abs((sampled[quartile] ?? 0) - gentoo[quartile])).toBeLessThanOrEqual(10);
    }
    for (const components of [undefined, ['box']]) {
      // With the card (a shared count) or alone (its own count): 40 rows under the filter.
      const filtered = await box([{ component_id: 'species', value: ['Gentoo'] }], components);
      expect(filtered).toMatchObject({ sampled: false, total_rows: 40 });
      expect(rowsOf(filtered)).toEqual([
        expect.objectContaining({ ...gentoo, whisker_low: 3600, whisker_high: 3990, mean: 3795 }),
      ]);
    }
  });
});
