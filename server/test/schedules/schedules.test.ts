import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Scheduler, type TickOutcome } from '@service/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createUser,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

/*
 * Scheduled and watched ingestion (docs/data.md "Schedules and watched folders"). The servers run
 * no workers, so nothing looks for due schedules by itself: each test makes the scheduler look at
 * a chosen moment, and a started run stays pending (the project's one active run).
 */

interface Workflow {
  workflow_id: string;
  schedule: { cron: string; timezone?: string } | null;
  watch: { interval_seconds: number } | null;
  next_check_at: string | null;
}
interface Problem {
  code: string;
  errors?: { path: string; message: string }[];
}

const FIVE_MINUTES = 5 * 60_000;

describeEachDialect('scheduled and watched ingestion', (dialect) => {
  let server: TestServer;
  let replica: TestServer;
  let admin: Session;
  let ada: Session;
  let imports: string;
  let projects = 0;

  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_JOBS_WORKERS: '0' });
    replica = await startTestServer(server.database, { SERVICE_JOBS_WORKERS: '0' });
    admin = await login(server, ADMIN.email, ADMIN.password);
    ada = await createUser(server, admin.access_token, 'ada@example.org');
    imports = join(server.database.dataDir, 'imports');
  });
  afterAll(async () => {
    await replica?.stop();
    await server?.stop();
    await server?.database.drop();
  });

  const schedulerOf = (on: TestServer) =>
    new Scheduler({
      database: on.context.database,
      ingestion: on.context.ingestion,
      users: on.context.users.repository,
      allowedRoots: on.context.config.ingestion.allowedRoots,
      log: on.app.log,
    });

  /** A project of Ada's with one workflow reading a folder of its own (one CSV in it), and its collection. */
  async function located(timing: Record<string, unknown> = {}) {
    const folder = join(imports, `p${++projects}`);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'a.csv'), 'x\n1\n');
    const token = ada.access_token;
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token,
      json: { name: `Scheduled ${projects}` },
    });
    const projectId = project.body.project_id;
    const workflow = await call<Workflow & Problem>(server, 'POST', `/projects/${projectId}/workflows`, {
      token,
      json: { name: 'wf', data_location: { structure: 'flat', locations: [folder] }, ...timing },
    });
    expect(workflow.status, workflow.text).toBe(201);
    const collection = await call(server, 'POST', `/workflows/${workflow.body.workflow_id}/datacollections`, {
      token,
      json: { tag: 't', pattern: '[^/]+\\.csv', format: 'csv' },
    });
    expect(collection.status, collection.text).toBe(201);
    return { projectId, folder, workflow: workflow.body };
  }

  const runsOf = async (projectId: string) => {
    const answer = await call<{ items: { trigger: string; triggered_by: string; status: string }[] }>(
      server,
      'GET',
      `/projects/ingestion-runs/${projectId}`,
      { token: ada.access_token },
    );
    expect(answer.status, answer.text).toBe(200);
    return answer.body.items;
  };
  const mine = (outcomes: TickOutcome[], workflowId: string) => outcomes.filter((o) => o.workflow_id === workflowId);

  it('refuses a schedule that names no time, an unknown time zone, and a watch with nothing to list', async () => {
    const { workflow } = await located();
    const patch = (json: Record<string, unknown>) =>
      call<Problem>(server, 'PATCH', `/workflows/${workflow.workflow_id}`, { token: ada.access_token, json });
    const cases: [Record<string, unknown>, string][] = [
      [{ schedule: { cron: 'every day' } }, 'body.schedule.cron'],
      [{ schedule: { cron: '61 * * * *' } }, 'body.schedule.cron'],
      [{ schedule: { cron: '0 3 30 2 *' } }, 'body.schedule.cron'],
      [{ schedule: { cron: '0 3 * * *', timezone: 'Mars/Olympus_Mons' } }, 'body.schedule.timezone'],
      [{ schedule: { cron: '0 3 * * *', every: 'day' } }, 'body.schedule.every'],
      [{ watch: { interval_seconds: 1 } }, 'body.watch.interval_seconds'],
      [{ watch: { interval_seconds: 60 }, data_location: null }, 'body.watch'],
    ];
    for (const [json, path] of cases) {
      const answer = await patch(json);
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(answer.body.code).toBe('validation_failed');
      expect(answer.body.errors?.map((error) => error.path)).toEqual([path]);
    }
    const unchanged = await call<Workflow>(server, 'GET', `/workflows/${workflow.workflow_id}`, {
      token: ada.access_token,
    });
    expect(unchanged.body).toMatchObject({ schedule: null, watch: null, next_check_at: null });
  });

  it('lets only who may edit the project set a schedule', async () => {
    const { workflow } = await located();
    const bob = await createUser(server, admin.access_token, `bob${projects}@example.org`);
    const json = { schedule: { cron: '0 3 * * *' } };
    const path = `/workflows/${workflow.workflow_id}`;
    expect((await call(server, 'PATCH', path, { token: bob.access_token, json })).status).toBe(404);
    expect((await call(server, 'PATCH', path, { json })).status).toBe(401);
    expect((await call(server, 'PATCH', path, { token: admin.access_token, json })).status).toBe(200);
  });

  it('names when the schedule is next due, in its time zone', async () => {
    const { workflow } = await located();
    const answer = await call<Workflow>(server, 'PATCH', `/workflows/${workflow.workflow_id}`, {
      token: ada.access_token,
      json: { schedule: { cron: '30 2 * * *', timezone: 'Asia/Kolkata' } },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.schedule).toEqual({ cron: '30 2 * * *', timezone: 'Asia/Kolkata' });
    // 02:30 in India (UTC+05:30) is 21:00 UTC, the day before.
    expect(answer.body.next_check_at).toMatch(/T21:00:00\.000Z$/);
    expect(Date.parse(answer.body.next_check_at ?? '')).toBeGreaterThan(Date.now());
  });

  it('starts each due occurrence once however many processes look, and skips it while the last run goes on', async () => {
    const { projectId, workflow } = await located({ schedule: { cron: '*/5 * * * *' } });
    const first = Date.parse(workflow.next_check_at ?? '');
    const here = schedulerOf(server);
    const there = schedulerOf(replica);
    const seen: TickOutcome[][] = [];
    for (let occurrence = 0; occurrence < 6; occurrence++) {
      const now = new Date(first + occurrence * FIVE_MINUTES);
      // Two servers in one process share its one thread: on SQLite, a busy wait of one (better-sqlite3
      // waits synchronously) blocks the other's open transaction from ever finishing, which separate
      // processes never do to each other ("database is locked" after 5 s). There they look in turn.
      const [a, b] =
        dialect === 'sqlite'
          ? [await here.tick(now), await there.tick(now)]
          : await Promise.all([here.tick(now), there.tick(now)]);
      seen.push([...mine(a, workflow.workflow_id), ...mine(b, workflow.workflow_id)]);
    }
    for (const outcomes of seen) {
      expect(outcomes.filter((o) => o.outcome === 'claimed_elsewhere').length).toBeLessThanOrEqual(1);
      expect(outcomes.filter((o) => o.outcome !== 'claimed_elsewhere')).toHaveLength(1);
    }
    // The first started a run; it is still pending (no workers), so the five after it were skipped.
    expect(seen.map((outcomes) => outcomes.find((o) => o.outcome !== 'claimed_elsewhere')?.outcome)).toEqual([
      'started',
      'skipped',
      'skipped',
      'skipped',
      'skipped',
      'skipped',
    ]);
    expect(await runsOf(projectId)).toEqual([
      expect.objectContaining({ trigger: 'schedule', triggered_by: ada.user.user_id }),
    ]);
    const after = await call<Workflow>(server, 'GET', `/workflows/${workflow.workflow_id}`, {
      token: ada.access_token,
    });
    expect(after.body.next_check_at).toBe(new Date(first + 6 * FIVE_MINUTES).toISOString());
  });

  it('runs a watched workflow only when its folder changed', async () => {
    const { projectId, folder, workflow } = await located({ watch: { interval_seconds: 60 } });
    const scheduler = schedulerOf(server);
    let now = Date.parse(workflow.next_check_at ?? '');
    const look = async () => {
      const outcomes = mine(await scheduler.tick(new Date(now)), workflow.workflow_id);
      now += 60_000;
      return outcomes.map((o) => [o.outcome, o.reason ?? null]);
    };
    expect(await look()).toEqual([['unchanged', 'first_look']]);
    expect(await look()).toEqual([['unchanged', null]]);
    expect(await runsOf(projectId)).toEqual([]);
    await writeFile(join(folder, 'b.csv'), 'x\n2\n');
    expect(await look()).toEqual([['started', null]]);
    expect(await look()).toEqual([['unchanged', null]]);
    expect(await runsOf(projectId)).toEqual([expect.objectContaining({ trigger: 'watch' })]);
    // A change while that run is still going (no workers here) is skipped, and seen again next time.
    await writeFile(join(folder, 'c.csv'), 'x\n3\n');
    expect(await look()).toEqual([['skipped', 'the previous run is still going']]);
    expect(await look()).toEqual([['skipped', 'the previous run is still going']]);
  });

  it('starts nothing for a user who was disabled since setting the schedule', async () => {
    const carol = await createUser(server, admin.access_token, 'carol@example.org');
    const folder = join(imports, 'carol');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'a.csv'), 'x\n1\n');
    const imported = await call<{ project_id: string }>(server, 'POST', '/projects/import', {
      token: carol.access_token,
      body: `name: Carol's
workflows:
  - name: wf
    data_location: { structure: flat, locations: [ ${folder} ] }
    schedule: { cron: "0 * * * *" }
    data_collections:
      - { tag: t, pattern: "[^/]+\\\\.csv", format: csv }
`,
      headers: { 'content-type': 'application/yaml' },
    });
    expect(imported.status, imported.text).toBe(201);
    const workflows = await call<{ items: Workflow[] }>(
      server,
      'GET',
      `/projects/${imported.body.project_id}/workflows`,
      {
        token: carol.access_token,
      },
    );
    const [workflow] = workflows.body.items;
    expect(workflow?.schedule).toEqual({ cron: '0 * * * *' });
    const disabled = await call(server, 'PATCH', `/users/${carol.user.user_id}`, {
      token: admin.access_token,
      json: { disabled: true },
    });
    expect(disabled.status, disabled.text).toBe(200);
    const outcomes = await schedulerOf(server).tick(new Date(Date.parse(workflow?.next_check_at ?? '')));
    expect(mine(outcomes, workflow?.workflow_id ?? '')).toEqual([
      expect.objectContaining({ outcome: 'skipped', reason: expect.stringMatching(/disabled/) }),
    ]);
  });

  it('keeps a schedule through project.yaml, and its due time when the file did not change it', async () => {
    const { projectId, workflow } = await located({ schedule: { cron: '15 4 * * 1', timezone: 'Europe/Paris' } });
    const exported = await call(server, 'GET', `/projects/${projectId}/yaml`, { token: ada.access_token });
    expect(exported.status, exported.text).toBe(200);
    expect(exported.text).toContain('cron: 15 4 * * 1');
    expect(exported.text).toContain('timezone: Europe/Paris');
    const again = await call(server, 'POST', '/projects/import', {
      token: ada.access_token,
      body: exported.text,
      headers: { 'content-type': 'application/yaml' },
    });
    expect(again.status, again.text).toBe(200);
    const after = await call<Workflow>(server, 'GET', `/workflows/${workflow.workflow_id}`, {
      token: ada.access_token,
    });
    expect(after.body.schedule).toEqual({ cron: '15 4 * * 1', timezone: 'Europe/Paris' });
    expect(after.body.next_check_at).toBe(workflow.next_check_at);
  });

  it('is looked for by a process that runs jobs, whose worker then runs the ingestion', async () => {
    const { projectId, workflow } = await located({ schedule: { cron: '0 0 1 1 *' } });
    // Due long ago: the next look of a process with workers starts it.
    await server.context.database.db
      .updateTable('workflows')
      .set({ schedule_next_at: '2000-01-01T00:00:00.000Z' })
      .where('id', '=', workflow.workflow_id)
      .execute();
    const worker = await startTestServer(server.database, {
      SERVICE_JOBS_WORKERS: '1',
      SERVICE_SCHEDULES_TICK_SECONDS: '1',
    });
    try {
      await expect
        .poll(async () => (await runsOf(projectId)).map((run) => `${run.trigger} ${run.status}`), {
          timeout: 60_000,
          interval: 200,
        })
        .toEqual(['schedule success']);
    } finally {
      await worker.stop();
    }
    const after = await call<Workflow>(server, 'GET', `/workflows/${workflow.workflow_id}`, {
      token: ada.access_token,
    });
    expect(after.body.next_check_at).toMatch(/-01-01T00:00:00\.000Z$/);
  });
});
