import type { DashboardComponentInput, PreviewAnswer, TableSpec } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, serverWithPeople } from './analytics-table.js';

/**
 * A dashboard table's colour scales (docs/dashboards.md "Tables"): the whole table's range of each
 * coloured column travels with every page, whatever the filters, and the exported page paints each
 * cell by its step. analytics-table.ts's 120 penguins: mass 3000 + 10·i (3000…4190), flipper
 * (i mod 10) + 0.5.
 */
const components = (data_collection_id: string): DashboardComponentInput[] => [
  { component_id: 'species', type: 'interactive', widget: 'select', column: 'species', data_collection_id },
  {
    component_id: 'table',
    type: 'table',
    title: 'Heaviest',
    columns: ['sample', 'mass'],
    page_size: 3,
    sort: [{ column: 'mass', direction: 'desc' }],
    color_scales: [{ column: 'mass' }, { column: 'flipper', scheme: 'rdylgn', reverse: true }],
    data_collection_id,
  },
];

describeEachDialect('colour scales of dashboard tables', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let dashboardId: string;
  let project: { projectId: string; collectionId: string };

  beforeAll(async () => {
    const started = await serverWithPeople(dialect);
    server = started.server;
    ada = await started.session('ada@example.org');
    project = await projectWithTable(server, ada.access_token, 'Penguins');
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: project.projectId, title: 'Scales', components: components(project.collectionId) },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it("sends the whole table's range of each coloured column, whatever the filters and the page", async () => {
    const gentoo = [{ component_id: 'species', value: ['Gentoo'] }];
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: ada.access_token,
      json: { filters: gentoo },
    });
    const table = answer.body.components.table as PreviewAnswer;
    // Gentoo weigh 3600…3990; the colours still span the whole table, flipper included though not shown.
    expect(table.rows.map((row) => row.mass)).toEqual([3990, 3980, 3970]);
    expect(table.color_ranges).toEqual({ mass: [3000, 4190], flipper: [0.5, 9.5] });
    const query = new URLSearchParams({ skip: '3', limit: '3', filters: JSON.stringify(gentoo) });
    const second = await call<PreviewAnswer>(
      server,
      'GET',
      `/dashboards/${dashboardId}/components/table/rows?${query}`,
      { token: ada.access_token },
    );
    expect(second.status, second.text).toBe(200);
    expect(second.body.color_ranges).toEqual({ mass: [3000, 4190], flipper: [0.5, 9.5] });
  });

  it('exports the table with each cell painted by its step', async () => {
    const spec = await call<{ spec: TableSpec }>(server, 'GET', `/export/components/${dashboardId}/table`, {
      token: ada.access_token,
    });
    expect(spec.body.spec.color_ranges?.mass).toEqual([3000, 4190]);
    const page = await call(server, 'GET', `/export/components/${dashboardId}/table?format=html`, {
      token: ada.access_token,
    });
    expect(page.status).toBe(200);
    // 4190 is the top of the range (step 8); 4180 is 1180/1190 of the way: step round(7.93) = 8.
    expect(page.text).toContain('<td class="number scale-blues-8">4190</td>');
    expect(page.text).toMatch(/\.scale-blues-8\{background:rgb\(\d+, \d+, \d+\);color:#ffffff\}/);
  });

  it('refuses a scale on a column the table lacks or that holds no numbers', async () => {
    const refused = async (column: string) => {
      const answer = await call<{ errors: { path: string; message: string }[] }>(server, 'POST', '/dashboards', {
        token: ada.access_token,
        json: {
          project_id: project.projectId,
          title: 'Bad',
          components: [
            { component_id: 't', type: 'table', data_collection_id: project.collectionId, color_scales: [{ column }] },
          ],
        },
      });
      expect(answer.status, answer.text).toBe(400);
      return answer.body.errors;
    };
    expect(await refused('species')).toEqual([
      { path: 'body.components[0].color_scales[0].column', message: expect.stringContaining('numeric column') },
    ]);
    expect(await refused('nope')).toEqual([
      { path: 'body.components[0].color_scales[0].column', message: expect.stringContaining('no column "nope"') },
    ]);
  });
});
