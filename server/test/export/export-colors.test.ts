import { type Dashboard, PALETTES } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { PENGUINS, projectWithTable, serverWithPeople } from '../dashboards/analytics-table.js';
import { exportPath } from './export-fixture.js';

/**
 * An exported chart colours its values as the dashboard does: from the dashboard's stored palette
 * (`GET /dashboards/{id}/colors` assigns it from the unfiltered answers), so a filter that leaves
 * one species keeps that species' colour, and the palette travels with saves, copies and files.
 */

interface PieSpec {
  spec: { series: { data: { name: string; itemStyle?: { color?: string } }[] }[] };
}

describeEachDialect('exported colours', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let dashboardId: string;
  beforeAll(async () => {
    const world = await serverWithPeople(dialect);
    server = world.server;
    ada = await world.session('ada@example.org');
    const project = await projectWithTable(server, ada.access_token, 'penguins', PENGUINS);
    const figure = { type: 'figure', data_collection_id: project.collectionId } as const;
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: {
        project_id: project.projectId,
        title: 'Colours',
        components: [
          { ...figure, component_id: 'by_island', chart: 'bar', x: 'island', color: 'species' },
          { ...figure, component_id: 'species_pie', chart: 'pie', color: 'species' },
          {
            component_id: 'species',
            type: 'interactive',
            data_collection_id: project.collectionId,
            widget: 'select',
            column: 'species',
          },
        ],
      },
    });
    if (created.status !== 201) throw new Error(created.text);
    dashboardId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const slices = async (query: Record<string, string>) => {
    const answer = await call<PieSpec>(server, 'GET', exportPath(dashboardId, 'species_pie', query), {
      token: ada.access_token,
    });
    expect(answer.status, answer.text).toBe(200);
    const data = answer.body.spec.series[0]?.data ?? [];
    return Object.fromEntries(data.map((slice) => [slice.name, slice.itemStyle?.color]));
  };

  it('keeps a value its colour of the unfiltered dashboard under a filter, in both themes', async () => {
    const unfiltered = await slices({});
    expect(Object.keys(unfiltered).sort()).toEqual(['Adelie', 'Chinstrap', 'Gentoo']);
    const filters = JSON.stringify([{ component_id: 'species', value: ['Chinstrap'] }]);
    const filtered = await slices({ filters });
    expect(filtered).toEqual({ Chinstrap: unfiltered.Chinstrap });
    // The first value seen (the bar chart comes first) takes the first colour, not Chinstrap.
    expect(filtered.Chinstrap).not.toBe(PALETTES.light.series[0]);
    const position = PALETTES.light.series.indexOf(String(unfiltered.Chinstrap));
    expect(position).toBeGreaterThan(0);
    expect(await slices({ filters, theme: 'dark' })).toEqual({ Chinstrap: PALETTES.dark.series[position] });
  });

  it('stores the palette as values first appear, keeps it through saves, copies and files, and exports by it', async () => {
    const token = ada.access_token;
    const before = await call<Dashboard>(server, 'GET', `/dashboards/${dashboardId}`, { token });
    const assigned = await call<{ colors: string[] }>(server, 'GET', `/dashboards/${dashboardId}/colors`, { token });
    expect(assigned.status, assigned.text).toBe(200);
    // The bar chart comes first: its species in the answer's order, then none new from the pie.
    expect([...assigned.body.colors].sort()).toEqual(['Adelie', 'Chinstrap', 'Gentoo']);
    const stored = await call<Dashboard>(server, 'GET', `/dashboards/${dashboardId}`, { token });
    expect(stored.body.colors).toEqual(assigned.body.colors);
    // Not a save: the revision (ETag) stays.
    expect(stored.headers.get('etag')).toBe(before.headers.get('etag'));

    // A save that sends no palette keeps it; the file carries it; a copy from the file draws by it.
    const { title, description, tabs, components, layout } = stored.body;
    const saved = await call<Dashboard>(server, 'PUT', `/dashboards/${dashboardId}`, {
      token,
      json: { title, description, tabs, components, layout },
    });
    expect(saved.body.colors).toEqual(assigned.body.colors);
    const yaml = await call(server, 'GET', `/dashboards/${dashboardId}/yaml`, { token });
    const reordered = [...assigned.body.colors].reverse();
    const file = yaml.text.replace(
      /colors:\n( {2}- .*\n)+/,
      `colors:\n${reordered.map((value) => `  - ${value}\n`).join('')}`,
    );
    expect(file).not.toBe(yaml.text);
    const imported = await call<Dashboard>(server, 'POST', '/dashboards/import', {
      token,
      body: file,
      headers: { 'content-type': 'application/yaml' },
    });
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.colors).toEqual(reordered);
    const pie = await call<PieSpec>(server, 'GET', exportPath(imported.body.dashboard_id, 'species_pie', {}), {
      token,
    });
    const colorOf = Object.fromEntries((pie.body.spec.series[0]?.data ?? []).map((s) => [s.name, s.itemStyle?.color]));
    expect(colorOf).toEqual(Object.fromEntries(reordered.map((value, i) => [value, PALETTES.light.series[i]])));
    const copy = await call<Dashboard>(server, 'POST', `/dashboards/${imported.body.dashboard_id}/duplicate`, {
      token,
      json: {},
    });
    expect(copy.body.colors).toEqual(reordered);
  });
});
