import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, serverWithPeople } from './analytics-table.js';

/**
 * Sections (docs/dashboards.md "Sections"): header rows laid out on the grid like any component,
 * full width; they read no data, so the data route never answers for them, and they ride along
 * with saves, duplicates and YAML. A reader's folding is the browser's (web/test/e2e-sections).
 */

interface Dashboard {
  dashboard_id: string;
  project_id: string;
  components: { component_id: string; type: string; title?: string; collapsed?: boolean }[];
  layout: { component_id: string; x: number; y: number; w: number; h: number }[];
}
interface Problem {
  code: string;
  errors?: { path: string; message: string }[];
}

describeEachDialect('dashboard sections', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let bob: Session;
  let projectId: string;
  let collectionId: string;
  let dashboardId: string;

  const components = (collection: string) => [
    { component_id: 'totals', type: 'section', title: 'Totals', description: 'How many penguins' },
    { component_id: 'count', type: 'card', data_collection_id: collection, agg: 'count' },
    { component_id: 'islands', type: 'section', title: 'Islands', collapsed: true },
    { component_id: 'by-island', type: 'figure', data_collection_id: collection, chart: 'bar', x: 'island' },
  ];
  const layout = [
    { component_id: 'totals', x: 0, y: 0, w: 12, h: 1 },
    { component_id: 'count', x: 0, y: 1, w: 4, h: 2 },
    { component_id: 'islands', x: 0, y: 3, w: 12, h: 1 },
    { component_id: 'by-island', x: 0, y: 4, w: 6, h: 6 },
  ];
  const save = (token: string, json: Record<string, unknown>) =>
    call<Dashboard & Problem>(server, 'PUT', `/dashboards/${dashboardId}`, { token, json });

  beforeAll(async () => {
    const people = await serverWithPeople(dialect);
    server = people.server;
    ada = await people.session('ada@example.org');
    bob = await people.session('bob@example.org');
    ({ projectId, collectionId } = await projectWithTable(server, ada.access_token, 'Penguins'));
    const shared = await call(server, 'PUT', `/projects/${projectId}/permissions`, {
      token: ada.access_token,
      json: { owners: ['ada@example.org'], viewers: ['bob@example.org'], is_public: false },
    });
    expect(shared.status, shared.text).toBe(200);
    const created = await call<Dashboard>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: projectId, title: 'Sectioned', components: components(collectionId), layout },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('keeps sections as the author laid them out, with their titles and folding default', async () => {
    const read = await call<Dashboard>(server, 'GET', `/dashboards/${dashboardId}`, { token: bob.access_token });
    expect(read.status, read.text).toBe(200);
    expect(read.body.components.filter((component) => component.type === 'section')).toEqual([
      { component_id: 'totals', type: 'section', title: 'Totals', description: 'How many penguins' },
      { component_id: 'islands', type: 'section', title: 'Islands', collapsed: true },
    ]);
    expect(read.body.layout).toEqual(layout);
  });

  it('answers data for what reads a collection, never for a section; a section is not a component to ask for', async () => {
    const all = await call<DataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: bob.access_token,
      json: {},
    });
    expect(all.status, all.text).toBe(200);
    expect(Object.keys(all.body.components).sort()).toEqual(['by-island', 'count']);
    expect(all.body.components.count).toMatchObject({ value: 120 });
    // A folded section's components are left out by naming the others: the reader's page does so.
    const open = await call<DataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: bob.access_token,
      json: { components: ['count'] },
    });
    expect(Object.keys(open.body.components)).toEqual(['count']);
    const exported = await call<Problem>(server, 'GET', `/export/components/${dashboardId}/islands?format=spec`, {
      token: ada.access_token,
    });
    expect(exported.status).toBe(400);
    expect(exported.body.errors?.[0]?.message).toContain('a section header does not');
  });

  it('refuses a section without a title or narrower than the grid, and keeps the saved dashboard', async () => {
    const base = { title: 'Sectioned', components: components(collectionId), layout };
    const untitled = await save(ada.access_token, {
      ...base,
      components: [...components(collectionId), { component_id: 'blank', type: 'section', title: '  ' }],
    });
    expect(untitled.status).toBe(400);
    expect(untitled.body.errors?.map((error) => error.path)).toContain('body.components[4].title');
    const narrow = await save(ada.access_token, {
      ...base,
      layout: layout.map((item) => (item.component_id === 'islands' ? { ...item, w: 6 } : item)),
    });
    expect(narrow.status).toBe(400);
    expect(narrow.body.errors?.[0]).toEqual({
      path: 'body.layout[2]',
      message: 'a section spans the whole width: x 0 and w 12',
    });
    const byViewer = await save(bob.access_token, { ...base, title: 'Renamed' });
    expect(byViewer.status).toBe(403);
    const read = await call<Dashboard>(server, 'GET', `/dashboards/${dashboardId}`, { token: ada.access_token });
    expect(read.body.layout).toEqual(layout);
  });

  it('duplicates with its sections and round-trips them through YAML', async () => {
    const copy = await call<Dashboard>(server, 'POST', `/dashboards/${dashboardId}/duplicate`, {
      token: ada.access_token,
      json: {},
    });
    expect(copy.status, copy.text).toBe(201);
    const original = await call<Dashboard>(server, 'GET', `/dashboards/${dashboardId}`, { token: ada.access_token });
    expect(copy.body.components).toEqual(original.body.components);
    expect(copy.body.layout).toEqual(original.body.layout);

    const yaml = await call(server, 'GET', `/dashboards/${dashboardId}/yaml`, { token: ada.access_token });
    expect(yaml.status, yaml.text).toBe(200);
    expect(yaml.text).toContain('type: section');
    const imported = await call<Dashboard>(server, 'POST', '/dashboards/import', {
      token: ada.access_token,
      body: yaml.text,
      headers: { 'content-type': 'application/yaml' },
    });
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.components).toEqual(original.body.components);
    expect(imported.body.layout).toEqual(original.body.layout);
    expect(imported.body.project_id).toBe(projectId);
  });
});
