import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createTestDatabase,
  describeEachDialect,
  login,
  startTestServer,
} from '../../test/support/test-server.js';
import { CLI, exitOf } from './run-cli.js';

function startWorker(database: { url: string; dataDir: string }) {
  const worker = spawn(process.execPath, [CLI, 'worker', '--concurrency', '1'], {
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
