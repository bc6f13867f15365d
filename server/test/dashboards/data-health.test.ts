import { API_PREFIX } from '@service/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type TestServer } from '../../../test/support/test-server.js';
import { projectWithTable, serverWithPeople } from './analytics-table.js';

/**
 * Issue 23, finding 2: while the worst request the limits allow runs (every cap reached: 50
 * previews, 2000 filter values, an answer just under SERVICE_DATA_MAX_ANSWER_BYTES), the server
 * still answers `/health` at once. No wall-clock limit: health answers must keep coming while the
 * data request runs, each far quicker than the request itself.
 */
const ROWS = 100_000;
const CSV = [
  'sample,grp,x,y',
  ...Array.from({ length: ROWS }, (_, i) => `S${i},G${i % 1000},${(i * 7919) % 10007},${(i * 104729) % 9973}`),
  '',
].join('\n');
/** Filter values: two widgets on `grp`, each given all of its 1000 groups (2000, the default limit). */
const GROUPS = Array.from({ length: 1000 }, (_, i) => `G${i}`);
/**
 * Heatmaps of 500 × 500 bins over `x` and `y` (about 92,000 cells, 2 MB of JSON each) beside
 * histograms of 500 bins (13 KB): seven of them make a 14.8 MB answer, an eighth one beyond 16 MiB.
 */
const HEATMAPS_UNDER_THE_CAP = 7;

interface Timed {
  status: number;
  text: string;
  startedAt: number;
  endedAt: number;
}

/** One request, timed from its start until its whole body has arrived. */
async function timed(request: () => Promise<Response>): Promise<Timed> {
  const startedAt = performance.now();
  const response = await request();
  const text = await response.text();
  return { status: response.status, text, startedAt, endedAt: performance.now() };
}

describe('/health while the heaviest data request runs', () => {
  let server: TestServer;
  let token: string;
  let dashboardId: string;
  let collectionId: string;

  beforeAll(async () => {
    const people = await serverWithPeople('sqlite');
    server = people.server;
    token = (await people.session('owner@example.org')).access_token;
    const project = await projectWithTable(server, token, 'Big', CSV);
    collectionId = project.collectionId;
    const widget = (id: string) => ({
      component_id: id,
      type: 'interactive',
      widget: 'multiselect',
      data_collection_id: collectionId,
      column: 'grp',
    });
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: { project_id: project.projectId, title: 'Heavy', components: [widget('groups'), widget('again')] },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
    // The first request loads the modules it runs (vitest evaluates them on first use, holding
    // the loop meanwhile): done here, not while the test measures.
    const warm = await post(previews(1, 1));
    expect(warm.status).toBe(200);
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  });

  const heatmap = (index: number) => ({
    component_id: `heat${index}`,
    type: 'figure',
    chart: 'heatmap',
    data_collection_id: collectionId,
    x: 'x',
    y: 'y',
    bins: 500,
  });
  const histogram = (index: number) => ({
    component_id: `hist${index}`,
    type: 'figure',
    chart: 'histogram',
    data_collection_id: collectionId,
    x: index % 2 ? 'x' : 'y',
    bins: 500,
  });
  /** `total` previews, the first `heatmaps` of them heatmaps, under 2000 filter values. */
  const previews = (total: number, heatmaps: number) => ({
    preview: Array.from({ length: total }, (_, index) => (index < heatmaps ? heatmap(index) : histogram(index))),
    filters: [
      { component_id: 'groups', value: GROUPS },
      { component_id: 'again', value: GROUPS },
    ],
  });
  function post(body: unknown): Promise<Response> {
    return fetch(`${server.url}${API_PREFIX}/dashboards/${dashboardId}/data`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  /** Runs the data request while asking `/health` again and again until it has answered. */
  async function healthDuring(body: unknown) {
    let finished = false;
    const data = timed(() => post(body)).finally(() => {
      finished = true;
    });
    const health: Timed[] = [];
    while (!finished) health.push(await timed(() => fetch(`${server.url}/health`)));
    const answer = await data;
    // Answers that came back while the data request was still running.
    const during = health.filter((probe) => probe.endedAt < answer.endedAt);
    const latencies = health.map((probe) => probe.endedAt - probe.startedAt);
    return { answer, health, during, slowest: Math.max(...latencies), took: answer.endedAt - answer.startedAt };
  }

  it('answers /health all along the largest answer the limits allow', async () => {
    const { answer, health, during, slowest, took } = await healthDuring(previews(50, HEATMAPS_UNDER_THE_CAP));
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    // Every cap reached: 50 previews, 2000 filter values, an answer just under 16 MiB.
    const components = (JSON.parse(answer.text) as { components: Record<string, unknown> }).components;
    expect(Object.keys(components)).toHaveLength(50);
    expect(answer.text.length).toBeGreaterThan(14 * 1024 ** 2);
    expect(answer.text.length).toBeLessThan(16 * 1024 ** 2);
    expect(health.every((probe) => probe.status === 200)).toBe(true);
    // A steady flow of health answers while it ran, none held for long.
    expect(during.length).toBeGreaterThanOrEqual(10);
    expect(slowest).toBeLessThan(took / 4);
  }, 120_000);

  it('refuses a request beyond the answer’s size with 413, answering /health meanwhile', async () => {
    const { answer, health, during, slowest, took } = await healthDuring(previews(50, 50));
    expect(answer.status, answer.text.slice(0, 300)).toBe(413);
    const problem = JSON.parse(answer.text) as { code: string; detail: string };
    expect(problem.code).toBe('request_too_large');
    expect(problem.detail).toMatch(/SERVICE_DATA_MAX_ANSWER_(BYTES|CELLS)/);
    expect(health.every((probe) => probe.status === 200)).toBe(true);
    expect(during.length).toBeGreaterThanOrEqual(5);
    expect(slowest).toBeLessThan(took / 4);
    // The work stopped: the server is free for the next request.
    expect(server.context.requestWork.stats.running).toBe(0);
  }, 120_000);
});

describe('values one request may read (SERVICE_DATA_MAX_ANSWER_CELLS)', () => {
  let server: TestServer;
  let token: string;
  let dashboardId: string;
  let collectionId: string;

  beforeAll(async () => {
    const people = await serverWithPeople('sqlite', { SERVICE_DATA_MAX_ANSWER_CELLS: '10000' });
    server = people.server;
    token = (await people.session('owner@example.org')).access_token;
    const project = await projectWithTable(server, token, 'Big', CSV);
    collectionId = project.collectionId;
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: { project_id: project.projectId, title: 'Cells', components: [] },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  });

  const preview = (bins: number) => ({
    preview: [
      {
        component_id: 'heat',
        type: 'figure',
        chart: 'heatmap',
        data_collection_id: collectionId,
        x: 'x',
        y: 'y',
        bins,
      },
    ],
  });

  it('refuses with 413 naming the limit once a request reads more values, and stops its work', async () => {
    const answer = await call<{ code: string; detail: string }>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token,
      json: preview(500),
    });
    expect(answer.status, answer.text).toBe(413);
    expect(answer.body.code).toBe('request_too_large');
    expect(answer.body.detail).toContain('SERVICE_DATA_MAX_ANSWER_CELLS');
    expect(server.context.requestWork.stats.stopped.answer_too_large).toBe(1);
    // A smaller one (20 × 20 bins: at most 400 cells) reads within the limit.
    const small = await call(server, 'POST', `/dashboards/${dashboardId}/data`, { token, json: preview(20) });
    expect(small.status, small.text).toBe(200);
  });
});
