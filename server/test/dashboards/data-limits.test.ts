import { API_PREFIX } from '@service/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, DIALECTS, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, serverWithPeople } from './analytics-table.js';

/**
 * Issue 23, finding 2: one data request must not exhaust the server. Requests carrying more than
 * their limits are refused with 413 `request_too_large` naming the limit before any work; an
 * answer growing beyond its size stops; callers beyond their rate get 429 with `Retry-After`.
 * Limits are set low here so that small requests reach them.
 */
const LIMITS = {
  SERVICE_DATA_MAX_FILTER_VALUES: '10',
  SERVICE_DATA_MAX_PREVIEW_COMPONENTS: '3',
  SERVICE_DATA_MAX_ANSWER_BYTES: '64KiB',
  SERVICE_DATA_RATE_LIMIT: '25/minute',
};

/** Twelve tables of 120 rows: each answer about 10 KB, together beyond 64 KiB. */
const TABLES = 12;

for (const dialect of DIALECTS) {
  describe(`data request limits [${dialect}]`, () => {
    let server: TestServer;
    const tokens: Record<string, string> = {};
    let dashboardId: string;
    let collectionId: string;

    beforeAll(async () => {
      const people = await serverWithPeople(dialect, LIMITS);
      server = people.server;
      for (const name of ['owner', 'viewer', 'hammer'])
        tokens[name] = (await people.session(`${name}@example.org`)).access_token;
      const project = await projectWithTable(server, tokens.owner ?? '', 'Penguins');
      collectionId = project.collectionId;
      const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
        token: tokens.owner,
        json: {
          project_id: project.projectId,
          title: 'Many tables',
          components: [
            { component_id: 'count', type: 'card', data_collection_id: collectionId, agg: 'count' },
            {
              component_id: 'species',
              type: 'interactive',
              widget: 'multiselect',
              data_collection_id: collectionId,
              column: 'species',
            },
            ...Array.from({ length: TABLES }, (_, index) => ({
              component_id: `table${index}`,
              type: 'table',
              data_collection_id: collectionId,
              page_size: 120,
            })),
          ],
        },
      });
      expect(created.status, created.text).toBe(201);
      dashboardId = created.body.dashboard_id;
      const shared = await call(server, 'PUT', `/dashboards/${dashboardId}/permissions`, {
        token: tokens.owner,
        json: {
          owners: ['owner@example.org'],
          editors: [],
          viewers: ['viewer@example.org', 'hammer@example.org'],
          is_public: false,
        },
      });
      expect(shared.status, shared.text).toBe(200);
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
    });

    const data = (token: string | undefined, body: unknown, id = dashboardId) =>
      call<DataAnswer & { code?: string; detail?: string }>(server, 'POST', `/dashboards/${id}/data`, {
        ...(token === undefined ? {} : { token }),
        json: body,
      });
    const manyValues = (count: number) => [
      { component_id: 'species', value: Array.from({ length: count }, (_, index) => `S${index}`) },
    ];

    it('refuses more filter values than one request may carry, before reading anything', async () => {
      const answer = await data(tokens.viewer, { components: ['count'], filters: manyValues(11) });
      expect(answer.status, answer.text).toBe(413);
      expect(answer.body.code).toBe('request_too_large');
      expect(answer.body.detail).toContain('SERVICE_DATA_MAX_FILTER_VALUES');
      // Checked before the dashboard is even looked up: an unknown one answers the same.
      const unknown = await data(tokens.viewer, { filters: manyValues(11) }, '01900000-0000-7000-8000-000000000000');
      expect(unknown.status, unknown.text).toBe(413);
      // At the limit, the request runs.
      const within = await data(tokens.viewer, { components: ['count'], filters: manyValues(10) });
      expect(within.status, within.text).toBe(200);
      expect(within.body.components.count).toMatchObject({ value: 0 });
    });

    it('counts filter values over all filters and on the rows route too', async () => {
      const split = [
        { component_id: 'species', value: ['Adelie', 'Gentoo', 'a', 'b', 'c', 'd'] },
        { component_id: 'count', value: ['e', 'f', 'g', 'h', 'i'] },
      ];
      const answer = await data(tokens.viewer, { components: ['count'], filters: split });
      expect(answer.status, answer.text).toBe(413);
      const filters = encodeURIComponent(JSON.stringify(manyValues(11)));
      const rows = await call(server, 'GET', `/dashboards/${dashboardId}/components/table0/rows?filters=${filters}`, {
        token: tokens.viewer,
      });
      expect(rows.status, rows.text).toBe(413);
      expect(rows.body.code).toBe('request_too_large');
    });

    it('refuses more preview components than one request may compute', async () => {
      const preview = Array.from({ length: 4 }, (_, index) => ({
        component_id: `new${index}`,
        type: 'card',
        data_collection_id: collectionId,
        agg: 'count',
      }));
      const answer = await data(tokens.owner, { preview });
      expect(answer.status, answer.text).toBe(413);
      expect(answer.body.code).toBe('request_too_large');
      expect(answer.body.detail).toContain('SERVICE_DATA_MAX_PREVIEW_COMPONENTS');
      const within = await data(tokens.owner, { preview: preview.slice(0, 3) });
      expect(within.status, within.text).toBe(200);
      expect(Object.keys(within.body.components).sort()).toEqual(['new0', 'new1', 'new2']);
    });

    it('stops an answer growing beyond its size: 413 as JSON, the remaining slots as a stream', async () => {
      const whole = await data(tokens.owner, {});
      expect(whole.status, whole.text).toBe(413);
      expect(whole.body.code).toBe('request_too_large');
      expect(whole.body.detail).toContain('SERVICE_DATA_MAX_ANSWER_BYTES');
      const few = await data(tokens.owner, { components: ['table0', 'table1'] });
      expect(few.status, few.text).toBe(200);

      const streamed = await fetch(`${server.url}${API_PREFIX}/dashboards/${dashboardId}/data`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens.owner}`,
          'content-type': 'application/json',
          accept: 'application/x-ndjson',
        },
        body: '{}',
      });
      expect(streamed.status).toBe(200);
      const lines = (await streamed.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { component_id?: string; data?: { error?: { code: string } } });
      const slots = lines.slice(1);
      // Every component has its line; those past the budget say why they carry no data.
      expect(slots).toHaveLength(TABLES + 2);
      const refused = slots.filter((line) => line.data?.error?.code === 'request_too_large');
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.length).toBeLessThan(slots.length);
      const firstRefused = slots.findIndex((line) => line.data?.error !== undefined);
      expect(slots.slice(firstRefused).every((line) => line.data?.error?.code === 'request_too_large')).toBe(true);
    });

    it('answers 429 with Retry-After beyond the caller’s rate, counted per user', async () => {
      const statuses: number[] = [];
      let refused: Awaited<ReturnType<typeof data>> | undefined;
      for (let attempt = 0; attempt < 26 && refused === undefined; attempt++) {
        const answer = await data(tokens.hammer, { components: ['count'] });
        statuses.push(answer.status);
        if (answer.status === 429) refused = answer;
      }
      expect(statuses.slice(0, 25).every((status) => status === 200)).toBe(true);
      expect(refused?.status).toBe(429);
      expect(refused?.body.code).toBe('rate_limited');
      expect(refused?.body.detail).toContain('SERVICE_DATA_RATE_LIMIT');
      const retryAfter = Number(refused?.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // The rows route shares the budget; another user does not.
      const rows = await call(server, 'GET', `/dashboards/${dashboardId}/components/table0/rows`, {
        token: tokens.hammer,
      });
      expect(rows.status, rows.text).toBe(429);
      const other = await data(tokens.viewer, { components: ['count'] });
      expect(other.status, other.text).toBe(200);
    });
  });
}
