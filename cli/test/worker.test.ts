import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import { expect, it, vi } from 'vitest';
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

// A hang guard, not a speed check: these cases start Node processes that each load the server and
// DuckDB, which on a loaded two-core machine has taken more than the default 30 s.
vi.setConfig({ testTimeout: 120_000 });

describeEachDialect('service worker', (dialect) => {
  it('runs the jobs an API replica without workers queues, and stops cleanly on SIGTERM', async () => {
    const database = await createTestDatabase(dialect);
    const api = await startTestServer(database, { SERVICE_JOBS_WORKERS: '0' });
    const worker = spawn(process.execPath, [CLI, 'worker', '--concurrency', '1'], {
      env: {
        PATH: process.env.PATH,
        SERVICE_DATABASE_URL: database.url,
        SERVICE_DATA_DIR: database.dataDir,
        SERVICE_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    worker.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`worker did not start: ${stderr}`)), 20_000);
        worker.stderr.on('data', () => {
          if (stderr.includes('Worker running')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      if (dialect === 'postgres') {
        // The worker waits on LISTEN (woken by the NOTIFY each enqueue sends), not only on polling.
        const listeners = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and query = 'LISTEN service_jobs'`.execute(api.context.database.db);
        expect(listeners.rows[0]?.n).toBe(1);
      }
      const { access_token: token } = await login(api, ADMIN.email, ADMIN.password);
      const { collectionId } = await createProjectWithUpload(api, token, 'w', 'a\n1\n2\n');
      const accepted = await call<{ job_id: string }>(api, 'POST', '/deltatables/upsert', {
        token,
        json: { data_collection_id: collectionId, async_mode: true },
      });
      expect(accepted.status).toBe(202);
      let status = 'pending';
      for (let i = 0; i < 200 && (status === 'pending' || status === 'running'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await call<{ status: string }>(api, 'GET', `/jobs/${accepted.body.job_id}`, { token })).body.status;
      }
      expect(status).toBe('success');
      worker.kill('SIGTERM');
      expect(await exitOf(worker)).toBe(0);
    } finally {
      worker.kill('SIGKILL');
      await api.stop();
      await database.drop();
    }
  });
});
