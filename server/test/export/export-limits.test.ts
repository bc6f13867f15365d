import { API_PREFIX } from '@service/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type TestServer } from '../../../test/support/test-server.js';
import { projectWithTable, serverWithPeople } from '../dashboards/analytics-table.js';

/**
 * Issue 23, finding 2, for the export route (and the data route's time limits): a request beyond
 * its limits is refused with 413 naming the limit, and one whose query runs beyond its time is
 * stopped with 504 `time_limit_exceeded` in the error shape. Queries are slow by the data they
 * read (100,000 or a million rows), never by waiting in our code; the limits are set low instead.
 */
const ROWS = 100_000;
const BIG = 1_000_000;
/** `rows` rows: `sample` all distinct, `grp` G0…G999 (each on one row in a thousand), `x` and `y` spread. */
const csvOf = (rows: number) =>
  [
    'sample,grp,x,y',
    ...Array.from({ length: rows }, (_, i) => `S${i},G${i % 1000},${(i * 7919) % 10007},${(i * 104729) % 9973}`),
    '',
  ].join('\n');

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
}

/** A server with `rows` rows and a dashboard: a card, a big heatmap, a slow heatmap, a filter. */
async function world(env: Record<string, string>, rows = ROWS) {
  const people = await serverWithPeople('sqlite', env);
  const server = people.server;
  const token = (await people.session('owner@example.org')).access_token;
  const project = await projectWithTable(server, token, 'Big', csvOf(rows));
  const collection = project.collectionId;
  const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
    token,
    json: {
      project_id: project.projectId,
      title: 'Bounded',
      components: [
        { component_id: 'count', type: 'card', data_collection_id: collection, agg: 'count' },
        {
          component_id: 'groups',
          type: 'interactive',
          widget: 'multiselect',
          data_collection_id: collection,
          column: 'grp',
        },
        // About 40,000 cells: 1 MB of JSON.
        {
          component_id: 'big',
          type: 'figure',
          chart: 'heatmap',
          data_collection_id: collection,
          x: 'x',
          y: 'y',
          bins: 200,
        },
        // Its 500 samples are ranked among all the rows' distinct ones: the slowest statement here.
        {
          component_id: 'slow',
          type: 'figure',
          chart: 'heatmap',
          data_collection_id: collection,
          x: 'x',
          y: 'sample',
          bins: 500,
          max_categories: 500,
        },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  const dashboardId = created.body.dashboard_id;
  const exported = (component: string, query: Record<string, string> = {}) =>
    call<Problem>(
      server,
      'GET',
      `/export/components/${dashboardId}/${component}?${new URLSearchParams(query).toString()}`,
      { token },
    );
  const data = (body: unknown) =>
    call<Problem & { components: Record<string, { error?: { code: string; message: string } }> }>(
      server,
      'POST',
      `/dashboards/${dashboardId}/data`,
      { token, json: body },
    );
  return { server, token, dashboardId, collection, exported, data };
}

/** The error shape of docs/api.md, for `code`. */
function expectProblem(answer: { status: number; body: Problem; text: string }, status: number, code: string) {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.body).toMatchObject({ type: `urn:service:problem:${code}`, status, code });
  expect(answer.body.title).toEqual(expect.any(String));
}

const groups = (count: number) =>
  JSON.stringify([{ component_id: 'groups', value: Array.from({ length: count }, (_, i) => `G${i}`) }]);

describe('export beyond the size limits', () => {
  let bounded: Awaited<ReturnType<typeof world>>;
  let server: TestServer | undefined;

  beforeAll(async () => {
    bounded = await world({ SERVICE_DATA_MAX_FILTER_VALUES: '10', SERVICE_DATA_MAX_ANSWER_BYTES: '64KiB' });
    server = bounded.server;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('refuses more filter values than one request may carry: 413 naming the limit, spec and page', async () => {
    const spec = await bounded.exported('count', { filters: groups(11) });
    expectProblem(spec, 413, 'request_too_large');
    expect(spec.body.detail).toContain('SERVICE_DATA_MAX_FILTER_VALUES');
    const page = await bounded.exported('count', { filters: groups(11), format: 'html' });
    expect(page.status).toBe(413);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('SERVICE_DATA_MAX_FILTER_VALUES');
    // At the limit, it exports: G0…G9 hold 100 rows each.
    const within = await bounded.exported('count', { filters: groups(10) });
    expect(within.status, within.text).toBe(200);
    expect(within.body).toMatchObject({ spec: { value: 1000 } });
  });

  it('refuses a component whose answer is beyond the answer’s size: 413 naming the limit', async () => {
    const spec = await bounded.exported('big');
    expectProblem(spec, 413, 'request_too_large');
    expect(spec.body.detail).toContain('SERVICE_DATA_MAX_ANSWER_BYTES');
    const page = await bounded.exported('big', { format: 'html' });
    expect(page.status).toBe(413);
    expect(page.text).toContain('SERVICE_DATA_MAX_ANSWER_BYTES');
    // The server is free for the next request.
    expect(bounded.server.context.requestWork.stats.running).toBe(0);
    expect((await bounded.exported('count')).status).toBe(200);
  });
});

describe('a query beyond SERVICE_DATA_STATEMENT_TIMEOUT_SECONDS', () => {
  let bounded: Awaited<ReturnType<typeof world>>;
  let server: TestServer | undefined;

  beforeAll(async () => {
    // A million rows: ranking their samples takes a few hundred milliseconds, ten times the
    // limit, while a count's statements take a few.
    bounded = await world({ SERVICE_DATA_STATEMENT_TIMEOUT_SECONDS: '0.03' }, BIG);
    server = bounded.server;
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('stops an export with 504 time_limit_exceeded, as a spec and as a page', async () => {
    const spec = await bounded.exported('slow');
    expectProblem(spec, 504, 'time_limit_exceeded');
    expect(spec.body.detail).toContain('SERVICE_DATA_STATEMENT_TIMEOUT_SECONDS');
    const page = await bounded.exported('slow', { format: 'html' });
    expect(page.status).toBe(504);
    expect(page.text).toContain('SERVICE_DATA_STATEMENT_TIMEOUT_SECONDS');
    // A quick one on the same rows exports.
    const quick = await bounded.exported('count');
    expect(quick.status, quick.text).toBe(200);
  });

  it('answers time_limit_exceeded in the slot of the data route’s component it stopped', async () => {
    const answer = await bounded.data({ components: ['slow', 'count'] });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.components.slow?.error).toMatchObject({ code: 'time_limit_exceeded' });
    expect(answer.body.components.slow?.error?.message).toContain('SERVICE_DATA_STATEMENT_TIMEOUT_SECONDS');
    expect(answer.body.components.count).toMatchObject({ value: BIG });
  });
});

describe('a request beyond SERVICE_DATA_REQUEST_TIMEOUT_SECONDS', () => {
  let bounded: Awaited<ReturnType<typeof world>>;
  let server: TestServer | undefined;

  beforeAll(async () => {
    bounded = await world({ SERVICE_DATA_REQUEST_TIMEOUT_SECONDS: '0.05' });
    server = bounded.server;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('stops the data route’s request with 504 time_limit_exceeded naming the limit', async () => {
    const answer = await bounded.data({ components: ['slow', 'big', 'count'] });
    expectProblem(answer, 504, 'time_limit_exceeded');
    expect(answer.body.detail).toContain('SERVICE_DATA_REQUEST_TIMEOUT_SECONDS');
    expect(bounded.server.context.requestWork.stats.stopped.time_limit).toBeGreaterThanOrEqual(1);
    expect(bounded.server.context.requestWork.stats.running).toBe(0);
  });

  it('says so in the remaining slots of a stream', async () => {
    const response = await fetch(`${bounded.server.url}${API_PREFIX}/dashboards/${bounded.dashboardId}/data`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${bounded.token}`,
        'content-type': 'application/json',
        accept: 'application/x-ndjson',
      },
      // Filtered, so that no answer the test before kept is reused.
      body: JSON.stringify({ components: ['slow', 'big'], filters: JSON.parse(groups(500)) }),
    });
    expect(response.status).toBe(200);
    const slots = (await response.text())
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line) as { component_id: string; data: { error?: { code: string } } });
    expect(slots.map((slot) => slot.component_id).sort()).toEqual(['big', 'slow']);
    expect(slots.some((slot) => slot.data.error?.code === 'time_limit_exceeded')).toBe(true);
  });

  it('stops an export with 504 too', async () => {
    const spec = await bounded.exported('slow', { filters: groups(400) });
    expectProblem(spec, 504, 'time_limit_exceeded');
    expect(spec.body.detail).toContain('SERVICE_DATA_REQUEST_TIMEOUT_SECONDS');
  });
});
