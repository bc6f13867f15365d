import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { API_PREFIX } from '../../src/http/prefix.js';
import { type DataAnswer, projectWithTable, serverWithPeople } from './analytics-table.js';

/**
 * `POST /dashboards/{id}/data` (docs/architecture.md "Dashboards"): cards, interactive widgets and table pages of a
 * known table, the request's checks, and the NDJSON stream. Figures: figure-data.test.ts.
 */

interface Problem {
  code: string;
  errors?: { path: string; message: string }[];
}

const componentsOn = (collection: string) => [
  { component_id: 'intro', type: 'text', markdown: '# Penguins' },
  {
    component_id: 'measures',
    type: 'table',
    data_collection_id: collection,
    columns: ['sample', 'mass'],
    page_size: 3,
    sort: [{ column: 'mass', direction: 'desc' }],
  },
  { component_id: 'count', type: 'card', data_collection_id: collection, agg: 'count' },
  { component_id: 'mean_mass', type: 'card', data_collection_id: collection, agg: 'mean', column: 'mass' },
  { component_id: 'median_mass', type: 'card', data_collection_id: collection, agg: 'median', column: 'mass' },
  { component_id: 'sum_mass', type: 'card', data_collection_id: collection, agg: 'sum', column: 'mass' },
  { component_id: 'islands', type: 'card', data_collection_id: collection, agg: 'count_distinct', column: 'island' },
  { component_id: 'first_day', type: 'card', data_collection_id: collection, agg: 'min', column: 'day' },
  { component_id: 'species', type: 'interactive', data_collection_id: collection, widget: 'select', column: 'species' },
  { component_id: 'male', type: 'interactive', data_collection_id: collection, widget: 'switch', column: 'male' },
  { component_id: 'island', type: 'interactive', data_collection_id: collection, widget: 'search', column: 'island' },
  { component_id: 'mass_range', type: 'interactive', data_collection_id: collection, widget: 'range', column: 'mass' },
  { component_id: 'days', type: 'interactive', data_collection_id: collection, widget: 'date_range', column: 'day' },
];

describeEachDialect('dashboard data', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let penguins: { projectId: string; collectionId: string };
  let dashboardId: string;

  beforeAll(async () => {
    const started = await serverWithPeople(dialect);
    server = started.server;
    ada = await started.session('ada@example.org');
    penguins = await projectWithTable(server, ada.access_token, 'Penguins');
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: penguins.projectId, title: 'Overview', components: componentsOn(penguins.collectionId) },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const data = (json: unknown, token = ada.access_token, id = dashboardId) =>
    call<DataAnswer>(server, 'POST', `/dashboards/${id}/data`, { token, json });

  it('answers every component but text, each computed on the whole table, with the version read', async () => {
    const answer = await data({});
    expect(answer.status, answer.text).toBe(200);
    const schema = await call<{ version: number }>(server, 'GET', `/datacollections/${penguins.collectionId}/schema`, {
      token: ada.access_token,
    });
    expect(answer.body.version).toEqual({ [penguins.collectionId]: schema.body.version });
    expect(Object.keys(answer.body.components).sort()).toEqual(
      ['count', 'days', 'first_day', 'island', 'islands', 'male', 'mass_range', 'mean_mass', 'measures']
        .concat(['median_mass', 'species', 'sum_mass'])
        .sort(),
    );
    const components = answer.body.components;
    expect(components.count).toEqual({ value: 120, unfiltered_value: 120 });
    expect(components.mean_mass).toEqual({ value: 3595, unfiltered_value: 3595 });
    expect(components.median_mass).toEqual({ value: 3595, unfiltered_value: 3595 });
    expect(components.sum_mass).toEqual({ value: 431400, unfiltered_value: 431400 });
    expect(components.islands).toEqual({ value: 2, unfiltered_value: 2 });
    expect(components.first_day).toEqual({ value: '2024-01-01', unfiltered_value: '2024-01-01' });
    expect(components.species).toEqual({
      options: [
        { value: 'Adelie', count: 60 },
        { value: 'Gentoo', count: 40 },
        { value: 'Chinstrap', count: 20 },
      ],
      truncated: false,
    });
    expect(components.male).toEqual({
      options: [
        { value: false, count: 90 },
        { value: true, count: 30 },
      ],
      truncated: false,
    });
    expect(components.island).toEqual({
      options: [
        { value: 'Biscoe', count: 60 },
        { value: 'Dream', count: 60 },
      ],
      truncated: false,
    });
    expect(components.mass_range).toEqual({ min: 3000, max: 4190 });
    expect(components.days).toEqual({ min: '2024-01-01', max: '2024-01-30' });
    expect(components.measures).toMatchObject({
      columns: [
        { name: 'sample', type: 'string' },
        { name: 'mass', type: 'long' },
      ],
      rows: [
        { sample: 'S119', mass: 4190 },
        { sample: 'S118', mass: 4180 },
        { sample: 'S117', mass: 4170 },
      ],
      total: 120,
      limit: 3,
      skip: 0,
    });
  });

  it('computes under the filters: cards beside their unfiltered number, options without their own filter, ranges whole', async () => {
    const answer = await data({
      filters: [
        { component_id: 'species', value: ['Gentoo'] },
        { component_id: 'male', value: true },
      ],
    });
    expect(answer.status, answer.text).toBe(200);
    const components = answer.body.components;
    // Gentoo are i = 60…99, male when i mod 4 = 0: i = 60, 64, …, 96.
    expect(components.count).toEqual({ value: 10, unfiltered_value: 120 });
    expect(components.mean_mass).toEqual({ value: 3780, unfiltered_value: 3595 });
    expect(components.median_mass).toEqual({ value: 3780, unfiltered_value: 3595 });
    // The species widget counts under the switch only: males of each species.
    expect(components.species).toEqual({
      options: [
        { value: 'Adelie', count: 15 },
        { value: 'Gentoo', count: 10 },
        { value: 'Chinstrap', count: 5 },
      ],
      truncated: false,
    });
    // The switch counts under the species filter only: Gentoo.
    expect(components.male).toEqual({
      options: [
        { value: false, count: 30 },
        { value: true, count: 10 },
      ],
      truncated: false,
    });
    expect(components.island).toEqual({ options: [{ value: 'Dream', count: 10 }], truncated: false });
    expect(components.mass_range).toEqual({ min: 3000, max: 4190 });
    expect(components.measures).toMatchObject({
      rows: [
        { sample: 'S096', mass: 3960 },
        { sample: 'S092', mass: 3920 },
        { sample: 'S088', mass: 3880 },
      ],
      total: 10,
    });
  });

  it('answers only the named components, leaving text out', async () => {
    const answer = await data({ components: ['count', 'intro', 'mass_range'] });
    expect(answer.status, answer.text).toBe(200);
    expect(Object.keys(answer.body.components).sort()).toEqual(['count', 'mass_range']);
  });

  it('refuses unknown components and filters that do not fit the component they name', async () => {
    const cases: [unknown, string][] = [
      [{ components: ['count', 'ghost'] }, 'body.components[1]'],
      [{ filters: [{ component_id: 'ghost', value: ['x'] }] }, 'body.filters[0].component_id'],
      [{ filters: [{ component_id: 'species', value: 'Adelie' }] }, 'body.filters[0].value'],
      [{ filters: [{ component_id: 'mass_range', value: [1, 2, 3] }] }, 'body.filters[0].value'],
      [{ filters: [{ component_id: 'male', value: ['true'] }] }, 'body.filters[0].value'],
      // A card cannot filter at all: the component is at fault, not the value.
      [{ filters: [{ component_id: 'count', value: ['x'] }] }, 'body.filters[0].component_id'],
      [{ components: [] }, 'body.components'],
      [{ colour: 'red' }, 'body.colour'],
    ];
    for (const [json, path] of cases) {
      const answer = await data(json);
      expect(answer.status, JSON.stringify(json)).toBe(400);
      const problem = answer.body as unknown as Problem;
      expect(problem.code).toBe('validation_failed');
      expect(
        problem.errors?.map((error) => error.path),
        answer.text,
      ).toContain(path);
    }
    expect((await data({}, ada.access_token, '0192d5c8-0000-7000-8000-000000000000')).status).toBe(404);
  });

  it('streams NDJSON lines: the versions first, then each component once', async () => {
    const response = await fetch(`${server.url}${API_PREFIX}/dashboards/${dashboardId}/data`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ada.access_token}`,
        'content-type': 'application/json',
        accept: 'application/x-ndjson',
      },
      body: JSON.stringify({ components: ['count', 'species', 'measures', 'days'] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const text = await response.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toEqual({ version: { [penguins.collectionId]: expect.any(Number) } });
    const rest = lines.slice(1);
    expect(rest.map((line) => line.component_id).sort()).toEqual(['count', 'days', 'measures', 'species']);
    expect(rest.find((line) => line.component_id === 'count')?.data).toEqual({ value: 120, unfiltered_value: 120 });
    expect(rest.find((line) => line.component_id === 'days')?.data).toEqual({ min: '2024-01-01', max: '2024-01-30' });
  });
});
