import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CardData, CHART_TYPES, type Dashboard, INTERACTIVE_WIDGETS } from '@service/common';
import { expect, it } from 'vitest';
import { ADMIN, call, createUser, login, startTestServer, type TestServer } from '../../../test/support/test-server.js';
import { exampleDashboards, seedExampleData } from '../../src/examples/seed.js';

it('loads the example project once, public, with its tables built', async () => {
  const server = await startTestServer('sqlite');
  try {
    expect(await seedExampleData(server.context)).toBe('created');
    expect(await seedExampleData(server.context)).toBe('exists');
    const admin = await login(server, ADMIN.email, ADMIN.password);
    const visitor = await createUser(server, admin.access_token, 'visitor@example.org');
    const projects = await call<{ items: { project_id: string; name: string; is_public: boolean }[] }>(
      server,
      'GET',
      '/projects',
      {
        token: visitor.access_token,
      },
    );
    const example = projects.body.items.find((project) => project.name === 'Example: Palmer penguins');
    expect(example?.is_public).toBe(true);
    const workflows = await call<{ items: { workflow_id: string }[] }>(
      server,
      'GET',
      `/projects/${example?.project_id}/workflows`,
      {
        token: visitor.access_token,
      },
    );
    const collections = await call<{ items: { data_collection_id: string; tag: string }[] }>(
      server,
      'GET',
      `/workflows/${workflows.body.items[0]?.workflow_id}/datacollections`,
      { token: visitor.access_token },
    );
    const measurements = collections.body.items.find((collection) => collection.tag === 'measurements');
    const preview = await call<{ total: number; columns: { name: string; type: string }[] }>(
      server,
      'GET',
      `/datacollections/${measurements?.data_collection_id}/preview?limit=5`,
      {
        token: visitor.access_token,
      },
    );
    expect(preview.body.total).toBe(195);
    // The example has a date and a boolean column, for the date_range and switch widgets.
    expect(preview.body.columns).toContainEqual(expect.objectContaining({ name: 'observed_on', type: 'date' }));
    expect(preview.body.columns).toContainEqual(expect.objectContaining({ name: 'clutch_complete', type: 'boolean' }));

    // Its two dashboards (penguins at a glance, the field's charts) show every kind of component
    // between them, one of them on the joined sites collection.
    const dashboards = await call<{ items: Dashboard[] }>(
      server,
      'GET',
      `/dashboards?project_id=${example?.project_id}`,
      { token: visitor.access_token },
    );
    const glance = dashboards.body.items.find((dashboard) => dashboard.title === 'Penguins at a glance');
    const field = dashboards.body.items.find((dashboard) => dashboard.title === "The field's charts");
    expect(dashboards.body.items).toHaveLength(2);
    const components = [...(glance?.components ?? []), ...(field?.components ?? [])];
    const kinds = new Set(
      components.map((component) =>
        component.type === 'figure'
          ? `figure:${component.chart}`
          : component.type === 'interactive'
            ? `interactive:${component.widget}`
            : component.type,
      ),
    );
    expect([...kinds].sort()).toEqual(
      [
        ...CHART_TYPES.map((chart) => `figure:${chart}`),
        ...INTERACTIVE_WIDGETS.map((widget) => `interactive:${widget}`),
        'card',
        'section',
        'table',
        'text',
      ].sort(),
    );
    await expectTabsAndSections(server, visitor.access_token, glance);
    // Every component of each computes: none answers an error in its slot.
    for (const dashboard of [glance, field]) {
      const data = await call<{ components: Record<string, unknown> }>(
        server,
        'POST',
        `/dashboards/${dashboard?.dashboard_id}/data`,
        {
          token: visitor.access_token,
          json: dashboard === glance ? { filters: [{ component_id: 'species', value: ['Adelie'] }] } : {},
        },
      );
      expect(data.status).toBe(200);
      const failed = Object.entries(data.body.components).filter(
        ([, answer]) => (answer as object) && 'error' in (answer as object),
      );
      expect(failed).toEqual([]);
      if (dashboard === glance) {
        // The row-count card compares with the first run's table, which had fewer Adelie.
        const penguins = data.body.components.penguins as CardData;
        expect(penguins.comparison?.version).toBe(0);
        expect(penguins.comparison?.change).toBeGreaterThan(0);
        expect(penguins.sparkline?.points.map((point) => point.x)).toEqual([0, 1]);
        expect((data.body.components['mean-mass'] as CardData).sparkline?.points.length).toBeGreaterThan(2);
      }
      expect(Object.keys(data.body.components).sort()).toEqual(
        (dashboard?.components ?? [])
          .filter((component) => component.type !== 'text' && component.type !== 'section')
          .map((component) => component.component_id)
          .sort(),
      );
    }
    const sites = collections.body.items.find((collection) => collection.tag === 'sites');
    expect(
      components.some(
        (component) => 'data_collection_id' in component && component.data_collection_id === sites?.data_collection_id,
      ),
    ).toBe(true);
    await expectTimeTravel(server, visitor.access_token, glance?.dashboard_id ?? '');
  } finally {
    await server.stop();
    await server.database.drop();
  }
});

/**
 * "Penguins at a glance" is in two tabs, the key numbers, filters and counts on the first and the
 * measurements in sections on the second; each tab's data holds its own components and every
 * filter widget, and a filter set on the first narrows the second.
 */
async function expectTabsAndSections(server: TestServer, token: string, glance: Dashboard | undefined) {
  expect(glance?.tabs.map((tab) => [tab.tab_id, tab.title])).toEqual([
    ['overview', 'Overview'],
    ['details', 'Details'],
  ]);
  const inTab = (tabId: string) => (glance?.components ?? []).filter((component) => component.tab_id === tabId);
  expect(inTab('overview').length + inTab('details').length).toBe(glance?.components.length);
  const sections = (tabId: string) =>
    inTab(tabId)
      .filter((component) => component.type === 'section')
      .map((component) => component.title);
  expect(sections('overview')).toEqual(['Islands and species']);
  expect(sections('details')).toEqual(['Body measurements', 'Distributions', 'Samples']);
  const filters = [{ component_id: 'species', value: ['Adelie'] }];
  const details = await call<{ components: Record<string, { total?: number }> }>(
    server,
    'POST',
    `/dashboards/${glance?.dashboard_id}/data`,
    { token, json: { tab_id: 'details', filters } },
  );
  expect(details.status, details.text).toBe(200);
  // The tab's components alone: the overview's species filter applies here without its widget.
  const expected = inTab('details')
    .filter((component) => component.type !== 'section')
    .map((component) => component.component_id);
  expect(Object.keys(details.body.components).sort()).toEqual(expected.sort());
  const all = await call<{ components: Record<string, { total?: number }> }>(
    server,
    'POST',
    `/dashboards/${glance?.dashboard_id}/data`,
    { token, json: { components: ['measures'] } },
  );
  expect(details.body.components.measures?.total).toBeLessThan(all.body.components.measures?.total ?? 0);
}

/**
 * Each run is its own version of the tables; at the first version of the measurements the sites
 * table did not exist yet, and the dashboard reads it as having no table then.
 */
async function expectTimeTravel(server: TestServer, token: string, dashboardId: string) {
  const versions = await call<{
    collections: { name: string; versions: { version: number; timestamp: string }[] }[];
  }>(server, 'GET', `/dashboards/${dashboardId}/versions`, { token });
  const byName = new Map(versions.body.collections.map((collection) => [collection.name, collection.versions]));
  expect(byName.get('measurements')?.map((entry) => entry.version)).toEqual([1, 0]);
  expect(byName.get('sites')?.map((entry) => entry.version)).toEqual([1, 0]);
  const first = byName.get('measurements')?.at(-1)?.timestamp ?? '';
  expect(Date.parse(first)).toBeLessThan(Date.parse(byName.get('sites')?.at(-1)?.timestamp ?? ''));
  const then = await call<{ components: Record<string, { total?: number; columns?: unknown[] }> }>(
    server,
    'POST',
    `/dashboards/${dashboardId}/data`,
    { token, json: { as_of: first, components: ['measures', 'colonies'] } },
  );
  expect(then.status).toBe(200);
  expect(then.body.components.measures?.total).toBe(120);
  expect(then.body.components.colonies).toMatchObject({ columns: [], rows: [] });
}

it('reads dashboard.json first, then dashboard-<name>.json, and refuses one naming a collection the project lacks', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'example-dashboard-'));
  try {
    const card = (title: string, tag: string) =>
      JSON.stringify({
        title,
        components: [{ component_id: 'n', type: 'card', agg: 'count', data_collection_id: tag }],
      });
    await writeFile(join(folder, 'dashboard-b.json'), card('b', 'measurements'));
    await writeFile(join(folder, 'dashboard-a.json'), card('a', 'measurements'));
    await writeFile(join(folder, 'dashboard.json'), card('main', 'measurements'));
    await writeFile(join(folder, 'dashboards.json'), card('not an example dashboard', 'nests'));
    const ids = new Map([['measurements', 'dc1']]);
    const dashboards = await exampleDashboards(folder, 'p', ids);
    expect(dashboards.map((dashboard) => dashboard.title)).toEqual(['main', 'a', 'b']);
    expect(dashboards[0]?.components[0]).toMatchObject({ data_collection_id: 'dc1' });

    await writeFile(join(folder, 'dashboard-c.json'), card('c', 'nests'));
    await expect(exampleDashboards(folder, 'p', ids)).rejects.toThrow(
      'dashboard-c.json names the collection "nests", which the project lacks',
    );
    expect(await exampleDashboards(join(folder, 'none'), 'p', new Map())).toEqual([]);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});
