import type { DashboardComponentInput } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { ordersProject } from './filter-fixture.js';

/*
 * Issue 23, finding 9: a bar chart split by `color` whose filters left no category answered
 * `internal_error` (a SQL `VALUES` list with nothing in it), and anonymous callers could trigger it
 * on public dashboards. Every chart kind, in each of its query shapes, answers an empty figure.
 */
const FIGURES: Omit<DashboardComponentInput & { type: 'figure' }, 'data_collection_id'>[] = [
  { component_id: 'bar', type: 'figure', chart: 'bar', x: 'customer' },
  { component_id: 'bar_color', type: 'figure', chart: 'bar', x: 'customer', color: 'paid' },
  {
    component_id: 'bar_color_mean',
    type: 'figure',
    chart: 'bar',
    x: 'customer',
    color: 'paid',
    agg: 'mean',
    y: 'amount',
  },
  { component_id: 'bar_median', type: 'figure', chart: 'bar', x: 'customer', agg: 'median', y: 'amount' },
  { component_id: 'bar_folded', type: 'figure', chart: 'bar', x: 'customer', color: 'paid', max_categories: 2 },
  { component_id: 'line_color', type: 'figure', chart: 'line', x: 'day', color: 'customer', agg: 'sum', y: 'amount' },
  { component_id: 'area', type: 'figure', chart: 'area', x: 'day' },
  { component_id: 'histogram', type: 'figure', chart: 'histogram', x: 'amount' },
  { component_id: 'histogram_color', type: 'figure', chart: 'histogram', x: 'amount', color: 'customer' },
  { component_id: 'box', type: 'figure', chart: 'box', y: 'amount' },
  { component_id: 'box_x', type: 'figure', chart: 'box', x: 'customer', y: 'amount' },
  { component_id: 'violin_x', type: 'figure', chart: 'violin', x: 'customer', y: 'amount' },
  { component_id: 'heatmap', type: 'figure', chart: 'heatmap', x: 'customer', y: 'paid' },
  {
    component_id: 'heatmap_mean',
    type: 'figure',
    chart: 'heatmap',
    x: 'customer',
    y: 'paid',
    agg: 'mean',
    color: 'amount',
  },
  { component_id: 'pie', type: 'figure', chart: 'pie', color: 'customer' },
  { component_id: 'pie_median', type: 'figure', chart: 'pie', color: 'customer', agg: 'median', y: 'amount' },
  { component_id: 'scatter', type: 'figure', chart: 'scatter', x: 'amount', y: 'amount', color: 'customer' },
];

describeEachDialect('figures whose filters leave no row', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let dashboardId: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    admin = await login(server, ADMIN.email, ADMIN.password);
    const shop = await ordersProject(server, admin.access_token);
    const orders = { data_collection_id: shop.ordersId };
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: admin.access_token,
      json: {
        project_id: shop.projectId,
        title: 'Empty',
        components: [
          { component_id: 'customer', type: 'interactive', widget: 'select', column: 'customer', ...orders },
          ...FIGURES.map((figure) => ({ ...figure, ...orders })),
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  it('answers an empty chart for every kind, not internal_error', async () => {
    const answer = await call<{ components: Record<string, { rows?: unknown[]; error?: unknown }> }>(
      server,
      'POST',
      `/dashboards/${dashboardId}/data`,
      { token: admin.access_token, json: { filters: [{ component_id: 'customer', value: ['nobody'] }] } },
    );
    expect(answer.status, answer.text).toBe(200);
    for (const { component_id } of FIGURES) {
      const figure = answer.body.components[component_id];
      expect(figure, `${component_id}: ${JSON.stringify(figure)}`).toMatchObject({ rows: [] });
    }
  });
});
