import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import {
  call,
  createProjectWithUpload,
  createTestDatabase,
  type Session,
  startTestServer,
} from '../../../test/support/test-server.js';
import { HEARTBEAT } from './fixture.js';
import { dataOf, openStream } from './sse-client.js';

/** The built CLI (`npx tsc -b`): its worker is a separate OS process. */
const CLI = fileURLToPath(new URL('../../../cli/dist/main.js', import.meta.url));

/**
 * On SQLite there is no NOTIFY: an API process reads the events another process sharing the file
 * wrote when SQLite's data_version moves (docs/live-data.md "How it works"). Here a separate
 * `service worker` runs a temporary user's upsert; its events reach that user's stream on the API.
 */
it('delivers the events of a separate worker process to a temporary user on SQLite', async () => {
  const database = await createTestDatabase('sqlite');
  const api = await startTestServer(database, {
    ...HEARTBEAT,
    SERVICE_AUTH_PUBLIC_MODE: 'true',
    // Jobs run only in the worker process.
    SERVICE_JOBS_WORKERS: '0',
  });
  const worker = spawn(process.execPath, [CLI, 'worker', '--concurrency', '1'], {
    env: { PATH: process.env.PATH, SERVICE_DATABASE_URL: database.url, SERVICE_DATA_DIR: database.dataDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
  let stderr = '';
  const running = new Promise<void>((resolve, reject) => {
    worker.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('Worker running')) resolve();
    });
    void exited.then((code) => reject(new Error(`worker exited with ${code}: ${stderr}`)));
  });
  // Awaited once the project is made; a worker that dies before is reported there, not as unhandled.
  running.catch(() => undefined);
  try {
    const temporary = await call<Session & { user: { is_temporary: boolean } }>(
      api,
      'POST',
      '/auth/public/create_temporary_user',
    );
    expect(temporary.status, temporary.text).toBe(201);
    expect(temporary.body.user.is_temporary).toBe(true);
    const token = temporary.body.access_token;
    const { projectId, collectionId } = await createProjectWithUpload(api, token, 'worker events');
    await running;
    const stream = await openStream(api, `?project_id=${projectId}`, { token });
    expect(stream.status).toBe(200);
    await stream.until((s) => s.lastEventId !== null);
    const queued = await call<{ job_id: string }>(api, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: collectionId, async_mode: true },
    });
    expect(queued.status, queued.text).toBe(202);
    const jobId = queued.body.job_id;
    // The worker claims the job, commits the version and ends the job: each an event it wrote.
    await stream.until(
      (s) =>
        dataOf<{ job_id: string; status: string }>(s, 'job').some(
          (job) => job.job_id === jobId && job.status === 'success',
        ),
      60_000,
    );
    const job = await api.context.jobs.get(jobId);
    const version = (JSON.parse(job?.result ?? '{}') as { version: number }).version;
    await stream.until((s) =>
      dataOf<{ data_collection_id: string; version: number }>(s, 'version').some(
        (event) => event.data_collection_id === collectionId && event.version === version,
      ),
    );
    const statuses = dataOf<{ job_id: string; status: string }>(stream, 'job')
      .filter((event) => event.job_id === jobId)
      .map((event) => event.status);
    expect(statuses).toContain('running');
    stream.close();
  } finally {
    worker.kill('SIGTERM');
    const code = await exited;
    await api.stop();
    await database.drop();
    expect(code).toBe(0);
  }
}, 120_000);
