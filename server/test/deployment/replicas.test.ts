import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Deployment, LEASE_SECONDS, startDeployment } from '../../../test/support/deployment.js';
import { csvRows, jobEnd, startSlowUpload, tableTotals, upload } from '../../../test/support/deployment-calls.js';
import { authorizeThroughProvider, deliverCallback } from '../../../test/support/oidc-provider.js';
import type { ServiceProcess } from '../../../test/support/processes.js';
import {
  ADMIN,
  type Answer,
  call,
  createProjectWithUpload,
  login,
  type Session,
} from '../../../test/support/test-server.js';

/**
 * The proof of docs/architecture.md "Replicas": two API replicas (`service serve`, workers off) behind one
 * address and two `service worker` processes, all separate processes of the built CLI, on one
 * PostgreSQL database and one S3 bucket. Every check goes through the round-robin address or
 * through a chosen replica; nothing is shared but the database and the object storage.
 */

/** Rows of the tables that jobs work on long enough to be interrupted (a few seconds on 2 cores). */
const BIG = 300_000;

const ticketOf = (location: string) => new URLSearchParams(new URL(location).hash.slice(1)).get('ticket') ?? '';

const needs = inject('postgresAdminUrl') === '' || inject('s3Endpoint') === '';

describe.skipIf(needs)('two API replicas and two workers on PostgreSQL and S3', () => {
  let deployment: Deployment;
  let admin: Session;
  /** Replica A and B, one at a time; `deployment` (its url) is both in turn. */
  let a: { url: string };
  let b: { url: string };
  let token: string;

  beforeAll(async () => {
    deployment = await startDeployment();
    [a, b] = deployment.replicas as unknown as [{ url: string }, { url: string }];
    admin = await login(a, ADMIN.email, ADMIN.password);
    token = admin.access_token;
  }, 120_000);

  afterAll(async () => {
    await deployment?.stop();
  });

  it('moves the schema once with `service migrate`; every process runs on it with auto-migration off', async () => {
    for (const replica of deployment.replicas) {
      const health = await call<{ ready: boolean; workers: { in_process: number; active: number } }>(
        replica,
        'GET',
        '/health/ready',
      );
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ ready: true, storage: 'ok', workers: { in_process: 0 } });
    }
    await expect
      .poll(async () => (await call<{ workers: { active: number } }>(a, 'GET', '/health')).body.workers.active)
      .toBe(2);
  });

  it('signs in on one replica and uses, refreshes and signs out the session on the other', async () => {
    const session = await login(a, ADMIN.email, ADMIN.password);
    expect((await call(b, 'GET', '/auth/me', { token: session.access_token })).status).toBe(200);
    const refreshed = await call<Session>(b, 'POST', '/auth/refresh', {
      json: { refresh_token: session.refresh_token },
    });
    expect(refreshed.status).toBe(200);
    expect((await call(a, 'GET', '/auth/me', { token: refreshed.body.access_token })).status).toBe(200);
    expect((await call(a, 'POST', '/auth/logout', { token: refreshed.body.access_token })).status).toBe(204);
    // Refused at once by both: the sign-out answers only after every replica acknowledged its notice.
    const after = await Promise.all(
      [a, b, b, a].map((replica) => call(replica, 'GET', '/auth/me', { token: refreshed.body.access_token })),
    );
    expect(after.map((answer) => answer.status)).toEqual([401, 401, 401, 401]);
    const refreshAfter = await call(b, 'POST', '/auth/refresh', {
      json: { refresh_token: refreshed.body.refresh_token },
    });
    expect(refreshAfter.status).toBe(401);
    // The refresh token spent on B is refused on A as well.
    expect((await call(a, 'POST', '/auth/refresh', { json: { refresh_token: session.refresh_token } })).status).toBe(
      401,
    );
  });

  it('signs in through the identity provider: started on one replica, finished on the other', async () => {
    const email = 'oauth-user@example.org';
    deployment.idp.addAccount(email);
    const callback = await authorizeThroughProvider(a.url, deployment.idp, email);
    const location = await deliverCallback(b.url, callback);
    expect(location.startsWith(`${deployment.url}/auth/magic#`)).toBe(true);
    const session = await call<Session>(a, 'POST', '/auth/magic_link/redeem', { json: { ticket: ticketOf(location) } });
    expect(session.status, session.text).toBe(200);
    const me = await call<{ email: string }>(b, 'GET', '/auth/me', { token: session.body.access_token });
    expect(me.body.email).toBe(email);
    expect(deployment.idp.errors).toEqual([]);
  });

  it('redeems a magic link made on one replica exactly once, whichever replicas race for it', async () => {
    const link = await call<{ url: string }>(a, 'POST', '/auth/magic_link', { token, json: {} });
    expect(link.status).toBe(201);
    const ticket = ticketOf(link.body.url);
    const redeemed = await Promise.all(
      [b, a, b, a].map((replica) => call(replica, 'POST', '/auth/magic_link/redeem', { json: { ticket } })),
    );
    expect(redeemed.map((answer) => answer.status).sort()).toEqual([200, 401, 401, 401]);
  });

  it('counts rate limits across both replicas', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 12; attempt++) {
      const replica = attempt % 2 === 0 ? a : b;
      const answer = await call(replica, 'POST', '/auth/login', {
        json: { email: 'nobody@example.org', password: 'not-the-password' },
      });
      statuses.push(answer.status);
    }
    // 10 attempts a minute per address and email, whichever replica counts them.
    expect(statuses).toEqual([...Array<number>(10).fill(401), 429, 429]);
  });

  it('uploads through one replica, reads through the other; both workers claim jobs', async () => {
    const projects = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        createProjectWithUpload(i % 2 === 0 ? a : b, token, `shared ${i}`, csvRows(`p${i}`, 1, 100 + i)),
      ),
    );
    const first = projects[0] as (typeof projects)[number];
    const synchronous = await call<{ version: number; rows: number }>(b, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: first.collectionId },
    });
    expect(synchronous.status, synchronous.text).toBe(200);
    expect(await tableTotals(a, token, first.collectionId)).toEqual({ rows: 100, ids: 100, low: 1, high: 100 });

    // Async upserts and an ingestion, sent to both replicas at once, so both workers get some.
    const accepted = await Promise.all([
      ...projects.slice(1).map((project, i) =>
        call<{ job_id: string }>(i % 2 === 0 ? a : b, 'POST', '/deltatables/upsert', {
          token,
          json: { data_collection_id: project.collectionId, async_mode: true },
        }),
      ),
      call<{ job_id: string }>(b, 'POST', `/projects/ingestion/trigger/${first.projectId}`, { token }),
    ]);
    expect(accepted.map((answer) => answer.status)).toEqual([202, 202, 202, 202]);
    const jobIds = accepted.map((answer) => answer.body.job_id);
    const ended = await Promise.all(jobIds.map((jobId, i) => jobEnd(i % 2 === 0 ? b : a, token, jobId)));
    expect(ended.map((job) => job.status)).toEqual(['success', 'success', 'success', 'success']);
    for (const [i, project] of projects.entries()) {
      const totals = await tableTotals(i % 2 === 0 ? b : a, token, project.collectionId);
      expect(totals).toEqual({ rows: 100 + i, ids: 100 + i, low: 1, high: 100 + i });
    }
    const claimed = deployment.workers.map((worker) => worker.startedJobs());
    expect(new Set(claimed.flat())).toEqual(new Set(jobIds));
    // Should one worker have taken every job, more come until the other has claimed one too.
    for (let round = 0; claimed.some((jobs) => jobs.length === 0) && round < 20; round++) {
      const more = await Promise.all(
        projects.map((project) =>
          call<{ job_id: string }>(a, 'POST', '/deltatables/upsert', {
            token,
            json: { data_collection_id: project.collectionId, async_mode: true },
          }),
        ),
      );
      await Promise.all(more.map((answer) => jobEnd(b, token, answer.body.job_id)));
      claimed.splice(0, claimed.length, ...deployment.workers.map((worker) => worker.startedJobs()));
    }
    expect(claimed.map((jobs) => jobs.length > 0)).toEqual([true, true]);
  }, 120_000);

  let big: { projectId: string; collectionId: string };

  it('cancels a running ingestion through the replica that did not start it; nothing is committed', async () => {
    big = await createProjectWithUpload(a, token, 'big', csvRows('big', 1, BIG));
    const trigger = await call<{ job_id: string }>(a, 'POST', `/projects/ingestion/trigger/${big.projectId}`, {
      token,
    });
    expect(trigger.status).toBe(202);
    const jobId = trigger.body.job_id;
    await expect
      .poll(() => deployment.workers.some((worker) => worker.startedJobs().includes(jobId)), { timeout: 30_000 })
      .toBe(true);
    const cancelled = await call<{ status: string }>(b, 'POST', `/jobs/${jobId}/cancel`, { token });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect((await jobEnd(a, token, jobId)).status).toBe('cancelled');
    const versions = await call<{ items: unknown[] }>(a, 'GET', `/datacollections/${big.collectionId}/versions`, {
      token,
    });
    expect(versions.body.items ?? []).toEqual([]);
  }, 120_000);

  it('takes over the ingestion of a worker killed with SIGKILL after its lease: it ends once, no row lost or doubled', async () => {
    const trigger = await call<{ job_id: string }>(b, 'POST', `/projects/ingestion/trigger/${big.projectId}`, {
      token,
    });
    expect(trigger.status).toBe(202);
    const jobId = trigger.body.job_id;
    let victim: ServiceProcess | undefined;
    await expect
      .poll(
        () => {
          victim = deployment.workers.find((worker) => worker.running() && worker.startedJobs().includes(jobId));
          return victim !== undefined;
        },
        { timeout: 30_000, interval: 10 },
      )
      .toBe(true);
    const killedAt = Date.now();
    victim?.child.kill('SIGKILL');
    const ended = await jobEnd(a, token, jobId);
    expect(ended.status).toBe('success');
    const survivor = deployment.workers.find((worker) => worker !== victim && worker.running());
    expect(survivor?.startedJobs()).toContain(jobId);
    // Not before the lease ran out (it was renewed every 0.5 s until the kill).
    const takenOverAt = Number(
      survivor?.logs().find((line) => line.msg === 'job started' && line.jobId === jobId)?.time,
    );
    expect(takenOverAt - killedAt).toBeGreaterThan((LEASE_SECONDS - 1) * 1000);
    expect(await tableTotals(b, token, big.collectionId)).toEqual({ rows: BIG, ids: BIG, low: 1, high: BIG });
    const runs = await call<{ items: { status: string; job_id?: string }[] }>(
      a,
      'GET',
      `/projects/ingestion-runs/${big.projectId}`,
      { token },
    );
    expect(runs.body.items.map((run) => run.status).sort()).toEqual(['cancelled', 'success']);
  }, 120_000);

  it('hands a running job back at once when its worker gets SIGTERM, so another takes it over without waiting for the lease', async () => {
    const [survivor] = deployment.workers.filter((worker) => worker.running());
    if (!survivor) throw new Error('no worker left');
    // A worker whose lease would hold for 10 minutes: only a hand-back lets another take its job soon.
    const stopping = await deployment.startWorker({ SERVICE_JOBS_LEASE_SECONDS: '600' });
    const second = await createProjectWithUpload(b, token, 'big two', csvRows('two', 1, BIG));
    survivor.child.kill('SIGSTOP');
    let jobId: string;
    try {
      const trigger = await call<{ job_id: string }>(a, 'POST', `/projects/ingestion/trigger/${second.projectId}`, {
        token,
      });
      expect(trigger.status, trigger.text).toBe(202);
      jobId = trigger.body.job_id;
      try {
        await expect.poll(() => stopping.startedJobs().includes(jobId), { timeout: 30_000, interval: 10 }).toBe(true);
      } catch (error) {
        const client = new pg.Client({ connectionString: deployment.database.url });
        await client.connect();
        const jobs = await client.query(
          'select job_id, kind, status, lease_owner, created_at from jobs order by created_at desc limit 5',
        );
        const activity = await client.query(
          'select pid, state, wait_event_type, wait_event, left(query, 200) as query from pg_stat_activity where datname = current_database()',
        );
        await client.end();
        throw new Error(
          `${String(error)}\njobs: ${JSON.stringify(jobs.rows)}\nactivity: ${JSON.stringify(activity.rows)}\nworker: ${stopping.stdout().slice(-2000)}`,
        );
      }
    } finally {
      survivor.child.kill('SIGCONT');
    }
    stopping.child.kill('SIGTERM');
    expect(await stopping.exited).toBe(0);
    expect(stopping.logs().some((line) => line.msg === 'job handed back to the queue' && line.jobId === jobId)).toBe(
      true,
    );
    expect((await jobEnd(b, token, jobId, 60_000)).status).toBe('success');
    expect(survivor.startedJobs()).toContain(jobId);
    expect(await tableTotals(a, token, second.collectionId)).toEqual({ rows: BIG, ids: BIG, low: 1, high: BIG });
    // Two workers again for what follows.
    await deployment.startWorker();
  }, 120_000);

  let shared: { projectId: string; collectionId: string };

  it('lands two upserts of one table sent through different replicas at once, in order, with no lost update', async () => {
    shared = await createProjectWithUpload(a, token, 'two writers', 'a,b\n0,seed\n');
    const seeded = await call<{ version: number }>(b, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: shared.collectionId },
    });
    expect(seeded.body.version).toBe(0);
    const ROWS = 20_000;
    const firstFile = await upload(a, token, shared.collectionId, 'first', csvRows('first', 1, ROWS));
    const secondFile = await upload(b, token, shared.collectionId, 'second', csvRows('second', ROWS + 1, ROWS));
    const answers = await Promise.all(
      [
        [a, firstFile],
        [b, secondFile],
      ].map(([replica, fileId]) =>
        call<{ version: number }>(replica as { url: string }, 'POST', '/deltatables/upsert', {
          token,
          json: { data_collection_id: shared.collectionId, file_ids: [fileId as string] },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers.map((answer) => answer.body.version).sort()).toEqual([1, 2]);
    const history = await call<{ items: { version: number }[] }>(
      a,
      'GET',
      `/datacollections/${shared.collectionId}/versions`,
      { token },
    );
    expect(history.body.items.map((entry) => entry.version)).toEqual([2, 1, 0]);
    expect(await tableTotals(b, token, shared.collectionId)).toEqual({
      rows: 2 * ROWS + 1,
      ids: 2 * ROWS + 1,
      low: 0,
      high: 2 * ROWS,
    });
  });

  it('never answers a dashboard from a cache that a write through the other replica made stale', async () => {
    const created = await call<{ dashboard_id: string }>(a, 'POST', '/dashboards', {
      token,
      json: {
        project_id: shared.projectId,
        title: 'Counted',
        components: [{ component_id: 'rows', type: 'card', agg: 'count', data_collection_id: shared.collectionId }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const count = async (replica: { url: string }) => {
      const answer = await call<{ components: Record<string, { value: unknown }> }>(
        replica,
        'POST',
        `/dashboards/${created.body.dashboard_id}/data`,
        { token, json: {} },
      );
      expect(answer.status, answer.text).toBe(200);
      return Number(answer.body.components.rows?.value);
    };
    let expected = (await tableTotals(a, token, shared.collectionId)).rows;
    for (const [writer, reader] of [
      [b, a],
      [a, b],
      [b, a],
    ] as const) {
      // Both replicas have the answer cached.
      expect([await count(reader), await count(writer), await count(reader)]).toEqual([expected, expected, expected]);
      const run = `more-${expected}`;
      const fileId = await upload(writer, token, shared.collectionId, run, csvRows(run, 100_000 + expected, 10));
      const written = await call(writer, 'POST', '/deltatables/upsert', {
        token,
        json: { data_collection_id: shared.collectionId, file_ids: [fileId] },
      });
      expect(written.status).toBe(200);
      expected += 10;
      // At once, without waiting: the cache is keyed by the table version, read on every request.
      expect(await count(reader)).toBe(expected);
    }
  });

  it('rides out a database restart under load: each answer succeeds or is a clean 503 with Retry-After', async () => {
    const answers: Answer[] = [];
    let loading = true;
    const client = async () => {
      while (loading) {
        answers.push(await call(deployment, 'GET', `/datacollections/${shared.collectionId}/versions`, { token }));
      }
    };
    const clients = [client(), client(), client(), client()];
    const alive = () => [...deployment.replicas, ...deployment.workers].filter((p) => p.running());
    const before = alive();
    expect(before.length).toBeGreaterThanOrEqual(4);
    const succeeded = (from: number) => answers.slice(from).filter((answer) => answer.status === 200).length;
    try {
      await expect.poll(() => succeeded(0), { timeout: 30_000 }).toBeGreaterThan(20);
      deployment.cutter.cut();
      const cutAt = answers.length;
      // Down for as long as it takes both replicas to notice and the load to meet the outage.
      for (const replica of deployment.replicas) {
        await expect
          .poll(async () => (await call<{ database: string }>(replica, 'GET', '/health')).body.database, {
            timeout: 30_000,
          })
          .toBe('unreachable');
        // Unready but alive: an orchestrator takes it out of the rotation and does not restart it.
        expect((await call(replica, 'GET', '/health/ready')).status).toBe(503);
        expect((await call(replica, 'GET', '/health/live')).status).toBe(200);
      }
      await expect
        .poll(() => answers.slice(cutAt).filter((answer) => answer.status === 503).length, { timeout: 30_000 })
        .toBeGreaterThan(3);
      deployment.cutter.restore();
      const restoredAt = answers.length;
      await expect.poll(() => succeeded(restoredAt), { timeout: 60_000 }).toBeGreaterThan(20);
    } finally {
      deployment.cutter.restore();
      loading = false;
      await Promise.all(clients);
    }
    const unclean = answers.filter(
      (answer) =>
        answer.status !== 200 &&
        !(
          answer.status === 503 &&
          answer.headers.get('retry-after') !== null &&
          (answer.body as { code?: string }).code === 'service_unavailable'
        ),
    );
    expect(unclean.map((answer) => `${answer.status} ${answer.text}`)).toEqual([]);
    // Every process rode it out: none restarted, all ready again, and the workers still take jobs.
    expect(alive()).toEqual(before);
    for (const replica of deployment.replicas) {
      await expect
        .poll(async () => (await call(replica, 'GET', '/health/ready')).status, { timeout: 30_000 })
        .toBe(200);
    }
    const job = await call<{ job_id: string }>(deployment, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: shared.collectionId, async_mode: true },
    });
    expect(job.status).toBe(202);
    expect((await jobEnd(deployment, token, job.body.job_id)).status).toBe('success');
  }, 120_000);

  it('drains an API replica on SIGTERM: unready at once, requests in flight finish, then it exits 0', async () => {
    const [, replicaB] = deployment.replicas as [unknown, Deployment['replicas'][number]];
    const inFlight = startSlowUpload(replicaB, token, shared.collectionId, 'in-flight', csvRows('late', 1, 50_000));
    replicaB.child.kill('SIGTERM');
    await expect
      .poll(async () => {
        const health = await call<{ draining: boolean }>(replicaB, 'GET', '/health');
        return [health.status, health.body.draining, health.headers.get('retry-after')];
      })
      .toEqual([503, true, '1']);
    // Still serving while load balancers take it out (SERVICE_SHUTDOWN_DELAY_SECONDS).
    expect((await call(replicaB, 'GET', '/auth/me', { token })).status).toBe(200);
    expect(await inFlight.sendRest()).toBe(201);
    expect(await replicaB.exited).toBe(0);
    expect(replicaB.stderr()).not.toMatch(/shutdown failed/);
    const files = await call<{ items: { path: string }[]; total: number }>(
      a,
      'GET',
      `/datacollections/${shared.collectionId}/files?limit=200`,
      { token },
    );
    expect(files.status).toBe(200);
  });
});
