import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createUser,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

interface Job {
  job_id: string;
  kind: string;
  status: string;
  step: string | null;
  progress: number | null;
  result?: Record<string, unknown>;
  error?: { code: string; message: string };
  poll_after_seconds: number | null;
  code?: string;
}

/** Polls `done` until it answers true (every 25 ms, for at most 20 s). */
async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 800; i++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

async function waitForJob(server: TestServer, token: string, jobId: string): Promise<Job> {
  for (let i = 0; i < 200; i++) {
    const job = await call<Job>(server, 'GET', `/jobs/${jobId}`, { token });
    if (job.body.poll_after_seconds === null) return job.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job ${jobId} did not end`);
}

describeEachDialect('jobs', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let ada: Session;
  let bob: Session;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    admin = await login(server, ADMIN.email, ADMIN.password);
    ada = await createUser(server, admin.access_token, 'ada@example.org');
    bob = await createUser(server, admin.access_token, 'bob@example.org');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('runs an async upsert as a job that pollers watch to the end', async () => {
    const { collectionId, projectId } = await createProjectWithUpload(server, ada.access_token, 'async');
    const accepted = await call<{ job_id: string }>(server, 'POST', '/deltatables/upsert', {
      token: ada.access_token,
      json: { data_collection_id: collectionId, async_mode: true },
    });
    expect(accepted.status).toBe(202);
    const first = await call<Job>(server, 'GET', `/jobs/${accepted.body.job_id}`, { token: ada.access_token });
    expect(first.body.kind).toBe('deltatable.upsert');
    expect(first.body.poll_after_seconds).toBe(first.body.poll_after_seconds === null ? null : 1);
    const done = await waitForJob(server, ada.access_token, accepted.body.job_id);
    expect(done).toMatchObject({
      status: 'success',
      progress: 1,
      poll_after_seconds: null,
      result: { rows: 2, version: 0 },
    });

    const mine = await call<{ items: Job[]; total: number }>(server, 'GET', `/jobs?project_id=${projectId}`, {
      token: ada.access_token,
    });
    expect(mine.body.items.map((job) => job.job_id)).toEqual([accepted.body.job_id]);
    const filtered = await call<{ total: number }>(server, 'GET', '/jobs?kind=project.ingest', {
      token: ada.access_token,
    });
    expect(filtered.body.total).toBe(0);
  });

  it('hides other users’ jobs exactly like missing ones, shows admins everything, and validates the list query', async () => {
    const { collectionId } = await createProjectWithUpload(server, ada.access_token, 'private jobs');
    const job = await call<{ job_id: string }>(server, 'POST', '/deltatables/upsert', {
      token: ada.access_token,
      json: { data_collection_id: collectionId, async_mode: true },
    });
    const hidden = await call(server, 'GET', `/jobs/${job.body.job_id}`, { token: bob.access_token });
    const missing = await call(server, 'GET', '/jobs/00000000-0000-7000-8000-000000000000', {
      token: bob.access_token,
    });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(missing.body);
    expect((await call(server, 'POST', `/jobs/${job.body.job_id}/cancel`, { token: bob.access_token })).status).toBe(
      404,
    );
    expect((await call<{ total: number }>(server, 'GET', '/jobs', { token: bob.access_token })).body.total).toBe(0);
    expect((await call(server, 'GET', `/jobs/${job.body.job_id}`, { token: admin.access_token })).status).toBe(200);
    expect(
      (await call<{ total: number }>(server, 'GET', '/jobs', { token: admin.access_token })).body.total,
    ).toBeGreaterThanOrEqual(2);
    for (const query of ['limit=0', 'limit=201', 'limit=x', 'status=done', 'kind=other', 'skip=-1']) {
      expect((await call(server, 'GET', `/jobs?${query}`, { token: ada.access_token })).status, query).toBe(400);
    }
    expect((await call(server, 'GET', '/jobs')).status).toBe(401);
    await waitForJob(server, ada.access_token, job.body.job_id);
    const ended = await call(server, 'POST', `/jobs/${job.body.job_id}/cancel`, { token: ada.access_token });
    expect(ended.status).toBe(409);
    expect(ended.body.code).toBe('job_ended');
  });

  it('keeps kinds outside the product out of /jobs, even for admins, and has no handler for queue.probe', async () => {
    const { jobs, jobHandlers, database } = server.context;
    const token = admin.access_token;
    // A task of the test's own, run by the server's in-process workers.
    jobHandlers.registerExtra('test.noop', async () => ({ ok: true }));
    const listed = async () => (await call<{ items: Job[]; total: number }>(server, 'GET', '/jobs', { token })).body;
    const before = await listed();
    const extra = await jobs.enqueue('test.noop', {}, { userId: null, projectId: null });
    const probe = await jobs.enqueue('queue.probe', {}, { userId: null, projectId: null });
    const ended = async (jobId: string) => {
      for (let i = 0; i < 200; i++) {
        const row = await jobs.get(jobId);
        if (row?.finished_at) return row;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`job ${jobId} did not end`);
    };
    expect((await ended(extra.job_id)).status).toBe('success');
    // The benchmark's probe is not the product's: a product worker has nothing to run it with.
    const refused = await ended(probe.job_id);
    expect(refused.status).toBe('failed');
    expect(JSON.parse(refused.error ?? '{}')).toEqual({
      code: 'internal_error',
      message: 'no handler for job kind queue.probe',
    });
    const tables = (await database.db.introspection.getTables()).map((table) => table.name);
    expect(tables).toContain('jobs');
    expect(tables).not.toContain('queue_probe_runs');
    expect(() => jobHandlers.registerExtra('project.ingest', async () => null)).toThrow(/product/);

    const after = await listed();
    expect(after.total).toBe(before.total);
    expect(after.items.map((job) => job.kind)).not.toContain('test.noop');
    const missing = await call(server, 'GET', '/jobs/00000000-0000-7000-8000-000000000000', { token });
    const read = await call(server, 'GET', `/jobs/${extra.job_id}`, { token });
    expect(read.status).toBe(404);
    expect(read.body).toEqual(missing.body);
    expect((await call(server, 'POST', `/jobs/${extra.job_id}/cancel`, { token })).status).toBe(404);
    expect((await call(server, 'GET', '/jobs?kind=test.noop', { token })).status).toBe(400);
  });
});

describeEachDialect('job cancellation and recovery', (dialect) => {
  let server: TestServer;
  let admin: Session;
  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_JOBS_WORKERS: '0' });
    admin = await login(server, ADMIN.email, ADMIN.password);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('cancels a pending job at once', async () => {
    const { collectionId } = await createProjectWithUpload(server, admin.access_token, 'pending');
    const job = await call<{ job_id: string }>(server, 'POST', '/deltatables/upsert', {
      token: admin.access_token,
      json: { data_collection_id: collectionId, async_mode: true },
    });
    const cancelled = await call<Job>(server, 'POST', `/jobs/${job.body.job_id}/cancel`, { token: admin.access_token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', poll_after_seconds: null });
  });

  it('gives a dead worker’s job to a live one, and fails it once its attempts are used up', async () => {
    const { collectionId } = await createProjectWithUpload(server, admin.access_token, 'recovery');
    const { jobs, jobHandlers, config } = server.context;
    const queued = await jobs.enqueue(
      'deltatable.upsert',
      { data_collection_id: collectionId },
      { userId: null, projectId: null },
    );
    const claimed = await jobs.claim('worker-that-dies');
    expect(claimed?.job_id).toBe(queued.job_id);
    const expire = () =>
      server.context.database.db
        .updateTable('jobs')
        .set({ lease_expires_at: '2000-01-01T00:00:00.000Z' })
        .where('job_id', '=', queued.job_id)
        .execute();
    await expire();
    expect(await jobs.recoverExpired()).toBe(1);
    expect((await jobs.get(queued.job_id))?.status).toBe('pending');

    const { WorkerPool } = await import('../../src/jobs/worker-pool.js');
    const pool = new WorkerPool(jobs, jobHandlers, config.database, server.app.log, 1);
    await pool.start();
    try {
      const done = await waitForJob(server, admin.access_token, queued.job_id);
      expect(done.status).toBe('success');
    } finally {
      await pool.stop();
    }

    const doomed = await jobs.enqueue(
      'deltatable.upsert',
      { data_collection_id: collectionId },
      { userId: null, projectId: null },
    );
    for (let attempt = 0; attempt < 3; attempt++) {
      await jobs.claim(`dying-${attempt}`);
      await server.context.database.db
        .updateTable('jobs')
        .set({ lease_expires_at: '2000-01-01T00:00:00.000Z' })
        .where('job_id', '=', doomed.job_id)
        .execute();
      await jobs.recoverExpired();
    }
    const failed = await jobs.get(doomed.job_id);
    expect(failed?.status).toBe('failed');
    expect(JSON.parse(failed?.error ?? '{}')).toMatchObject({ code: 'worker_lost' });
  });

  it('hands a running job back to the queue when its worker shuts down, without counting the attempt', async () => {
    const { jobs, jobHandlers, config } = server.context;
    const { WorkerPool } = await import('../../src/jobs/worker-pool.js');
    // A task of the test's own that holds its worker until it is aborted.
    jobHandlers.registerExtra(
      'test.hold',
      (_job, tools) =>
        new Promise((_resolve, reject) => tools.signal.addEventListener('abort', () => reject(tools.signal.reason))),
    );
    const queued = await jobs.enqueue('test.hold', {}, { userId: null, projectId: null });
    const first = new WorkerPool(jobs, jobHandlers, config.database, server.app.log, 1);
    await first.start();
    let owner: string | null = null;
    try {
      await until('the first worker runs the job', async () => {
        const row = await jobs.get(queued.job_id);
        owner = row?.lease_owner ?? null;
        return row?.status === 'running';
      });
    } finally {
      await first.stop();
    }
    expect(await jobs.get(queued.job_id)).toMatchObject({
      status: 'pending',
      attempts: 0,
      lease_owner: null,
      lease_expires_at: null,
      step: 'requeued',
    });

    // No lease to wait for: the next worker takes it over at once.
    const second = new WorkerPool(jobs, jobHandlers, config.database, server.app.log, 1);
    await second.start();
    try {
      await until('the second worker runs the job', async () => (await jobs.get(queued.job_id))?.status === 'running');
      const taken = await jobs.get(queued.job_id);
      expect(taken?.attempts).toBe(1);
      expect(taken?.lease_owner).not.toBe(owner);
      await jobs.cancel(queued.job_id);
    } finally {
      await second.stop();
    }
    expect((await jobs.get(queued.job_id))?.status).toBe('cancelled');
  });

  it('stops a running job through its worker when it is cancelled, and commits nothing', async () => {
    // A file big enough that the upsert is still running when the cancel arrives.
    const rows = Array.from({ length: 1_000_000 }, (_, i) => `${i},${(i * 7) % 1000},label-${i % 97}`).join('\n');
    const { collectionId } = await createProjectWithUpload(
      server,
      admin.access_token,
      'slow',
      `id,value,label\n${rows}\n`,
    );
    const job = await call<{ job_id: string }>(server, 'POST', '/deltatables/upsert', {
      token: admin.access_token,
      json: { data_collection_id: collectionId, async_mode: true },
    });
    const jobId = job.body.job_id;
    const { jobs } = server.context;
    // This server runs no workers: the pool below is the only one that can take the job. What it
    // logs is how the test sees the task itself end.
    const logged: { msg: string; jobId?: string }[] = [];
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean)) logged.push(JSON.parse(line));
          done();
        },
      }),
    );
    const { WorkerPool } = await import('../../src/jobs/worker-pool.js');
    const pool = new WorkerPool(jobs, server.context.jobHandlers, server.context.config.database, log, 1);
    const jobLog = () => logged.filter((line) => line.jobId === jobId).map((line) => line.msg);
    await pool.start();
    try {
      // Running, held by this process's pool, and the task itself at work (it reported its step).
      await until('the worker runs the upsert', async () => (await jobs.get(jobId))?.step === 'upsert');
      const running = await jobs.get(jobId);
      expect(running).toMatchObject({ status: 'running', attempts: 1 });
      expect(running?.lease_owner).toMatch(new RegExp(`^${hostname()}:${process.pid}:`));
      expect(jobLog()).toEqual(['job started']);

      const cancelled = await call<Job>(server, 'POST', `/jobs/${jobId}/cancel`, { token: admin.access_token });
      expect(cancelled.body.status).toBe('cancelled');
      // The heartbeat sees the cancel and aborts the task; it ends as stopped, not finished.
      await until('the worker stops the task', async () => jobLog().includes('job stopped'));
      expect(jobLog()).toEqual(['job started', 'job stopped']);
      expect(await jobs.get(jobId)).toMatchObject({ status: 'cancelled', result: null });
      expect(await server.context.tableOf(collectionId).exists()).toBe(false);
    } finally {
      await pool.stop();
    }
    // Nothing left behind for the pool to finish or commit on its way out.
    expect(jobLog()).toEqual(['job started', 'job stopped']);
    expect(await server.context.tableOf(collectionId).exists()).toBe(false);
  });
});

describeEachDialect('finishing a job and claiming the next at once', (dialect) => {
  it('ends only a job the worker holds, and claims only a pending one', async () => {
    const server = await startTestServer(dialect, { SERVICE_JOBS_WORKERS: '0' });
    try {
      const { jobs } = server.context;
      const owner = { userId: null, projectId: null };
      const first = await jobs.enqueue('test.noop', {}, owner);
      const second = await jobs.enqueue('test.noop', {}, owner);
      expect((await jobs.claim('w1'))?.job_id).toBe(first.job_id);

      const handedOver = await jobs.succeedAndClaim(first.job_id, 'w1', { ok: true });
      expect(handedOver.held).toBe(true);
      expect(handedOver.next).toMatchObject({
        job_id: second.job_id,
        status: 'running',
        lease_owner: 'w1',
        attempts: 1,
      });
      expect(await jobs.get(first.job_id)).toMatchObject({
        status: 'success',
        result: '{"ok":true}',
        lease_owner: null,
      });

      // Another worker cannot end it, and finds nothing pending to take.
      expect(await jobs.succeedAndClaim(second.job_id, 'w2', null)).toEqual({ held: false, next: undefined });
      expect((await jobs.get(second.job_id))?.status).toBe('running');
      // Once cancelled, its holder cannot end it either.
      await jobs.cancel(second.job_id);
      expect((await jobs.succeedAndClaim(second.job_id, 'w1', null)).held).toBe(false);
      expect((await jobs.get(second.job_id))?.status).toBe('cancelled');
    } finally {
      await server.stop();
      await server.database.drop();
    }
  });
});

describe('with jobs turned off', () => {
  it('has no /jobs routes, runs upserts in the request, and offers no browser trigger', async () => {
    const server = await startTestServer('sqlite', { SERVICE_JOBS_ENABLED: 'false' });
    try {
      const admin = await login(server, ADMIN.email, ADMIN.password);
      expect((await call(server, 'GET', '/jobs')).status).toBe(404);
      expect((await call(server, 'GET', '/jobs', { token: admin.access_token })).status).toBe(404);
      expect((await call(server, 'POST', '/jobs/x/cancel')).status).toBe(404);
      const { collectionId, projectId } = await createProjectWithUpload(server, admin.access_token, 'sync');
      const upsert = await call(server, 'POST', '/deltatables/upsert', {
        token: admin.access_token,
        json: { data_collection_id: collectionId, async_mode: true },
      });
      expect(upsert.status).toBe(200);
      expect(upsert.body).not.toHaveProperty('job_id');
      expect(upsert.body.rows).toBe(2);
      expect((await call(server, 'GET', '/utils/capabilities')).body.features).toEqual([]);
      expect(
        (await call(server, 'POST', `/projects/ingestion/trigger/${projectId}`, { token: admin.access_token })).status,
      ).toBe(404);
      const status = await call(server, 'GET', `/projects/ingestion/trigger-status/${projectId}`, {
        token: admin.access_token,
      });
      expect(status.body).toEqual({ enabled: false, available: false, reason: 'jobs_disabled' });
      const ingest = await call<{ job_id: null; run: { status: string; trigger: string } }>(
        server,
        'POST',
        `/projects/${projectId}/ingest`,
        {
          token: admin.access_token,
          json: { async_mode: true, source: 'cli' },
        },
      );
      expect(ingest.status).toBe(200);
      expect(ingest.body).toMatchObject({ job_id: null, run: { status: 'success', trigger: 'cli' } });
    } finally {
      await server.stop();
      await server.database.drop();
    }
  });
});

describeEachDialect('ingestion', (dialect) => {
  let server: TestServer;
  let owner: Session;
  let viewer: Session;
  let root: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    root = join(server.database.dataDir, 'imports');
    owner = await createUser(
      server,
      (await login(server, ADMIN.email, ADMIN.password)).access_token,
      'owner@example.org',
    );
    viewer = await createUser(
      server,
      (await login(server, ADMIN.email, ADMIN.password)).access_token,
      'viewer@example.org',
    );
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  async function projectOnDisk(name: string, files: Record<string, string>) {
    const base = join(root, name);
    for (const [path, content] of Object.entries(files)) {
      await mkdir(join(base, path, '..'), { recursive: true });
      await writeFile(join(base, path), content);
    }
    const yaml = `name: ${name}
workflows:
  - name: wf
    data_location: { structure: runs, locations: [ ${base} ], runs_regex: "^run_\\\\d+$" }
    data_collections:
      - { tag: good, pattern: "(?<site>[^/]+)/good\\\\.csv", format: csv }
      - { tag: bad, pattern: "bad\\\\.csv", format: csv }
`;
    const imported = await call<{ project_id: string }>(server, 'POST', '/projects/import', {
      token: owner.access_token,
      json: { yaml },
    });
    await call(server, 'PUT', `/projects/${imported.body.project_id}/permissions`, {
      token: owner.access_token,
      json: { owners: ['owner@example.org'], viewers: ['viewer@example.org'], is_public: false },
    });
    return imported.body.project_id;
  }

  it('scans, registers and upserts as a job, records the steps, and ends partial when a collection fails', async () => {
    const projectId = await projectOnDisk('field', {
      'run_1/a/good.csv': 'x\n1\n2\n',
      'run_2/b/good.csv': 'x\n3\n',
      'run_1/bad.csv': 'a,b\n1\n2,3,4\n',
      'not_a_run/a/good.csv': 'x\n99\n',
    });
    const status = await call(server, 'GET', `/projects/ingestion/trigger-status/${projectId}`, {
      token: owner.access_token,
    });
    expect(status.body).toEqual({ enabled: true, available: true, reason: null });
    const viewerStatus = await call(server, 'GET', `/projects/ingestion/trigger-status/${projectId}`, {
      token: viewer.access_token,
    });
    expect(viewerStatus.body).toEqual({ enabled: true, available: false, reason: 'forbidden' });
    expect(
      (await call(server, 'POST', `/projects/ingestion/trigger/${projectId}`, { token: viewer.access_token })).status,
    ).toBe(403);

    const triggered = await call<{ job_id: string; run_id: string; already_running: boolean }>(
      server,
      'POST',
      `/projects/ingestion/trigger/${projectId}?overwrite=false`,
      { token: owner.access_token },
    );
    expect(triggered.status).toBe(202);
    expect(triggered.body.already_running).toBe(false);
    const job = await waitForJob(server, owner.access_token, triggered.body.job_id);
    expect(job).toMatchObject({ status: 'success', result: { status: 'partial' } });

    const runs = await call<{ items: Record<string, unknown>[] }>(
      server,
      'GET',
      `/projects/ingestion-runs/${projectId}`,
      {
        token: owner.access_token,
      },
    );
    const run = runs.body.items[0] as {
      status: string;
      trigger: string;
      steps: { name: string; status: string }[];
      data_collections: { tag: string; status: string; rows: number | null; error: string | null }[];
      source_paths: string[];
    };
    expect(run).toMatchObject({ status: 'partial', trigger: 'browser' });
    expect(run.steps.map((step) => `${step.name}:${step.status}`)).toEqual([
      'scan wf:success',
      'upsert good:success',
      'upsert bad:failed',
    ]);
    expect(run.data_collections.find((c) => c.tag === 'good')).toMatchObject({ status: 'success', rows: 3 });
    expect(run.data_collections.find((c) => c.tag === 'bad')?.error).toContain('bad.csv');
    expect(run.source_paths).toEqual([join(root, 'field')]);

    const seenByViewer = await call<{ items: Record<string, unknown>[] }>(
      server,
      'GET',
      `/projects/ingestion-runs/${projectId}`,
      {
        token: viewer.access_token,
      },
    );
    const redacted = seenByViewer.body.items[0] as Record<string, unknown>;
    expect(redacted).not.toHaveProperty('source_paths');
    expect(redacted).not.toHaveProperty('host');
    expect(JSON.stringify(redacted)).not.toContain(root);
  });

  it('starts one ingestion however many triggers race for it', async () => {
    const projectId = await projectOnDisk('racing', { 'run_1/a/good.csv': 'x\n1\n' });
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        call<{ run_id: string; already_running: boolean }>(server, 'POST', `/projects/ingestion/trigger/${projectId}`, {
          token: owner.access_token,
        }),
      ),
    );
    const started = answers.filter((answer) => answer.status === 202);
    expect(started).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.body.run_id)).size).toBeLessThanOrEqual(2);
    for (const answer of answers.filter((a) => a.status === 200)) expect(answer.body.already_running).toBe(true);
  });

  it('answers 409 no_data for a project with nothing to ingest', async () => {
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token: owner.access_token,
      json: { name: 'empty' },
    });
    const status = await call(server, 'GET', `/projects/ingestion/trigger-status/${project.body.project_id}`, {
      token: owner.access_token,
    });
    expect(status.body).toEqual({ enabled: true, available: false, reason: 'no_data' });
    const trigger = await call(server, 'POST', `/projects/ingestion/trigger/${project.body.project_id}`, {
      token: owner.access_token,
    });
    expect(trigger.status).toBe(409);
    expect(trigger.body.code).toBe('no_data');
  });
});

describe('with the browser trigger off', () => {
  it('answers 404 from the trigger for everyone, but the API ingest still works', async () => {
    const server = await startTestServer('sqlite', { SERVICE_INGESTION_BROWSER_TRIGGER_ENABLED: 'false' });
    try {
      const admin = await login(server, ADMIN.email, ADMIN.password);
      const { projectId } = await createProjectWithUpload(server, admin.access_token, 'api only');
      expect(
        (await call(server, 'POST', `/projects/ingestion/trigger/${projectId}`, { token: admin.access_token })).status,
      ).toBe(404);
      expect((await call(server, 'POST', `/projects/ingestion/trigger/${projectId}`)).status).toBe(404);
      expect((await call(server, 'GET', '/utils/capabilities')).body.features).toEqual([
        'jobs',
        'deltatables.async_upsert',
      ]);
      const status = await call(server, 'GET', `/projects/ingestion/trigger-status/${projectId}`, {
        token: admin.access_token,
      });
      expect(status.body).toEqual({ enabled: false, available: false, reason: 'disabled' });
      const ingest = await call<{ job_id: string }>(server, 'POST', `/projects/${projectId}/ingest`, {
        token: admin.access_token,
        json: { async_mode: true },
      });
      expect(ingest.status).toBe(202);
      expect((await waitForJob(server, admin.access_token, ingest.body.job_id)).status).toBe('success');
    } finally {
      await server.stop();
      await server.database.drop();
    }
  });
});
