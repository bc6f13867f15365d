import { PALETTES } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { PENGUINS, projectWithTable, serverWithPeople } from '../dashboards/analytics-table.js';
import { exportPath } from './export-fixture.js';

/**
 * An exported chart colours its values as the dashboard does (common's `assignColors` over the
 * unfiltered answers): a filter that leaves one species keeps that species' colour.
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
});
