import type { DashboardComponentInput, PreviewAnswer, Problem } from '@service/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, serverWithPeople } from './analytics-table.js';

/**
 * A dashboard table's column filters and row selection (docs/dashboards.md "Tables"). On
 * analytics-table.ts's 120 penguins: sample S000…S119; Adelie i < 60, Gentoo 60 ≤ i < 100,
 * Chinstrap i ≥ 100; island Dream (even i) / Biscoe (odd i); mass 3000 + 10·i; day 2024-01-01 +
 * (i mod 30); male when i mod 4 = 0. `flipper` is not shown by the table.
 */
const components = (data_collection_id: string): DashboardComponentInput[] => [
  { component_id: 'species', type: 'interactive', widget: 'select', column: 'species', data_collection_id },
  {
    component_id: 'table',
    type: 'table',
    columns: ['sample', 'species', 'island', 'mass', 'day', 'male'],
    page_size: 3,
    select_by: 'sample',
    data_collection_id,
  },
  { component_id: 'unkeyed', type: 'table', data_collection_id },
  { component_id: 'count', type: 'card', agg: 'count', data_collection_id },
  { component_id: 'by_island', type: 'figure', chart: 'bar', x: 'island', agg: 'count', data_collection_id },
  // Rows selected by a column it does not show.
  { component_id: 'masses', type: 'table', columns: ['mass'], page_size: 2, select_by: 'sample', data_collection_id },
];

describeEachDialect('column filters and row selection of dashboard tables', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let dashboardId: string;

  beforeAll(async () => {
    const started = await serverWithPeople(dialect);
    server = started.server;
    ada = await started.session('ada@example.org');
    const project = await projectWithTable(server, ada.access_token, 'Penguins');
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: project.projectId, title: 'Filters', components: components(project.collectionId) },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const rows = (query: Record<string, unknown>, component = 'table') => {
    const search = new URLSearchParams(
      Object.entries(query).map(([key, value]): [string, string] => [
        key,
        typeof value === 'string' ? value : JSON.stringify(value),
      ]),
    );
    return call<PreviewAnswer>(server, 'GET', `/dashboards/${dashboardId}/components/${component}/rows?${search}`, {
      token: ada.access_token,
    });
  };
  const samples = (answer: PreviewAnswer) => answer.rows.map((row) => row.sample);

  describe('each kind of filter, with its exact rows', () => {
    it('text contains, ignoring case, and combined with a value list', async () => {
      const contains = await rows({
        column_filters: [{ column: 'sample', op: 'contains', value: 's01' }],
        limit: '20',
      });
      expect(contains.status, contains.text).toBe(200);
      expect(contains.body.total).toBe(10);
      expect(samples(contains.body)).toEqual(Array.from({ length: 10 }, (_, i) => `S01${i}`));
      const both = await rows({
        column_filters: [
          { column: 'sample', op: 'contains', value: 's01' },
          { column: 'island', op: 'in', value: ['Dream'] },
        ],
        limit: '20',
      });
      expect(samples(both.body)).toEqual(['S010', 'S012', 'S014', 'S016', 'S018']);
    });

    it('a numeric range, both ends included, and open-ended', async () => {
      const closed = await rows({ column_filters: [{ column: 'mass', op: 'between', value: [3500, 3600] }] });
      expect(closed.body.total).toBe(11); // i = 50…60
      const open = await rows({ column_filters: [{ column: 'mass', op: 'between', value: [4100, null] }] });
      expect(open.body.total).toBe(10); // i = 110…119
    });

    it('a value list of texts and of booleans', async () => {
      const species = await rows({ column_filters: [{ column: 'species', op: 'in', value: ['Gentoo', 'Chinstrap'] }] });
      expect(species.body.total).toBe(60);
      const male = await rows({ column_filters: [{ column: 'male', op: 'in', value: [true] }] });
      expect(male.body.total).toBe(30);
    });

    it('a date range, the high day included', async () => {
      const days = await rows({
        column_filters: [{ column: 'day', op: 'between', value: ['2024-01-01', '2024-01-03'] }],
      });
      expect(days.status, days.text).toBe(200);
      expect(days.body.total).toBe(12); // i mod 30 ∈ {0, 1, 2}, four times
    });

    it('pages and sorts the filtered rows, under the dashboard filters too', async () => {
      const gentoo = { column_filters: [{ column: 'species', op: 'in', value: ['Gentoo'] }], sort: 'mass:desc' };
      const second = await rows({ ...gentoo, skip: '3' });
      expect(second.body.total).toBe(40);
      expect(second.body.rows.map((row) => row.mass)).toEqual([3960, 3950, 3940]);
      const adelie = await rows({
        filters: [{ component_id: 'species', value: ['Adelie'] }],
        column_filters: [{ column: 'mass', op: 'between', value: [3000, 3100] }],
      });
      expect(adelie.body.total).toBe(11);
    });
  });

  it('sends the value lists of the few-valued columns and the selection column with the first page', async () => {
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: ada.access_token,
      json: {},
    });
    const table = answer.body.components.table as PreviewAnswer;
    expect(table.column_values).toEqual({
      species: ['Adelie', 'Chinstrap', 'Gentoo'],
      island: ['Biscoe', 'Dream'],
      male: [false, true],
    });
    expect(table.select_by).toBe('sample');
    expect((answer.body.components.unkeyed as PreviewAnswer).select_by).toBeUndefined();
  });

  it("downloads the CSV under the table's column filters and sort", async () => {
    const search = new URLSearchParams({
      column_filters: JSON.stringify([
        { column: 'species', op: 'in', value: ['Chinstrap'] },
        { column: 'mass', op: 'between', value: [null, 4020] },
      ]),
      sort: 'mass:desc',
    });
    const response = await fetch(
      `${server.url}/service/api/v1/dashboards/${dashboardId}/components/table/download?${search}`,
      { headers: { authorization: `Bearer ${ada.access_token}` } },
    );
    expect(response.status).toBe(200);
    expect((await response.text()).trim().split('\n')).toEqual([
      'sample,species,island,mass,day,male',
      'S102,Chinstrap,Dream,4020,2024-01-13,false',
      'S101,Chinstrap,Biscoe,4010,2024-01-12,false',
      'S100,Chinstrap,Dream,4000,2024-01-11,true',
    ]);
  });

  it("downloads only the reader's columns, in the reader's order, filtered and sorted by hidden ones", async () => {
    const download = (query: Record<string, string>) =>
      fetch(
        `${server.url}/service/api/v1/dashboards/${dashboardId}/components/table/download?${new URLSearchParams(query)}`,
        { headers: { authorization: `Bearer ${ada.access_token}` } },
      );
    const response = await download({
      column_filters: JSON.stringify([{ column: 'species', op: 'in', value: ['Chinstrap'] }]),
      sort: 'day:desc',
      columns: JSON.stringify(['mass', 'sample']),
    });
    expect(response.status).toBe(200);
    // Chinstrap (i ≥ 100) by day, latest first: day 30 is i = 119, 29 is 118, … (i mod 30).
    const lines = (await response.text()).trim().split('\n');
    expect(lines.slice(0, 4)).toEqual(['mass,sample', '4190,S119', '4180,S118', '4170,S117']);
    expect(lines).toHaveLength(21);
    for (const [columns, path] of [
      [['sample', 'flipper'], 'querystring.columns[1]'],
      [['mass', 'mass'], 'querystring.columns[1]'],
      [[], 'querystring.columns'],
    ] as const) {
      const refused = await download({ columns: JSON.stringify(columns) });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as Problem).errors?.map((error) => error.path)).toEqual([path]);
    }
  });

  it('carries the selection key with the rows of a table that does not show it, never as a column', async () => {
    const first = await call<DataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: ada.access_token,
      json: {},
    });
    const page = first.body.components.masses as PreviewAnswer;
    expect(page.select_by).toBe('sample');
    expect(page.columns.map((column) => column.name)).toEqual(['mass']);
    expect(page.rows).toEqual([
      { mass: 3000, sample: 'S000' },
      { mass: 3010, sample: 'S001' },
    ]);
    const later = await rows({ skip: '4', sort: 'mass:desc' }, 'masses');
    expect(later.status, later.text).toBe(200);
    expect(later.body.columns.map((column) => column.name)).toEqual(['mass']);
    expect(later.body.rows).toEqual([
      { mass: 4150, sample: 'S115' },
      { mass: 4140, sample: 'S114' },
    ]);
    // Selected by that key, the rows narrow the others.
    const selected = await call<DataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: ada.access_token,
      json: { filters: [{ component_id: 'masses', value: ['S115', 'S114'] }] },
    });
    expect(selected.body.components.count?.value).toBe(2);
    // A table that shows its key carries nothing more.
    const shown = await rows({}, 'table');
    expect(Object.keys(shown.body.rows[0] ?? {})).toEqual(['sample', 'species', 'island', 'mass', 'day', 'male']);
  });

  it('narrows the other components to the selected rows, not the table itself', async () => {
    const selected = [{ component_id: 'table', value: ['S000', 'S001', 'S002'] }];
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: ada.access_token,
      json: { filters: selected },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.components.count?.value).toBe(3);
    expect(answer.body.components.by_island?.total_rows).toBe(3);
    expect((answer.body.components.table as PreviewAnswer).total).toBe(120);
    expect((answer.body.components.unkeyed as PreviewAnswer).total).toBe(3);
  });

  it('names select_by in GET /dashboards/schema, and a save refuses a select_by the table lacks', async () => {
    const schema = await call<{ $defs: Record<string, { properties?: Record<string, unknown> }> }>(
      server,
      'GET',
      '/dashboards/schema',
    );
    expect(schema.body.$defs.TableComponent?.properties).toHaveProperty('select_by');
    const dashboard = await call<{ components: unknown[] }>(server, 'GET', `/dashboards/${dashboardId}`, {
      token: ada.access_token,
    });
    const wrong = dashboard.body.components.map((component) =>
      (component as { component_id: string }).component_id === 'table'
        ? { ...(component as object), select_by: 'nope' }
        : component,
    );
    const saved = await call<Problem>(server, 'PUT', `/dashboards/${dashboardId}`, {
      token: ada.access_token,
      json: { title: 'Filters', components: wrong },
    });
    expect(saved.status, saved.text).toBe(400);
    expect(saved.body.errors?.map((error) => error.path)).toEqual(['body.components[1].select_by']);
  });

  describe('mistakes answer 400 with the place of the fault', () => {
    const problemOf = async (query: Record<string, unknown>) => {
      const answer = await rows(query);
      expect(answer.status, answer.text).toBe(400);
      const problem = answer.body as unknown as Problem;
      expect(problem.code).toBe('validation_failed');
      return problem.errors?.map((error) => error.path);
    };

    it('a column the table does not show', async () => {
      expect(await problemOf({ column_filters: [{ column: 'flipper', op: 'between', value: [1, 2] }] })).toEqual([
        'querystring.column_filters[0].column',
      ]);
    });

    it('an operator that is none, or not one for the column', async () => {
      expect(await problemOf({ column_filters: [{ column: 'mass', op: 'gt', value: 3 }] })).toEqual([
        'querystring.column_filters[0].op',
      ]);
      expect(await problemOf({ column_filters: [{ column: 'mass', op: 'contains', value: '3' }] })).toEqual([
        'querystring.column_filters[0].op',
      ]);
    });

    it('a value list too long, and a date that is none', async () => {
      const many = Array.from({ length: 201 }, (_, i) => `v${i}`);
      expect(await problemOf({ column_filters: [{ column: 'species', op: 'in', value: many }] })).toEqual([
        'querystring.column_filters[0].value',
      ]);
      expect(await problemOf({ column_filters: [{ column: 'day', op: 'between', value: ['soon', null] }] })).toEqual([
        'querystring.column_filters[0].value[0]',
      ]);
    });

    it('selecting rows of a table without a selection column', async () => {
      const answer = await call<Problem>(server, 'POST', `/dashboards/${dashboardId}/data`, {
        token: ada.access_token,
        json: { filters: [{ component_id: 'unkeyed', value: ['S000'] }] },
      });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.errors?.map((error) => error.path)).toEqual(['body.filters[0].component_id']);
    });
  });
});
