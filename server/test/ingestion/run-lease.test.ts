import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { IngestionRun } from '@service/common';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { csvRows, jobEnd, tableTotals, upload } from '../../../test/support/deployment-calls.js';
import { killAllServices, startServe } from '../../../test/support/processes.js';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createTestDatabase,
  describeEachDialect,
  login,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from '../../../test/support/test-server.js';
import type { IngestionRunsTable } from '../../src/db/tables.js';
import { endExpiredRuns } from '../../src/ingestion/run-ends.js';
import { holdRunLease, RunLeaseLost } from '../../src/ingestion/run-lease.js';

// A hang guard, not a speed check: a server is killed mid-upsert and another takes over.
vi.setConfig({ testTimeout: 180_000 });

/** The shortest lease the settings accept: a dead server's run is ended a few seconds after its death. */
const LEASE_SECONDS = '3';
/** Rows of the file the killed run upserts: enough to be mid-upsert when the kill lands. */
const BIG = 400_000;

/** The vacuum's default retention (7 days) and an hour. */
const PAST_RETENTION = 169 * 60 * 60 * 1000;

type RunList = { items: IngestionRun[] };

/** Polls `condition` until it holds. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Whether an upsert is writing its work files under the data directory (it removes them when done). */
async function upsertInFlight(dataDir: string): Promise<boolean> {
  const entries = await readdir(join(dataDir, 'tmp')).catch(() => [] as string[]);
  return entries.some((name) => name.startsWith('upsert-'));
}

/*
 * Issue 23 (reliability): a synchronous ingestion (`POST /projects/{id}/ingest` without async_mode,
 * run in the request) whose server died stayed `running` and held its project's one active slot
 * for good, so every later trigger answered "already running". It now holds a lease its server
 * renews, like a job's; once the lease expired the run ends `failed`, and the project is free.
 */
describeEachDialect('a synchronous ingestion whose server was killed', (dialect) => {
  let database: TestDatabase;
  let server: TestServer | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterEach(async () => {
    await killAllServices();
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('ends failed once its lease expired, nothing of it in the table, and a new trigger succeeds', async () => {
    const env = {
      SERVICE_DATA_DIR: database.dataDir,
      SERVICE_DATABASE_URL: database.url,
      SERVICE_HOST: '127.0.0.1',
      SERVICE_PORT: '0',
      SERVICE_PUBLIC_URL: 'http://127.0.0.1:8058',
      SERVICE_BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      SERVICE_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      SERVICE_JOBS_LEASE_SECONDS: LEASE_SECONDS,
      SERVICE_LOG_LEVEL: 'warn',
    };
    const doomed = await startServe('doomed', env);
    const { access_token: token } = await login(doomed, ADMIN.email, ADMIN.password);
    const { projectId, collectionId } = await createProjectWithUpload(
      doomed,
      token,
      'killed mid-run',
      csvRows('seed', 1, 5),
    );
    const first = await call<{ run: IngestionRun }>(doomed, 'POST', `/projects/${projectId}/ingest`, {
      token,
      json: {},
    });
    expect(first.body.run.status).toBe('success');
    await upload(doomed, token, collectionId, 'big', csvRows('big', 6, BIG));

    // Run in the request; the request dies with the server.
    const killed = call(doomed, 'POST', `/projects/${projectId}/ingest`, { token, json: {} }).catch(() => null);
    // Killed as soon as the upsert writes its work files: mid-upsert, well before its commit.
    await until(() => upsertInFlight(database.dataDir));
    // While its server lives, the run is the project's ingestion in progress.
    const again = await call<{ run_id: string; already_running: boolean }>(
      doomed,
      'POST',
      `/projects/${projectId}/ingest`,
      { token, json: {} },
    );
    expect(again.body.already_running).toBe(true);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    expect(await killed).toBeNull();

    server = await startTestServer(database, {
      SERVICE_JOBS_LEASE_SECONDS: LEASE_SECONDS,
      SERVICE_JOBS_WORKERS: '1',
      SERVICE_INGESTION_BROWSER_TRIGGER_ENABLED: 'true',
    });
    const successor = server;
    let ended: IngestionRun | undefined;
    await until(async () => {
      const list = await call<RunList>(successor, 'GET', `/projects/ingestion-runs/${projectId}`, { token });
      ended = list.body.items.find((item) => item.run_id === again.body.run_id);
      return ended?.status === 'failed';
    });
    expect(ended?.error).toEqual({
      code: 'server_lost',
      message: expect.stringContaining('the server running it stopped'),
    });
    expect(ended?.finished_at).not.toBeNull();
    expect(ended?.steps.find((step) => step.name === 'upsert t')?.status).toBe('failed');
    expect(ended?.steps.some((step) => step.status === 'running')).toBe(false);
    // Nothing of the killed upsert was committed: the table is as the first ingestion left it.
    expect(await tableTotals(successor, token, collectionId)).toEqual({ rows: 5, ids: 5, low: 1, high: 5 });
    // What it was writing stays until the vacuum's retention (the grace period of live work) passed.
    expect(await upsertInFlight(database.dataDir)).toBe(true);
    await successor.context.vacuum.run();
    expect(await upsertInFlight(database.dataDir)).toBe(true);
    const vacuumed = await successor.context.vacuum.run({ now: Date.now() + PAST_RETENTION });
    expect(vacuumed.failures).toEqual([]);
    expect(await upsertInFlight(database.dataDir)).toBe(false);

    const trigger = await call<{ job_id: string; already_running: boolean }>(
      successor,
      'POST',
      `/projects/ingestion/trigger/${projectId}`,
      { token },
    );
    expect(trigger.status).toBe(202);
    expect((await jobEnd(successor, token, trigger.body.job_id)).status).toBe('success');
    const total = 5 + BIG;
    expect(await tableTotals(successor, token, collectionId)).toEqual({ rows: total, ids: total, low: 1, high: total });
  });

  it('ends only runs whose lease expired, and stops a run it finds ended while it works', async () => {
    const current = server ?? (await startTestServer(database, { SERVICE_JOBS_LEASE_SECONDS: LEASE_SECONDS }));
    server = current;
    const db = current.context.database.db;
    const { access_token: token } = await login(current, ADMIN.email, ADMIN.password);
    const projects = await Promise.all(
      ['live', 'expired', 'old unleased', 'new unleased'].map(async (name) => {
        const created = await call<{ project_id: string }>(current, 'POST', '/projects', { token, json: { name } });
        return created.body.project_id;
      }),
    );
    const now = Date.now();
    const at = (offsetMs: number) => new Date(now + offsetMs).toISOString();
    const row = (projectId: string, lease: string | null, createdAt: string): IngestionRunsTable => ({
      id: `run-${projectId}`,
      project_id: projectId,
      job_id: null,
      status: 'running',
      trigger: 'api',
      triggered_by: null,
      overwrite: 0,
      steps: JSON.stringify([
        { name: 'scan wf', status: 'running', started_at: createdAt, finished_at: null, detail: null },
      ]),
      data_collections: '[]',
      error: null,
      source_paths: '[]',
      host: 'gone',
      created_at: createdAt,
      started_at: createdAt,
      finished_at: null,
      lease_expires_at: lease,
    });
    const [live, expired, oldUnleased, newUnleased] = projects as [string, string, string, string];
    await db
      .insertInto('ingestion_runs')
      .values([
        row(live, at(60_000), at(-60_000)),
        row(expired, at(-1), at(-60_000)),
        // Written by a version before leases: left alone while an older replica may still run it.
        row(oldUnleased, null, at(-2 * 60 * 60 * 1000)),
        row(newUnleased, null, at(-60_000)),
      ])
      .execute();
    expect(await endExpiredRuns(db, undefined, now)).toBe(2);
    const statuses = await db
      .selectFrom('ingestion_runs')
      .select(['project_id', 'status', 'steps'])
      .where('project_id', 'in', projects)
      .execute();
    const statusOf = (projectId: string) => statuses.find((one) => one.project_id === projectId)?.status;
    expect([live, expired, oldUnleased, newUnleased].map(statusOf)).toEqual(['running', 'failed', 'failed', 'running']);

    // The live run's server renews its lease, so the run outlives its first lease; should the
    // server find its run ended (it stalled past the lease and someone ended it), it stops before
    // committing anything more.
    const leaseOf = async () =>
      (
        await db
          .selectFrom('ingestion_runs')
          .select('lease_expires_at')
          .where('id', '=', `run-${live}`)
          .executeTakeFirstOrThrow()
      ).lease_expires_at as string;
    const lease = holdRunLease(db, `run-${live}`, Number(LEASE_SECONDS));
    try {
      await lease.checkpoint();
      const renewed = await leaseOf();
      await until(async () => (await leaseOf()) > renewed);
      expect(await endExpiredRuns(db, live, Date.parse(renewed) + 1)).toBe(0);
      expect(lease.signal.aborted).toBe(false);
      await db
        .updateTable('ingestion_runs')
        .set({ status: 'failed', finished_at: at(0) })
        .where('id', '=', `run-${live}`)
        .execute();
      await expect(lease.checkpoint()).rejects.toBeInstanceOf(RunLeaseLost);
      expect(lease.signal.aborted).toBe(true);
    } finally {
      lease.stop();
    }
  });
});
