import { beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { ALL, type Problem, penguinsFixture } from './penguins-fixture.js';

/** What the query routes refuse (unknown columns, SQL in names and values, limits) and who may read. */
describeEachDialect('data collection queries: refusals and access', (dialect) => {
  const fixture = penguinsFixture(dialect);
  const { get, aggregate, filtersParam, expectRefused } = fixture;
  let server: TestServer;
  let ada: Session;
  let vic: Session;
  let oscar: Session;
  let id: string;
  let emptyId: string;
  beforeAll(() => {
    ({ server, ada, vic, oscar, id, emptyId } = fixture.current());
  });

  it('refuses unknown columns, naming them', async () => {
    expectRefused(await get(`/datacollections/${id}/preview?sort=id:asc,nope:desc`), 'querystring.sort', '"nope"');
    expectRefused(
      await get(`/datacollections/${id}/preview?filters=${filtersParam([{ column: 'nope', op: 'is_null' }])}`),
      'querystring.filters[0].column',
      '"nope"',
    );
    expectRefused(
      await aggregate({ group_by: ['island', 'nope'], aggregates: [{ fn: 'count' }] }),
      'body.group_by[1]',
      '"nope"',
    );
    expectRefused(
      await aggregate({ aggregates: [{ fn: 'sum', column: 'nope' }] }),
      'body.aggregates[0].column',
      '"nope"',
    );
    expectRefused(
      await aggregate({ aggregates: [{ fn: 'count' }], filters: [{ column: 'nope', op: 'eq', value: 1 }] }),
      'body.filters[0].column',
      '"nope"',
    );
    expectRefused(
      await aggregate({ group_by: ['island'], sort: [{ column: 'mass', direction: 'asc' }] }),
      'body.sort[0].column',
      '"mass"',
    );
    expectRefused(
      await aggregate({
        aggregates: [
          { fn: 'count', column: 'id' },
          { fn: 'count', as: 'count_id' },
        ],
      }),
      'body.aggregates[1].as',
      '"count_id"',
    );
    expectRefused(
      await aggregate({ aggregates: [{ fn: 'sum', column: 'species' }] }),
      'body.aggregates[0].fn',
      'species',
    );
    expectRefused(
      await aggregate({ aggregates: [{ fn: 'count' }], filters: [{ column: 'observed', op: 'eq', value: 'soon' }] }),
      'body.filters[0].value',
      '"soon"',
    );
    expectRefused(
      await aggregate({ aggregates: [{ fn: 'count' }], filters: [{ column: 'flipper', op: 'gt', value: 'many' }] }),
      'body.filters[0].value',
      '"many"',
    );
    const noQ = await aggregate<Problem>({ aggregates: [{ fn: 'quantile', column: 'mass' }] });
    expect(noQ.status).toBe(400);
    // (Schema validation may spell the index `.0` or `[0]`.)
    expect(noQ.body.errors?.map((error) => error.path.replace('.0.', '[0].'))).toContain('body.aggregates[0].q');
  });

  it('treats SQL in column names and values as data', async () => {
    const injected = 'island"; DROP VIEW dc_rows; SELECT "1';
    expectRefused(
      await aggregate({ group_by: [injected], aggregates: [{ fn: 'count' }] }),
      'body.group_by[0]',
      JSON.stringify(injected),
    );
    expectRefused(
      await get(`/datacollections/${id}/preview?sort=${encodeURIComponent(`${injected}:asc`)}`),
      'querystring.sort',
      'DROP VIEW',
    );
    const values = ["'; DROP TABLE data_collections; --", "Gentoo' OR '1'='1", '%', '1); SELECT 1; --'];
    for (const value of values) {
      const answer = await aggregate({
        aggregates: [{ fn: 'count' }],
        filters: [{ column: 'species', op: 'eq', value }],
      });
      expect(answer.body.rows).toEqual([{ count: 0 }]);
      const search = await get<{ values: unknown[] }>(
        `/datacollections/${id}/values/species?search=${encodeURIComponent(value)}`,
      );
      expect(search.status).toBe(200);
      expect(search.body.values).toEqual([]);
    }
    const alias = await aggregate({ aggregates: [{ fn: 'count', as: 'n"; DROP TABLE x; --' }] });
    expect(alias.body.rows).toEqual([{ 'n"; DROP TABLE x; --': ALL.length }]);
    // Nothing ran: the table and the collection are intact.
    expect((await get(`/datacollections/${id}/preview?limit=1`)).body.total).toBe(ALL.length);
    expect((await get(`/datacollections/${id}`)).status).toBe(200);
  });

  it('refuses limits out of range', async () => {
    for (const path of [
      `/datacollections/${id}/preview?limit=0`,
      `/datacollections/${id}/preview?limit=1001`,
      `/datacollections/${id}/preview?skip=-1`,
      `/datacollections/${id}/values/species?limit=0`,
      `/datacollections/${id}/values/species?limit=1001`,
      `/datacollections/${id}/download?format=xlsx`,
    ]) {
      const answer = await get<Problem>(path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.code).toBe('validation_failed');
    }
    for (const limit of [0, 10_001]) {
      const answer = await aggregate<Problem>({ aggregates: [{ fn: 'count' }], limit });
      expect(answer.status).toBe(400);
      expect(answer.body.errors?.map((error) => error.path)).toEqual(['body.limit']);
    }
    expect((await aggregate({ aggregates: [{ fn: 'count' }], limit: 10_000 })).status).toBe(200);
    expect((await aggregate({})).status).toBe(400);
  });

  it('answers empty for a collection without data, and 404 for its download', async () => {
    const base = `/datacollections/${emptyId}`;
    expect((await get(`${base}/schema`)).body).toEqual({ version: null, columns: [] });
    expect((await get(`${base}/preview?sort=anything:asc`)).body).toEqual({
      version: null,
      columns: [],
      rows: [],
      total: 0,
      limit: 100,
      skip: 0,
    });
    expect((await get(`${base}/summary`)).body).toEqual({ version: null, rows: 0, columns: [] });
    expect((await get(`${base}/values/species`)).body).toEqual({
      version: null,
      column: 'species',
      values: [],
      truncated: false,
      total_rows: 0,
    });
    expect((await aggregate({ aggregates: [{ fn: 'count' }] }, ada.access_token, emptyId)).body).toEqual({
      version: null,
      columns: [],
      rows: [],
      truncated: false,
    });
    expect((await get(`${base}/versions`)).body).toEqual({ items: [], total: 0, limit: 50, skip: 0 });
    const download = await get<Problem>(`${base}/download?format=csv`);
    expect(download.status).toBe(404);
    expect(download.body).toMatchObject({ code: 'not_found', detail: 'the data collection has no data yet' });
  });

  it('lets viewers read, hides the collection from others, and asks anonymous callers to sign in', async () => {
    const paths = [
      `/datacollections/${id}/schema`,
      `/datacollections/${id}/preview`,
      `/datacollections/${id}/summary`,
      `/datacollections/${id}/values/species`,
      `/datacollections/${id}/download?format=csv`,
      `/datacollections/${id}/versions`,
    ];
    for (const path of paths) {
      expect((await get(path, vic.access_token)).status, path).toBe(200);
      const hidden = await get<Problem>(path, oscar.access_token);
      expect(hidden.status, path).toBe(404);
      expect(hidden.body.code).toBe('not_found');
      expect((await get(path, null)).status, path).toBe(401);
    }
    const body = { aggregates: [{ fn: 'count' }] };
    expect((await aggregate(body, vic.access_token)).status).toBe(200);
    expect((await aggregate(body, oscar.access_token)).status).toBe(404);
    expect((await call(server, 'POST', `/datacollections/${id}/aggregate`, { json: body })).status).toBe(401);
    const unknown = await get<Problem>('/datacollections/00000000-0000-7000-8000-000000000000/schema');
    expect(unknown.status).toBe(404);
  });
});
