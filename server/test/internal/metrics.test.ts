import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { createWorkerPool } from '../../src/server.js';

const INTERNAL_KEY = 'metrics-internal-key-of-at-least-32-characters';

/** The value of one sample of /metrics, e.g. `jobs_queued` or `http_requests_total{method="GET",…}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describeEachDialect('Prometheus metrics at /metrics', (dialect) => {
  let server: TestServer;
  let admin: Session;
  const scrape = async () => {
    const answer = await fetch(`${server.url}/metrics`, { headers: { 'x-internal-key': INTERNAL_KEY } });
    expect(answer.status).toBe(200);
    return answer.text();
  };

  beforeAll(async () => {
    // No in-process workers: jobs stay queued until the test starts a worker pool.
    server = await startTestServer(dialect, {
      SERVICE_AUTH_INTERNAL_API_KEY_ENV: INTERNAL_KEY,
      SERVICE_JOBS_WORKERS: '0',
    });
    admin = await login(server, ADMIN.email, ADMIN.password);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('counts requests and their durations by method, route and status', async () => {
    const route = '/service/api/v1/projects/:id';
    const series = (name: string, status: number) => `${name}{method="GET",route="${route}",status="${status}"}`;
    const before = await scrape();
    const missing = '00000000-0000-7000-8000-000000000000';
    for (let i = 0; i < 3; i++) {
      expect((await call(server, 'GET', `/projects/${missing}`, { token: admin.access_token })).status).toBe(404);
    }
    const after = await scrape();
    const grown = (name: string) => (sample(after, name) ?? 0) - (sample(before, name) ?? 0);
    expect(grown(series('http_requests_total', 404))).toBe(3);
    expect(grown(series('http_request_duration_seconds_count', 404))).toBe(3);
    expect(sample(after, series('http_requests_total', 200))).toBeUndefined();
    expect(after).toMatch(
      new RegExp(
        `^http_request_duration_seconds_bucket\\{le="\\+Inf",method="GET",route="${route.replaceAll('/', '\\/')}",status="404"\\} \\d+$`,
        'm',
      ),
    );
  });

  it('reports queued and running jobs and the oldest wait from the database, and Delta commits', async () => {
    const idle = await scrape();
    expect(sample(idle, 'jobs_queued')).toBe(0);
    expect(sample(idle, 'jobs_running')).toBe(0);
    expect(sample(idle, 'jobs_oldest_pending_age_seconds')).toBe(0);
    const commitsBefore = sample(idle, 'delta_commits')!;

    const { collectionId } = await createProjectWithUpload(server, admin.access_token, 'metrics');
    const accepted = await call<{ job_id: string }>(server, 'POST', '/deltatables/upsert', {
      token: admin.access_token,
      json: { data_collection_id: collectionId, async_mode: true },
    });
    expect(accepted.status).toBe(202);
    const queued = await scrape();
    expect(sample(queued, 'jobs_queued')).toBe(1);
    expect(sample(queued, 'jobs_running')).toBe(0);
    expect(sample(queued, 'jobs_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(0);

    // A worker elsewhere (here: the queue itself, as `service worker` would) takes it and hands it back.
    const claimed = await server.context.jobs.claim('metrics-test-worker');
    expect(claimed?.job_id).toBe(accepted.body.job_id);
    const running = await scrape();
    expect(sample(running, 'jobs_queued')).toBe(0);
    expect(sample(running, 'jobs_running')).toBe(1);
    expect(await server.context.jobs.release(accepted.body.job_id, 'metrics-test-worker')).toBe(true);

    const pool = createWorkerPool(server.context, pino({ level: 'silent' }), 1);
    await pool.start();
    try {
      for (;;) {
        const job = await server.context.jobs.get(accepted.body.job_id);
        if (job?.status === 'success') break;
        expect(job?.status).not.toMatch(/failed|cancelled/);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await pool.stop();
    }
    const done = await scrape();
    expect(sample(done, 'jobs_queued')).toBe(0);
    expect(sample(done, 'jobs_running')).toBe(0);
    expect(sample(done, 'delta_commits')).toBe(commitsBefore + 1);
    expect(sample(done, 'delta_last_commit_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 600);
  });

  it('shows the dashboard answer cache and stays closed without the internal key', async () => {
    const text = await scrape();
    expect(sample(text, 'dashboard_answer_cache_total{result="hit"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'dashboard_answer_cache_total{result="miss"}')).toBeGreaterThanOrEqual(0);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
  });
});

// A PostgreSQL database can vanish under a running server; a SQLite file cannot in the same way.
describe('Prometheus metrics without the database', () => {
  it('keeps answering while the database is gone, saying the database figures are stale', async () => {
    const other = await startTestServer('postgres', { SERVICE_AUTH_INTERNAL_API_KEY_ENV: INTERNAL_KEY });
    try {
      const scrapeOther = async () => {
        const answer = await fetch(`${other.url}/metrics`, { headers: { 'x-internal-key': INTERNAL_KEY } });
        expect(answer.status).toBe(200);
        return answer.text();
      };
      expect(sample(await scrapeOther(), 'database_metrics_up')).toBe(1);
      await other.database.drop();
      const text = await scrapeOther();
      expect(sample(text, 'database_metrics_up')).toBe(0);
      expect(sample(text, 'jobs_queued')).toBe(0);
      expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    } finally {
      await other.stop();
    }
  });
});
