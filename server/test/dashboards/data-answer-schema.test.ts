import { dashboardDataAnswerSchema, dashboardDataLineSchema } from '@service/common';
import { API_PREFIX } from '@service/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type TestServer } from '../../../test/support/test-server.js';
import { projectWithTable, serverWithPeople } from './analytics-table.js';

/**
 * The data route writes its answer as the data service makes it, without the response schema's
 * check (which held the event loop for seconds on a large answer). So every kind of component's
 * answer must already be exactly what the schema encodes: nothing missing, nothing extra.
 */
describe('data answers as written follow their schema', () => {
  let server: TestServer;
  let token: string;
  let dashboardId: string;

  beforeAll(async () => {
    const people = await serverWithPeople('sqlite');
    server = people.server;
    token = (await people.session('owner@example.org')).access_token;
    const { projectId, collectionId } = await projectWithTable(server, token, 'Penguins');
    const figure = (id: string, chart: Record<string, unknown>) => ({
      component_id: id,
      type: 'figure',
      data_collection_id: collectionId,
      ...chart,
    });
    const widget = (widget: string, column: string) => ({
      component_id: `w_${widget}`,
      type: 'interactive',
      widget,
      data_collection_id: collectionId,
      column,
    });
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: projectId,
        title: 'Every kind',
        components: [
          figure('bar', { chart: 'bar', x: 'species', color: 'island', agg: 'mean', y: 'mass' }),
          figure('histogram', { chart: 'histogram', x: 'mass', color: 'species' }),
          figure('box', { chart: 'box', x: 'species', y: 'mass' }),
          figure('violin', { chart: 'violin', x: 'species', y: 'mass' }),
          figure('heatmap', { chart: 'heatmap', x: 'mass', y: 'species' }),
          figure('pie', { chart: 'pie', color: 'species' }),
          figure('scatter', { chart: 'scatter', x: 'mass', y: 'flipper', color: 'species', size: 'mass' }),
          figure('line', { chart: 'line', x: 'day', y: 'mass', agg: 'mean', color: 'island' }),
          figure('area', { chart: 'area', x: 'day' }),
          // No column of the penguins is a p value in [0, 1]: the answers' own fields, without points.
          figure('volcano', { chart: 'volcano', x: 'mass', y: 'flipper', label: 'sample' }),
          figure('ma', { chart: 'ma', x: 'mass', y: 'flipper', p: 'flipper' }),
          figure('manhattan', { chart: 'manhattan', chromosome: 'island', position: 'mass', y: 'flipper' }),
          figure('qq', { chart: 'qq', y: 'flipper' }),
          figure('sunburst', { chart: 'sunburst', levels: ['species', 'island'], value: 'mass' }),
          figure('treemap', { chart: 'treemap', levels: ['island', 'species'], max_categories: 2 }),
          figure('sankey', { chart: 'sankey', levels: ['species', 'island'] }),
          figure('upset', { chart: 'upset', sets: ['male', 'mass'] }),
          figure('clustered_heatmap', {
            chart: 'clustered_heatmap',
            row: 'species',
            matrix_columns: ['mass', 'flipper'],
            annotations: ['island'],
          }),
          figure('embedding', { chart: 'embedding', pca_columns: ['mass', 'flipper'], color: 'species' }),
          figure('rarefaction', { chart: 'rarefaction', x: 'flipper', y: 'mass', color: 'island' }),
          figure('oncoplot', { chart: 'oncoplot', x: 'sample', y: 'species', color: 'island' }),
          figure('lollipop', { chart: 'lollipop', x: 'species', y: 'mass', error: 'flipper' }),
          figure('diverging_bar', { chart: 'diverging_bar', x: 'island', y: 'flipper' }),
          figure('dot', { chart: 'dot', y: 'species', x: 'island', size: 'mass', color: 'flipper' }),
          figure('stacked_bar', { chart: 'stacked_bar', x: 'island', color: 'species', y: 'mass' }),
          figure('strip', { chart: 'strip', x: 'mass', y: 'species' }),
          figure('ecdf', { chart: 'ecdf', x: 'mass', color: 'species' }),
          figure('density_contour', { chart: 'density_contour', x: 'mass', y: 'flipper' }),
          figure('funnel', { chart: 'funnel', x: 'species' }),
          { component_id: 'card', type: 'card', data_collection_id: collectionId, agg: 'median', column: 'mass' },
          { component_id: 'table', type: 'table', data_collection_id: collectionId, page_size: 5 },
          widget('select', 'species'),
          widget('multiselect', 'island'),
          widget('range', 'mass'),
          widget('date_range', 'day'),
          widget('switch', 'male'),
          widget('search', 'sample'),
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('as JSON, filtered, and with a component that cannot be drawn', async () => {
    const bodies = [
      {},
      { filters: [{ component_id: 'w_select', value: ['Gentoo'] }] },
      // A column that does not exist: an error in its slot.
      { preview: [{ component_id: 'bar', type: 'figure', chart: 'bar', x: 'nope', data_collection_id: 'x' }] },
    ];
    const answers = [];
    for (const body of bodies) {
      const answer = await call<{ components: Record<string, unknown> }>(
        server,
        'POST',
        `/dashboards/${dashboardId}/data`,
        {
          token,
          json: body,
        },
      );
      expect(answer.status, answer.text).toBe(200);
      expect(answer.headers.get('content-type')).toContain('application/json');
      const encoded = JSON.parse(JSON.stringify(dashboardDataAnswerSchema.encode(answer.body as never)));
      expect(answer.body).toEqual(encoded);
      answers.push(answer.body);
    }
    expect(Object.keys(answers[0]?.components ?? {})).toHaveLength(37);
    expect(answers[2]?.components.bar).toMatchObject({ error: { code: expect.any(String) } });
  });

  it('as lines', async () => {
    const response = await fetch(`${server.url}${API_PREFIX}/dashboards/${dashboardId}/data`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: '{}',
    });
    const lines = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toHaveLength(38);
    for (const line of lines) {
      expect(line).toEqual(JSON.parse(JSON.stringify(dashboardDataLineSchema.encode(line as never))));
    }
  });
});
