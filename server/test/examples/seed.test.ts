import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHART_TYPES, type Dashboard, INTERACTIVE_WIDGETS } from '@service/common';
import { expect, it } from 'vitest';
import { ADMIN, call, createUser, login, startTestServer, type TestServer } from '../../../test/support/test-server.js';
import { exampleDashboard, seedExampleData } from '../../src/examples/seed.js';

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

    // Its dashboard shows every kind of component, one of them on the joined sites collection.
    const dashboards = await call<{ items: Dashboard[] }>(
      server,
      'GET',
      `/dashboards?project_id=${example?.project_id}`,
      { token: visitor.access_token },
    );
    expect(dashboards.body.items).toHaveLength(1);
    const components = dashboards.body.items[0]?.components ?? [];
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
        'table',
        'text',
      ].sort(),
    );
    // Every component computes: none answers an error in its slot.
    const data = await call<{ components: Record<string, unknown> }>(
      server,
      'POST',
      `/dashboards/${dashboards.body.items[0]?.dashboard_id}/data`,
      { token: visitor.access_token, json: { filters: [{ component_id: 'species', value: ['Adelie'] }] } },
    );
    expect(data.status).toBe(200);
    const failed = Object.entries(data.body.components).filter(
      ([, answer]) => (answer as object) && 'error' in (answer as object),
    );
    expect(failed).toEqual([]);
    expect(Object.keys(data.body.components).sort()).toEqual(
      components
        .filter((component) => component.type !== 'text')
        .map((component) => component.component_id)
        .sort(),
    );
    const sites = collections.body.items.find((collection) => collection.tag === 'sites');
    expect(
      components.some(
        (component) => 'data_collection_id' in component && component.data_collection_id === sites?.data_collection_id,
      ),
    ).toBe(true);
    await expectTimeTravel(server, visitor.access_token, dashboards.body.items[0]?.dashboard_id ?? '');
  } finally {
    await server.stop();
    await server.database.drop();
  }
});

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

it('refuses an example dashboard naming a collection the project lacks', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'example-dashboard-'));
  try {
    await writeFile(
      join(folder, 'dashboard.json'),
      JSON.stringify({
        title: 'x',
        components: [{ component_id: 'n', type: 'card', agg: 'count', data_collection_id: 'nests' }],
      }),
    );
    await expect(exampleDashboard(folder, 'p', new Map([['measurements', 'dc1']]))).rejects.toThrow(
      'dashboard.json names the collection "nests", which the project lacks',
    );
    expect(await exampleDashboard(join(folder, 'none'), 'p', new Map())).toBeNull();
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});
