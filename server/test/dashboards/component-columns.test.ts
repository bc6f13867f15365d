import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  call,
  describeEachDialect,
  type Session,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, serverWithPeople } from './analytics-table.js';

/**
 * The columns a figure, card or filter reads must exist in its collection's table with a type it
 * can use: refused field by field when the dashboard is saved (400), and when the table changed
 * after the save, an error in that component's slot while the others still draw.
 */

interface Problem {
  code: string;
  errors?: { path: string; message: string }[];
}

describeEachDialect('component columns', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let penguins: { projectId: string; collectionId: string };

  beforeAll(async () => {
    const started = await serverWithPeople(dialect);
    server = started.server;
    ada = await started.session('ada@example.org');
    penguins = await projectWithTable(server, ada.access_token, 'Penguins');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const on = (collection: string, component: Record<string, unknown>) => ({
    component_id: 'c',
    data_collection_id: collection,
    ...component,
  });

  it('refuses to save components whose columns are missing or of a type they cannot use, naming the field', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ type: 'card', agg: 'mean', column: 'island' }, 'column', /mean needs a numeric column; island is string/],
      [{ type: 'card', agg: 'sum', column: 'ghost' }, 'column', /no column "ghost"/],
      [{ type: 'figure', chart: 'histogram', x: 'species' }, 'x', /numeric, date or timestamp/],
      [{ type: 'figure', chart: 'histogram', x: 'day', log_x: true }, 'x', /numeric column; day is date/],
      [{ type: 'figure', chart: 'box', y: 'species' }, 'y', /numeric column; species is string/],
      [{ type: 'figure', chart: 'violin', y: 'mass', x: 'ghost' }, 'x', /no column/],
      [{ type: 'figure', chart: 'bar', x: 'species', y: 'island', agg: 'median' }, 'y', /numeric/],
      [{ type: 'figure', chart: 'scatter', x: 'mass', y: 'species' }, 'y', /numeric, date or timestamp/],
      [{ type: 'figure', chart: 'scatter', x: 'mass', y: 'flipper', size: 'island' }, 'size', /numeric/],
      [
        { type: 'figure', chart: 'heatmap', x: 'species', y: 'island', agg: 'sum', color: 'sample' },
        'color',
        /numeric/,
      ],
      [{ type: 'figure', chart: 'pie', color: 'ghost' }, 'color', /no column/],
      [{ type: 'interactive', widget: 'range', column: 'species' }, 'column', /numeric/],
      [{ type: 'interactive', widget: 'date_range', column: 'mass' }, 'column', /date or timestamp/],
      [{ type: 'interactive', widget: 'switch', column: 'island' }, 'column', /boolean/],
      [{ type: 'interactive', widget: 'select', column: 'ghost' }, 'column', /no column/],
    ];
    const text = { component_id: 'intro', type: 'text', markdown: 'Hello' };
    for (const [component, field, message] of cases) {
      const json = {
        project_id: penguins.projectId,
        title: 'Checked',
        components: [text, on(penguins.collectionId, component)],
      };
      const answer = await call(server, 'POST', '/dashboards', { token: ada.access_token, json });
      expect(answer.status, JSON.stringify(component)).toBe(400);
      const problem = answer.body as unknown as Problem;
      expect(problem.code).toBe('validation_failed');
      expect(problem.errors, answer.text).toEqual([
        { path: `body.components[1].${field}`, message: expect.stringMatching(message) },
      ]);
    }
    // The same checks on a save over an existing dashboard.
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: penguins.projectId, title: 'Checked', components: [text] },
    });
    expect(created.status).toBe(201);
    const saved = await call(server, 'PUT', `/dashboards/${created.body.dashboard_id}`, {
      token: ada.access_token,
      json: {
        title: 'Checked',
        components: [on(penguins.collectionId, { type: 'figure', chart: 'histogram', x: 'island' })],
      },
    });
    expect(saved.status).toBe(400);
    expect((saved.body as unknown as Problem).errors?.map((error) => error.path)).toEqual(['body.components[0].x']);
  });

  it('accepts components on a collection without a table yet, draws them empty, then checks them on the table', async () => {
    const workflow = await call<{ workflow_id: string }>(server, 'POST', `/projects/${penguins.projectId}/workflows`, {
      token: ada.access_token,
      json: { name: 'later' },
    });
    const collection = await call<{ data_collection_id: string }>(
      server,
      'POST',
      `/workflows/${workflow.body.workflow_id}/datacollections`,
      { token: ada.access_token, json: { tag: 'later', pattern: 'later\\.csv', format: 'csv' } },
    );
    const id = collection.body.data_collection_id;
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: {
        project_id: penguins.projectId,
        title: 'Later',
        components: [
          { component_id: 'f', type: 'figure', data_collection_id: id, chart: 'histogram', x: 'anything' },
          { component_id: 'n', type: 'card', data_collection_id: id, agg: 'count' },
          { component_id: 'm', type: 'card', data_collection_id: id, agg: 'mean', column: 'anything' },
          { component_id: 's', type: 'interactive', data_collection_id: id, widget: 'select', column: 'anything' },
          { component_id: 'r', type: 'interactive', data_collection_id: id, widget: 'range', column: 'anything' },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${created.body.dashboard_id}/data`, {
      token: ada.access_token,
      json: {},
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      version: { [id]: null },
      components: {
        f: { columns: [], rows: [], sampled: false, total_rows: 0 },
        n: { value: 0, unfiltered_value: 0 },
        m: { value: null, unfiltered_value: null },
        s: { options: [], truncated: false },
        r: { min: null, max: null },
      },
    });

    // The table arrives with `anything` as text: what needs a number answers an error in its slot.
    expect(await uploadFile(server, ada.access_token, id, { path: 'later.csv', content: 'anything\nx\ny\nx\n' })).toBe(
      201,
    );
    const upserted = await call(server, 'POST', '/deltatables/upsert', {
      token: ada.access_token,
      json: { data_collection_id: id },
    });
    expect(upserted.status, upserted.text).toBe(200);
    const later = await call<DataAnswer>(server, 'POST', `/dashboards/${created.body.dashboard_id}/data`, {
      token: ada.access_token,
      json: {},
    });
    expect(later.status, later.text).toBe(200);
    const unsuitable = (field: string, message: RegExp) => ({
      error: { code: 'unsuitable_column', message: expect.stringMatching(message), field },
    });
    expect(later.body.components).toEqual({
      f: unsuitable('x', /a histogram chart needs a numeric, date or timestamp column; anything is string/),
      n: { value: 3, unfiltered_value: 3 },
      m: unsuitable('column', /mean needs a numeric column; anything is string/),
      s: {
        options: [
          { value: 'x', count: 2 },
          { value: 'y', count: 1 },
        ],
        truncated: false,
      },
      r: unsuitable('column', /a range filter needs a numeric column/),
    });
  });

  it('answers an error in the slot of a component whose collection was deleted, and draws the others', async () => {
    const workflow = await call<{ workflow_id: string }>(server, 'POST', `/projects/${penguins.projectId}/workflows`, {
      token: ada.access_token,
      json: { name: 'temporary' },
    });
    const collection = await call<{ data_collection_id: string }>(
      server,
      'POST',
      `/workflows/${workflow.body.workflow_id}/datacollections`,
      { token: ada.access_token, json: { tag: 'soon_gone', pattern: 't\\.csv', format: 'csv' } },
    );
    const doomed = collection.body.data_collection_id;
    expect(await uploadFile(server, ada.access_token, doomed, { path: 't.csv', content: 'mass\n3000\n' })).toBe(201);
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: {
        project_id: penguins.projectId,
        title: 'Two collections',
        components: [
          { component_id: 'count', type: 'card', data_collection_id: penguins.collectionId, agg: 'count' },
          { component_id: 'doomed', type: 'card', data_collection_id: doomed, agg: 'count' },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const removed = await call(server, 'DELETE', `/datacollections/${doomed}`, { token: ada.access_token });
    expect(removed.status, removed.text).toBe(204);
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${created.body.dashboard_id}/data`, {
      token: ada.access_token,
      json: {},
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.components).toEqual({
      count: { value: 120, unfiltered_value: 120 },
      doomed: {
        error: {
          code: 'unknown_collection',
          message: expect.stringMatching(/no longer exists/),
          field: 'data_collection_id',
        },
      },
    });
  });
});
