import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, serverWithPeople } from './analytics-table.js';

/**
 * Tabs (docs/dashboards.md "Tabs"): ordered, each component in one (absent = the first), saved,
 * duplicated and written to YAML; `POST /data {tab_id}` computes that tab's components alone, and
 * the filters are dashboard-wide. Numbers from analytics-table.ts's rules:
 * 60 Adelie of 120 penguins; Dream holds the even i, so 30 Adelie on Dream.
 */

interface Dashboard {
  dashboard_id: string;
  tabs: { tab_id: string; title: string; icon?: string; color?: string }[];
  components: { component_id: string; tab_id?: string }[];
  layout: { component_id: string }[];
}
interface Problem {
  code: string;
  errors?: { path: string; message: string }[];
}

describeEachDialect('dashboard tabs', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let bob: Session;
  let projectId: string;
  let collectionId: string;
  let dashboardId: string;

  const tabs = [
    { tab_id: 'overview', title: 'Overview', icon: 'home', color: '#1f77b4' },
    { tab_id: 'details', title: 'Details' },
  ];
  const components = (collection: string) => [
    { component_id: 'intro', type: 'text', markdown: '# Penguins' },
    {
      component_id: 'species',
      type: 'interactive',
      data_collection_id: collection,
      widget: 'select',
      column: 'species',
    },
    { component_id: 'count', type: 'card', data_collection_id: collection, agg: 'count' },
    {
      component_id: 'island',
      type: 'interactive',
      tab_id: 'details',
      data_collection_id: collection,
      widget: 'multiselect',
      column: 'island',
    },
    { component_id: 'details-count', type: 'card', tab_id: 'details', data_collection_id: collection, agg: 'count' },
    {
      component_id: 'by-island',
      type: 'figure',
      tab_id: 'details',
      data_collection_id: collection,
      chart: 'bar',
      x: 'island',
    },
  ];
  // The same cells on both tabs: a grid per tab.
  const layout = [
    { component_id: 'count', x: 0, y: 0, w: 4, h: 2 },
    { component_id: 'details-count', x: 0, y: 0, w: 4, h: 2 },
  ];
  const data = (token: string, json: Record<string, unknown>) =>
    call<DataAnswer & Problem>(server, 'POST', `/dashboards/${dashboardId}/data`, { token, json });

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
      json: { project_id: projectId, title: 'Tabbed', tabs, components: components(collectionId), layout },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('keeps the tabs in order and each component in its tab', async () => {
    const read = await call<Dashboard>(server, 'GET', `/dashboards/${dashboardId}`, { token: bob.access_token });
    expect(read.status, read.text).toBe(200);
    expect(read.body.tabs).toEqual(tabs);
    expect(read.body.components.map((component) => component.tab_id ?? null)).toEqual([
      null,
      null,
      null,
      'details',
      'details',
      'details',
    ]);
  });

  it("computes one tab's components alone; filters apply on every tab", async () => {
    const overview = await data(bob.access_token, { tab_id: 'overview' });
    expect(overview.status, overview.text).toBe(200);
    // `island` lives on the details tab: its options are computed when that tab opens.
    expect(Object.keys(overview.body.components).sort()).toEqual(['count', 'species']);
    expect(overview.body.components.count).toMatchObject({ value: 120 });

    // A filter set on the overview's widget narrows the details tab's card…
    const details = await data(bob.access_token, {
      tab_id: 'details',
      filters: [{ component_id: 'species', value: ['Adelie'] }],
    });
    expect(details.status, details.text).toBe(200);
    expect(Object.keys(details.body.components).sort()).toEqual(['by-island', 'details-count', 'island']);
    expect(details.body.components['details-count']).toMatchObject({ value: 60 });
    // …and one set on the details tab's widget narrows the overview's.
    const both = await data(bob.access_token, {
      tab_id: 'overview',
      filters: [
        { component_id: 'species', value: ['Adelie'] },
        { component_id: 'island', value: ['Dream'] },
      ],
    });
    expect(both.body.components.count).toMatchObject({ value: 30 });

    const all = await data(bob.access_token, {});
    expect(Object.keys(all.body.components).sort()).toEqual([
      'by-island',
      'count',
      'details-count',
      'island',
      'species',
    ]);
    // Named components narrow further inside the tab.
    const named = await data(bob.access_token, { tab_id: 'details', components: ['details-count'] });
    expect(Object.keys(named.body.components)).toEqual(['details-count']);
  });

  it("a dashboard-wide embed token opens every tab's components, under its fixed filters", async () => {
    const created = await call<{ token: string }>(server, 'POST', `/dashboards/${dashboardId}/embed_tokens`, {
      token: ada.access_token,
      json: { filters: [{ component_id: 'species', value: ['Adelie'] }] },
    });
    expect(created.status, created.text).toBe(201);
    for (const component of ['count', 'details-count']) {
      const spec = await call<{ spec: { value: number } }>(
        server,
        'GET',
        `/export/components/${dashboardId}/${component}?format=spec&token=${created.body.token}`,
      );
      expect(spec.status, spec.text).toBe(200);
      expect(spec.body.spec.value).toBe(60);
    }
  });

  it('refuses a tab the dashboard lacks, naming the field', async () => {
    const unknown = await data(bob.access_token, { tab_id: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('validation_failed');
    expect(unknown.body.errors?.[0]?.path).toBe('body.tab_id');
    expect(unknown.body.errors?.[0]?.message).toContain('tabs: overview, details');
    const malformed = await data(bob.access_token, { tab_id: 'no spaces' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors?.[0]?.path).toBe('body.tab_id');
  });

  it('refuses duplicate tab ids, unknown tabs on components and overlaps within one tab', async () => {
    const save = (json: Record<string, unknown>) =>
      call<Problem>(server, 'PUT', `/dashboards/${dashboardId}`, { token: ada.access_token, json });
    const base = { title: 'Tabbed', tabs, components: components(collectionId), layout };
    const duplicate = await save({ ...base, tabs: [...tabs, { tab_id: 'details', title: 'Again' }] });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.errors?.map((error) => error.path)).toContain('body.tabs[2].tab_id');
    const stray = await save({
      ...base,
      components: [...components(collectionId), { component_id: 'x', type: 'text', markdown: '', tab_id: 'gone' }],
    });
    expect(stray.status).toBe(400);
    expect(stray.body.errors?.map((error) => error.path)).toContain('body.components[6].tab_id');
    const noTabs = await save({ ...base, tabs: [] });
    expect(noTabs.status).toBe(400);
    expect(noTabs.body.errors?.[0]?.message).toContain('the dashboard has no tabs');
    const overlap = await save({
      ...base,
      layout: [...layout, { component_id: 'intro', x: 2, y: 1, w: 4, h: 2 }],
    });
    expect(overlap.status).toBe(400);
    expect(overlap.body.errors?.[0]?.message).toContain("'intro' overlaps 'count'");
    const badColor = await save({ ...base, tabs: [{ tab_id: 'overview', title: 'O', color: 'red' }, tabs[1]] });
    expect(badColor.status).toBe(400);
    expect(badColor.body.errors?.map((error) => error.path)).toContain('body.tabs[0].color');
    // Icons come from a fixed set (TAB_ICONS), and the refusal lists it.
    const badIcon = await save({ ...base, tabs: [{ ...tabs[0], icon: 'rocket-ship' }, tabs[1]] });
    expect(badIcon.status).toBe(400);
    const iconError = badIcon.body.errors?.find((error) => error.path === 'body.tabs[0].icon');
    expect(iconError?.message).toContain('chart-bar');
    // Nothing of the refused saves stuck; a viewer may not save tabs at all.
    const forbidden = await call<Problem>(server, 'PUT', `/dashboards/${dashboardId}`, {
      token: bob.access_token,
      json: { ...base, title: 'Renamed' },
    });
    expect(forbidden.status).toBe(403);
    const read = await call<Dashboard>(server, 'GET', `/dashboards/${dashboardId}`, { token: ada.access_token });
    expect(read.body.tabs).toEqual(tabs);
  });

  it('saves a reorder and a move, duplicates with tabs and round-trips them through YAML', async () => {
    const moved = components(collectionId).map((component) =>
      component.component_id === 'count' ? { ...component, tab_id: 'details' } : component,
    );
    const saved = await call<Dashboard>(server, 'PUT', `/dashboards/${dashboardId}`, {
      token: ada.access_token,
      json: { title: 'Tabbed', tabs: [tabs[1], tabs[0]], components: moved, layout: [] },
    });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.tabs.map((tab) => tab.tab_id)).toEqual(['details', 'overview']);
    // Components without a tab now live in the first tab, `details`.
    const first = await data(ada.access_token, { tab_id: 'details' });
    expect(Object.keys(first.body.components).sort()).toEqual([
      'by-island',
      'count',
      'details-count',
      'island',
      'species',
    ]);

    const copy = await call<Dashboard>(server, 'POST', `/dashboards/${dashboardId}/duplicate`, {
      token: ada.access_token,
      json: {},
    });
    expect(copy.status, copy.text).toBe(201);
    expect(copy.body.tabs).toEqual(saved.body.tabs);
    expect(copy.body.components).toEqual(saved.body.components);

    const yaml = await call(server, 'GET', `/dashboards/${dashboardId}/yaml`, { token: ada.access_token });
    expect(yaml.text).toContain('tabs:\n  - tab_id: details');
    const imported = await call<Dashboard>(server, 'POST', '/dashboards/import', {
      token: ada.access_token,
      body: yaml.text,
      headers: { 'content-type': 'application/yaml' },
    });
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.tabs).toEqual(saved.body.tabs);
    expect(imported.body.components.map((component) => component.tab_id ?? null)).toEqual(
      saved.body.components.map((component) => component.tab_id ?? null),
    );

    // A dashboard of one implicit tab writes no `tabs` into its file.
    const plain = await call<Dashboard>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: projectId, title: 'Plain' },
    });
    const plainYaml = await call(server, 'GET', `/dashboards/${plain.body.dashboard_id}/yaml`, {
      token: ada.access_token,
    });
    expect(plainYaml.text).not.toContain('tabs');
    expect(plain.body.tabs).toEqual([]);
  });

  it('reads a tab saved with an icon the set lacks without it', async () => {
    // Saved when any name was accepted: written behind the API's back.
    const stored = [
      { tab_id: 'overview', title: 'Overview', icon: 'rocket-ship' },
      { ...tabs[1], icon: 'dna' },
    ];
    const created = await call<Dashboard>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: projectId, title: 'Old icons', tabs },
    });
    expect(created.status, created.text).toBe(201);
    await server.context.database.db
      .updateTable('dashboards')
      .set({ tabs: JSON.stringify(stored) })
      .where('id', '=', created.body.dashboard_id)
      .execute();
    const read = await call<Dashboard>(server, 'GET', `/dashboards/${created.body.dashboard_id}`, {
      token: ada.access_token,
    });
    expect(read.status, read.text).toBe(200);
    expect(read.body.tabs).toEqual([
      { tab_id: 'overview', title: 'Overview' },
      { ...tabs[1], icon: 'dna' },
    ]);
  });
});
