import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  call,
  createProjectWithUpload,
  describeEachDialect,
  type Session,
  type TestServer,
} from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, serverWithPeople } from './analytics-table.js';

/**
 * `POST /dashboards` with `template: "overview"` (docs/dashboards.md "Overview dashboards"): from
 * the penguins table (analytics-table.ts) cards, filters, a time series, histograms, bars and a
 * table — every one of them answering the data route. Folders of many shapes:
 * cli/test/generic-dashboard.test.ts.
 */

interface Dashboard {
  dashboard_id: string;
  components: { component_id: string; type: string; chart?: string; x?: string; agg?: string }[];
  layout: { component_id: string; x: number; y: number; w: number; h: number }[];
}

describeEachDialect('overview dashboards', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let bob: Session;
  let projectId: string;

  beforeAll(async () => {
    const people = await serverWithPeople(dialect);
    server = people.server;
    ada = await people.session('ada@example.org');
    bob = await people.session('bob@example.org');
    projectId = (await projectWithTable(server, ada.access_token, 'Penguins')).projectId;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const create = (token: string, json: Record<string, unknown>) =>
    call<Dashboard>(server, 'POST', '/dashboards', {
      token,
      json: { project_id: projectId, title: 'Overview', ...json },
    });

  it('generates cards, histograms, bars and a table from the columns, all of which draw', async () => {
    const created = await create(ada.access_token, { template: 'overview' });
    expect(created.status, created.text).toBe(201);
    const described = created.body.components.map(({ type, chart, x, agg }) =>
      [type, chart, x, agg].filter((part) => part !== undefined).join(' '),
    );
    // In a section: the row count and the means of mass and flipper (numeric); filters on species
    // (3 values), island (2) and male (a boolean), and on the dates of day; rows and mean mass by
    // day; histograms of mass and flipper; bars of the categories. sample (120 values) is an id.
    expect(described).toEqual([
      'text',
      'section',
      'card count',
      'card mean',
      'card mean',
      'interactive',
      'interactive',
      'interactive',
      'interactive',
      'figure line day count',
      'figure line day mean',
      'figure histogram mass',
      'figure histogram flipper',
      'figure bar species count',
      'figure bar island count',
      'figure bar male count',
      'table',
    ]);
    expect(created.body.layout.map((item) => item.component_id)).toEqual(
      created.body.components.map((component) => component.component_id),
    );
    const data = await call<DataAnswer>(server, 'POST', `/dashboards/${created.body.dashboard_id}/data`, {
      token: ada.access_token,
      json: {},
    });
    expect(data.status, data.text).toBe(200);
    const card = created.body.components.find((component) => component.type === 'card');
    expect(data.body.components[card?.component_id ?? '']).toMatchObject({ value: 120 });
    for (const component of created.body.components.filter((c) => c.type === 'figure')) {
      expect(data.body.components[component.component_id], component.component_id).toMatchObject({
        rows: expect.any(Array),
      });
    }
    for (const component of created.body.components.filter((c) => !['text', 'section'].includes(c.type))) {
      expect(data.body.components[component.component_id], component.component_id).not.toHaveProperty('error');
    }
  });

  it('makes a card and a table for a collection without data yet, and an empty dashboard by default', async () => {
    const fresh = await createProjectWithUpload(server, ada.access_token, 'Fresh');
    const created = await call<Dashboard>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: fresh.projectId, title: 'Overview', template: 'overview' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.components.map((component) => component.type)).toEqual(['text', 'section', 'card', 'table']);
    const empty = await create(ada.access_token, {});
    expect(empty.body.components).toEqual([]);
  });

  it('refuses a template with components, unknown templates, and outsiders', async () => {
    const withComponents = await create(ada.access_token, {
      template: 'overview',
      components: [{ component_id: 'a', type: 'text', markdown: 'a' }],
    });
    expect(withComponents.status).toBe(400);
    expect(withComponents.text).toContain('body.template');
    expect((await create(ada.access_token, { template: 'fancy' })).status).toBe(400);
    expect((await create(bob.access_token, { template: 'overview' })).status).toBe(404);
  });
});
