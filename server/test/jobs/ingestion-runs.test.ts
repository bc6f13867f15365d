import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createTestDatabase,
  describeEachDialect,
  login,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

interface Triggered {
  job_id: string;
  run_id: string;
  already_running: boolean;
}
interface Run {
  run_id: string;
  job_id: string | null;
  status: string;
  finished_at: string | null;
  error: { code: string; message: string } | null;
}

// No workers: every job stays where the test puts it (pending, or claimed by a named worker).
describeEachDialect('an ingestion run ends with its job', (dialect) => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_JOBS_WORKERS: '0' });
    token = (await login(server, ADMIN.email, ADMIN.password)).access_token;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const trigger = (projectId: string) =>
    call<Triggered>(server, 'POST', `/projects/ingestion/trigger/${projectId}`, { token });
  const run = async (projectId: string, runId: string) => {
    const runs = await call<{ items: Run[] }>(server, 'GET', `/projects/ingestion-runs/${projectId}`, { token });
    const found = runs.body.items.find((item) => item.run_id === runId);
    if (!found) throw new Error(`run ${runId} not listed`);
    return found;
  };
  /** Asserts the trigger starts a new ingestion, then cancels its job so later claims do not take it. */
  const startsAnew = async (projectId: string, previousRunId: string) => {
    const answer = await trigger(projectId);
    expect(answer.status).toBe(202);
    expect(answer.body.already_running).toBe(false);
    expect(answer.body.run_id).not.toBe(previousRunId);
    await server.context.jobs.cancel(answer.body.job_id);
  };
  const expireLease = (jobId: string) =>
    server.context.database.db
      .updateTable('jobs')
      .set({ lease_expires_at: '2000-01-01T00:00:00.000Z' })
      .where('job_id', '=', jobId)
      .execute();

  it('cancelling a pending ingestion job cancels its run, and the project can be ingested again', async () => {
    const { projectId } = await createProjectWithUpload(server, token, 'cancelled while pending');
    const first = await trigger(projectId);
    expect(first.status).toBe(202);
    expect((await server.context.jobs.get(first.body.job_id))?.status).toBe('pending');

    const cancelled = await call(server, 'POST', `/jobs/${first.body.job_id}/cancel`, { token });
    expect(cancelled.body.status).toBe('cancelled');
    expect(await run(projectId, first.body.run_id)).toMatchObject({
      status: 'cancelled',
      error: { code: 'cancelled' },
      finished_at: expect.any(String),
    });

    await startsAnew(projectId, first.body.run_id);
  });

  it('cancelling a running ingestion job cancels its run at once, even if its worker never looks again', async () => {
    const { projectId } = await createProjectWithUpload(server, token, 'cancelled while running');
    const first = await trigger(projectId);
    expect((await server.context.jobs.claim('stuck-worker'))?.job_id).toBe(first.body.job_id);
    await call(server, 'POST', `/jobs/${first.body.job_id}/cancel`, { token });
    expect((await run(projectId, first.body.run_id)).status).toBe('cancelled');
    await startsAnew(projectId, first.body.run_id);
  });

  it('a failed ingestion job fails its run', async () => {
    const { projectId } = await createProjectWithUpload(server, token, 'failed');
    const first = await trigger(projectId);
    const { jobs } = server.context;
    expect((await jobs.claim('failing-worker'))?.job_id).toBe(first.body.job_id);
    expect(await jobs.fail(first.body.job_id, 'failing-worker', { code: 'internal_error', message: 'boom' })).toBe(
      true,
    );
    expect(await run(projectId, first.body.run_id)).toMatchObject({
      status: 'failed',
      error: { code: 'internal_error', message: 'boom' },
    });
    await startsAnew(projectId, first.body.run_id);
  });

  it('a job whose worker died stays the running ingestion while it is retried, and fails its run once its attempts are used up', async () => {
    const { projectId } = await createProjectWithUpload(server, token, 'worker lost');
    const first = await trigger(projectId);
    const { jobs } = server.context;
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect((await jobs.claim(`dying-${attempt}`))?.job_id).toBe(first.body.job_id);
      await expireLease(first.body.job_id);
      expect(await jobs.recoverExpired()).toBe(1);
      const job = await jobs.get(first.body.job_id);
      if (attempt < 3) {
        // Back in the queue: the run is still the project's ingestion in progress.
        expect(job?.status).toBe('pending');
        expect((await run(projectId, first.body.run_id)).status).toBe('pending');
        const answer = await trigger(projectId);
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({ job_id: first.body.job_id, run_id: first.body.run_id, already_running: true });
      } else {
        expect(job?.status).toBe('failed');
      }
    }
    expect(await run(projectId, first.body.run_id)).toMatchObject({ status: 'failed', error: { code: 'worker_lost' } });
    await startsAnew(projectId, first.body.run_id);
  });

  it('does not count a job whose worker died with its last attempt as running, with no worker left to notice', async () => {
    const { projectId } = await createProjectWithUpload(server, token, 'last worker lost');
    const first = await trigger(projectId);
    const { jobs } = server.context;
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect((await jobs.claim(`dying-${attempt}`))?.job_id).toBe(first.body.job_id);
      await expireLease(first.body.job_id);
      // The recovery sweep of a live worker; none runs after the last attempt's worker died.
      if (attempt < 3) expect(await jobs.recoverExpired()).toBe(1);
    }
    expect(await jobs.get(first.body.job_id)).toMatchObject({ status: 'running', attempts: 3 });
    await startsAnew(projectId, first.body.run_id);
    expect(await jobs.get(first.body.job_id)).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('worker_lost'),
    });
    expect(await run(projectId, first.body.run_id)).toMatchObject({ status: 'failed', error: { code: 'worker_lost' } });
  });

  it('never answers already_running with a run whose job has ended, however the run was left behind', async () => {
    const { projectId } = await createProjectWithUpload(server, token, 'left behind');
    const first = await trigger(projectId);
    // As versions before runs ended with their jobs left it: job cancelled, run still pending.
    await server.context.database.db
      .updateTable('jobs')
      .set({ status: 'cancelled', cancel_requested: 1, finished_at: new Date().toISOString() })
      .where('job_id', '=', first.body.job_id)
      .execute();
    expect((await run(projectId, first.body.run_id)).status).toBe('pending');
    await startsAnew(projectId, first.body.run_id);
    expect((await run(projectId, first.body.run_id)).status).toBe('cancelled');
  });
});

describeEachDialect('startup repair of ingestion runs', (dialect) => {
  it('ends, at startup, runs left active by jobs that ended without them', async () => {
    const database = await createTestDatabase(dialect);
    try {
      const first = await startTestServer(database, { SERVICE_JOBS_WORKERS: '0' });
      let cancelledRun: string;
      let failedRun: string;
      let pendingRun: string;
      let projects: string[];
      try {
        const token = (await login(first, ADMIN.email, ADMIN.password)).access_token;
        projects = [];
        const runs: Triggered[] = [];
        for (const name of ['a', 'b', 'c']) {
          const { projectId } = await createProjectWithUpload(first, token, name);
          projects.push(projectId);
          runs.push((await call<Triggered>(first, 'POST', `/projects/ingestion/trigger/${projectId}`, { token })).body);
        }
        const [cancelled, failed, pending] = runs as [Triggered, Triggered, Triggered];
        cancelledRun = cancelled.run_id;
        failedRun = failed.run_id;
        pendingRun = pending.run_id;
        // Ended the way older versions ended them, leaving their runs pending.
        const db = first.context.database.db;
        await db.updateTable('jobs').set({ status: 'cancelled' }).where('job_id', '=', cancelled.job_id).execute();
        await db
          .updateTable('jobs')
          .set({ status: 'failed', error: JSON.stringify({ code: 'worker_lost', message: 'lost' }) })
          .where('job_id', '=', failed.job_id)
          .execute();
      } finally {
        await first.stop();
      }

      const second = await startTestServer(database, { SERVICE_JOBS_WORKERS: '0' });
      try {
        const runs = await second.context.database.db
          .selectFrom('ingestion_runs')
          .select(['id', 'status', 'error'])
          .execute();
        const byId = new Map(runs.map((row) => [row.id, row]));
        expect(byId.get(cancelledRun)?.status).toBe('cancelled');
        expect(byId.get(failedRun)).toMatchObject({ status: 'failed' });
        expect(JSON.parse(byId.get(failedRun)?.error ?? '{}')).toMatchObject({ code: 'worker_lost' });
        // Its job is still pending: the run stays the project's ingestion in progress.
        expect(byId.get(pendingRun)?.status).toBe('pending');
      } finally {
        await second.stop();
      }
    } finally {
      await database.drop();
    }
  });
});
