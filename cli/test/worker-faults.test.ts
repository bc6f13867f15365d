import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import { expect, inject, it } from 'vitest';
import { createProbeTable, PROBE_KIND } from '../../bench/src/probe/probe.js';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createTestDatabase,
  describeEachDialect,
  login,
  startTestServer,
} from '../../test/support/test-server.js';
import { exitOf, PROBE_WORKER } from './run-cli.js';

/** `service worker` that can also run the benchmark's `queue.probe` (see bench/src/probe). */
function startWorker(database: { url: string; dataDir: string }, concurrency = 1) {
  const worker = spawn(process.execPath, [PROBE_WORKER, '--concurrency', String(concurrency)], {
    env: {
      PATH: process.env.PATH,
      SERVICE_DATABASE_URL: database.url,
      SERVICE_DATA_DIR: database.dataDir,
      SERVICE_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  worker.stderr.resume();
  return worker;
}

/** Resolves once the worker has said it is running (its LISTEN connection is open by then). */
function running(worker: ReturnType<typeof startWorker>): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${stderr}`)), 60_000);
    worker.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('Worker running')) {
        clearTimeout(timer);
        resolve();
      }
    });
    worker.once('exit', (code) => reject(new Error(`worker exited with ${code}: ${stderr}`)));
  });
}

const PROBES = 1_000;
const WORKERS = 4;

it.skipIf(inject('postgresAdminUrl') === '')(
  `runs ${PROBES} jobs through ${WORKERS} worker processes exactly once each, losing none`,
  async () => {
    const database = await createTestDatabase('postgres');
    const api = await startTestServer(database, { SERVICE_JOBS_WORKERS: '0' });
    await createProbeTable(api.context.database.db);
    const workers = Array.from({ length: WORKERS }, () => startWorker(database, 2));
    try {
      await Promise.all(workers.map(running));
      const { jobs } = api.context;
      // Enqueued while the workers already claim, ten at a time, so enqueues and claims interleave.
      const ids: string[] = [];
      for (let batch = 0; batch < PROBES / 10; batch++) {
        const rows = await Promise.all(
          Array.from({ length: 10 }, () =>
            jobs.enqueue(PROBE_KIND, { record: true }, { userId: null, projectId: null }),
          ),
        );
        ids.push(...rows.map((row) => row.job_id));
      }
      const db = api.context.database.db;
      const unfinished = () =>
        db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', 'in', ['pending', 'running'])
          .executeTakeFirstOrThrow();
      for (let i = 0; i < 1200 && (await unfinished()).n > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }

      const ended = await db.selectFrom('jobs').select(['job_id', 'status', 'attempts']).execute();
      expect(ended).toHaveLength(PROBES);
      expect(new Set(ended.map((job) => job.job_id))).toEqual(new Set(ids));
      expect(ended.filter((job) => job.status !== 'success' || job.attempts !== 1)).toEqual([]);
      // What the jobs themselves recorded, one row per execution: every job exactly once.
      const executions = await sql<{ job_id: string; runs: number }>`
        select job_id, count(*)::int as runs from queue_probe_runs group by job_id`.execute(db);
      expect(executions.rows).toHaveLength(PROBES);
      expect(executions.rows.filter((row) => row.runs !== 1)).toEqual([]);
      const workersThatRan = await sql<{ worker: string }>`select distinct worker from queue_probe_runs`.execute(db);
      expect(workersThatRan.rows).toHaveLength(WORKERS);
      for (const worker of workers) expect(worker.exitCode).toBeNull();
    } finally {
      for (const worker of workers) worker.kill('SIGTERM');
      const codes = await Promise.all(workers.map(exitOf));
      await api.stop();
      await database.drop();
      expect(codes).toEqual(workers.map(() => 0));
    }
  },
  180_000,
);

describeEachDialect('a worker killed mid-upsert', (dialect) => {
  it('has its job recovered by another worker, and the table holds exactly one complete write', async () => {
    const database = await createTestDatabase(dialect);
    const api = await startTestServer(database, { SERVICE_JOBS_WORKERS: '0' });
    const doomed = startWorker(database);
    let rescuer: ReturnType<typeof startWorker> | undefined;
    try {
      const { access_token: token } = await login(api, ADMIN.email, ADMIN.password);
      const rows = Array.from({ length: 1_000_000 }, (_, i) => `${i},${i % 13}`).join('\n');
      const { collectionId } = await createProjectWithUpload(api, token, 'killed', `a,b\n${rows}\n`);
      const accepted = await call<{ job_id: string }>(api, 'POST', '/deltatables/upsert', {
        token,
        json: { data_collection_id: collectionId, async_mode: true },
      });
      const jobs = api.context.jobs;
      for (let i = 0; i < 300 && (await jobs.get(accepted.body.job_id))?.status !== 'running'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect((await jobs.get(accepted.body.job_id))?.status).toBe('running');
      doomed.kill('SIGKILL');
      await exitOf(doomed);

      // Let the dead worker's lease run out now rather than waiting 15 s, then recover the job.
      await api.context.database.db
        .updateTable('jobs')
        .set({ lease_expires_at: '2000-01-01T00:00:00.000Z' })
        .where('job_id', '=', accepted.body.job_id)
        .execute();
      expect(await jobs.recoverExpired()).toBe(1);
      rescuer = startWorker(database);
      let job = await jobs.get(accepted.body.job_id);
      for (let i = 0; i < 600 && job && !['success', 'failed', 'cancelled'].includes(job.status); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        job = await jobs.get(accepted.body.job_id);
      }
      expect(job?.status).toBe('success');
      expect(job?.attempts).toBe(2);
      const preview = await call<{ total: number }>(api, 'GET', `/datacollections/${collectionId}/preview?limit=1`, {
        token,
      });
      expect(preview.body.total).toBe(1_000_000);
      const versions = await call<{ items: unknown[] }>(api, 'GET', `/datacollections/${collectionId}/versions`, {
        token,
      });
      expect(versions.body.items).toHaveLength(1);
    } finally {
      doomed.kill('SIGKILL');
      rescuer?.kill('SIGTERM');
      if (rescuer) await exitOf(rescuer);
      await api.stop();
      await database.drop();
    }
  }, 120_000);
});
