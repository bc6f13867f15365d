import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
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

interface Members {
  owners: { email: string }[];
  editors: { email: string }[];
  viewers: { email: string }[];
}
interface Shared {
  permissions: Members;
  created_by: string | null;
}
interface AuditList {
  items: { type: string; actor_user_id: string | null; subject_user_id: string | null; details: object }[];
}

const ownersOf = (answer: { body: Shared }) => answer.body.permissions.owners.map((owner) => owner.email).sort();

describeEachDialect('deleting an account never orphans what it made', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let ops: Session;

  const as = (session: Session) => ({ token: session.access_token });
  const project = async (session: Session, name: string) => {
    const answer = await call<{ project_id: string }>(server, 'POST', '/projects', { ...as(session), json: { name } });
    expect(answer.status, answer.text).toBe(201);
    return answer.body.project_id;
  };
  const dashboard = async (session: Session, projectId: string, title: string) => {
    const answer = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      ...as(session),
      json: { project_id: projectId, title },
    });
    expect(answer.status, answer.text).toBe(201);
    return answer.body.dashboard_id;
  };
  const share = async (
    session: Session,
    projectId: string,
    members: { owners?: string[]; editors?: string[]; viewers?: string[] },
  ) => {
    const answer = await call(server, 'PUT', `/projects/${projectId}/permissions`, {
      ...as(session),
      json: { owners: [session.user.email], editors: [], viewers: [], is_public: false, ...members },
    });
    expect(answer.status, answer.text).toBe(200);
  };
  const read = (kind: 'projects' | 'dashboards', id: string) =>
    call<Shared>(server, 'GET', `/${kind}/${id}`, as(admin));
  const remove = (session: Session, userId: string, query = '') =>
    call(server, 'DELETE', `/users/${userId}${query}`, as(session));
  const lastDeletion = async () => {
    const log = await call<AuditList>(server, 'GET', '/audit-events?type=user.deleted&limit=1', as(admin));
    return log.body.items[0];
  };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    admin = await login(server, ADMIN.email, ADMIN.password);
    ops = await createUser(server, admin.access_token, 'ops@example.org');
    expect(
      (await call(server, 'PATCH', `/users/${ops.user.user_id}`, { ...as(admin), json: { role: 'admin' } })).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('hands what the account owns alone to the acting admin by default, and ends its access at once', async () => {
    const ada = await createUser(server, admin.access_token, 'ada@example.org');
    const bob = await createUser(server, admin.access_token, 'bob@example.org');
    const carol = await createUser(server, admin.access_token, 'carol@example.org');
    // The admin already created a "Survey": Ada's keeps no creator rather than break the name rule.
    await project(admin, 'Survey');
    const alone = await project(ada, 'Survey');
    await share(ada, alone, { editors: [carol.user.email] });
    const adasDashboard = await dashboard(ada, alone, 'Ada’s view');
    const carolsDashboard = await dashboard(carol, alone, 'Carol’s view');
    const coOwned = await project(ada, 'Shared');
    await share(ada, coOwned, { owners: [ada.user.email, bob.user.email] });
    const bobs = await project(bob, 'Bob’s');
    await share(bob, bobs, { editors: [ada.user.email] });
    const adaInBobs = await dashboard(ada, bobs, 'Ada in Bob’s');
    const embed = await call(server, 'POST', `/dashboards/${adasDashboard}/embed_tokens`, { ...as(ada), json: {} });
    expect(embed.status, embed.text).toBe(201);

    const summary = await call(server, 'GET', `/users/${ada.user.user_id}/deletion-summary`, as(admin));
    expect(summary.status, summary.text).toBe(200);
    const counts = { projects: 1, dashboards: 2, project_dashboards: 1, active_embed_tokens: 1, active_sessions: 1 };
    expect(summary.body).toEqual(counts);

    expect((await remove(admin, ada.user.user_id)).status).toBe(204);

    expect((await call(server, 'GET', '/auth/me', as(ada))).status).toBe(401);
    const refresh = await call(server, 'POST', '/auth/refresh', { json: { refresh_token: ada.refresh_token } });
    expect(refresh.status).toBe(401);
    const transferred = await read('projects', alone);
    expect(ownersOf(transferred)).toEqual([ADMIN.email]);
    expect(transferred.body.created_by).toBeNull();
    expect(transferred.body.permissions.editors.map((editor) => editor.email)).toEqual([carol.user.email]);
    expect(ownersOf(await read('projects', coOwned))).toEqual([bob.user.email]);
    for (const id of [adasDashboard, adaInBobs]) {
      const moved = await read('dashboards', id);
      expect(ownersOf(moved)).toEqual([ADMIN.email]);
      expect(moved.body.created_by).toBe(admin.user.user_id);
    }
    expect((await call(server, 'GET', `/dashboards/${carolsDashboard}`, as(carol))).status).toBe(200);
    const tokens = await call<{ items: { revoked: boolean }[] }>(
      server,
      'GET',
      `/dashboards/${adasDashboard}/embed_tokens`,
      as(admin),
    );
    expect(tokens.body.items.map((token) => token.revoked)).toEqual([true]);
    expect(await lastDeletion()).toMatchObject({
      actor_user_id: admin.user.user_id,
      subject_user_id: ada.user.user_id,
      details: { via: 'admin', owned: 'transferred', transfer_to: admin.user.user_id, ...counts },
    });
    expect((await call(server, 'GET', `/users/${ada.user.user_id}/deletion-summary`, as(admin))).status).toBe(404);
  });

  it('hands it to the admin named in transfer_to, promoting them where they had a lesser role', async () => {
    const dora = await createUser(server, admin.access_token, 'dora@example.org');
    const doras = await project(dora, 'Dora’s');
    await share(dora, doras, { viewers: [ops.user.email] });
    expect((await remove(admin, dora.user.user_id, `?transfer_to=${ops.user.user_id}`)).status).toBe(204);
    const moved = await read('projects', doras);
    expect(ownersOf(moved)).toEqual([ops.user.email]);
    expect(moved.body.permissions.viewers).toEqual([]);
    expect(moved.body.created_by).toBe(ops.user.user_id);
    expect(await lastDeletion()).toMatchObject({ details: { owned: 'transferred', transfer_to: ops.user.user_id } });
  });

  it('deletes what the account owns alone when asked, data included, and nothing it shares', async () => {
    const eve = await createUser(server, admin.access_token, 'eve@example.org');
    const frank = await createUser(server, admin.access_token, 'frank@example.org');
    const uploaded = await createProjectWithUpload(server, eve.access_token, 'Eve’s data');
    await share(eve, uploaded.projectId, { editors: [frank.user.email] });
    const inside = await dashboard(frank, uploaded.projectId, 'Frank’s view of Eve’s data');
    const coOwned = await project(eve, 'Eve and Frank');
    await share(eve, coOwned, { owners: [eve.user.email, frank.user.email] });
    const franks = await project(frank, 'Frank’s');
    await share(frank, franks, { editors: [eve.user.email] });
    const evesInFranks = await dashboard(eve, franks, 'Eve in Frank’s');
    const frankHere = await dashboard(frank, coOwned, 'Frank here');

    expect((await remove(admin, eve.user.user_id, '?delete_owned=true')).status).toBe(204);
    expect((await read('projects', uploaded.projectId)).status).toBe(404);
    expect((await call(server, 'GET', `/datacollections/${uploaded.collectionId}`, as(admin))).status).toBe(404);
    expect((await read('dashboards', evesInFranks)).status).toBe(404);
    expect((await read('dashboards', inside)).status).toBe(404);
    expect(ownersOf(await read('projects', coOwned))).toEqual([frank.user.email]);
    expect((await read('dashboards', frankHere)).status).toBe(200);
    expect((await read('projects', franks)).status).toBe(200);
    expect(await lastDeletion()).toMatchObject({
      details: { owned: 'deleted', transfer_to: null, projects: 1, dashboards: 1, project_dashboards: 1 },
    });
  });

  it('refuses a bad transfer target or choice with a 400 that names it, changing nothing', async () => {
    const gus = await createUser(server, admin.access_token, 'gus@example.org');
    const retired = await createUser(server, admin.access_token, 'retired@example.org');
    await call(server, 'PATCH', `/users/${retired.user.user_id}`, { ...as(admin), json: { role: 'admin' } });
    await call(server, 'PATCH', `/users/${retired.user.user_id}`, { ...as(admin), json: { disabled: true } });
    const guss = await project(gus, 'Gus’s');
    for (const [query, message] of [
      [`?transfer_to=${gus.user.user_id}`, 'the account being deleted'],
      ['?transfer_to=no-such-account', 'no account'],
      [`?transfer_to=${retired.user.user_id}`, 'not an active admin'],
      [
        `?transfer_to=${(await createUser(server, admin.access_token, 'plain@example.org')).user.user_id}`,
        'not an active admin',
      ],
      [`?transfer_to=${ops.user.user_id}&delete_owned=true`, 'not both'],
    ] as const) {
      const refused = await remove(admin, gus.user.user_id, query);
      expect(refused.status, query).toBe(400);
      expect(refused.body.code).toBe('validation_failed');
      const errors = refused.body.errors as { path: string; message: string }[];
      expect(errors[0]?.path).toBe('querystring.transfer_to');
      expect(errors[0]?.message).toContain(message);
    }
    const badFlag = await remove(admin, gus.user.user_id, '?delete_owned=maybe');
    expect(badFlag.status).toBe(400);
    expect((await call(server, 'GET', '/auth/me', as(gus))).status).toBe(200);
    expect(ownersOf(await read('projects', guss))).toEqual([gus.user.email]);
  });

  it('rolls everything back when the deletion fails after the handover began', async () => {
    const hal = await createUser(server, admin.access_token, 'hal@example.org');
    const hals = await project(hal, 'Hal’s');
    const halsDashboard = await dashboard(hal, hals, 'Hal’s view');
    const embed = await call(server, 'POST', `/dashboards/${halsDashboard}/embed_tokens`, { ...as(hal), json: {} });
    expect(embed.status).toBe(201);
    // The audit row is written last: refusing it fails the deletion after everything else was done.
    await refuseAuditOf(server, 'user.deleted');
    try {
      expect((await remove(admin, hal.user.user_id)).status).toBe(500);
      expect((await remove(admin, hal.user.user_id, '?delete_owned=true')).status).toBe(500);
    } finally {
      await allowAudit(server);
    }
    expect((await call(server, 'GET', '/auth/me', as(hal))).status).toBe(200);
    expect(ownersOf(await read('projects', hals))).toEqual([hal.user.email]);
    expect(ownersOf(await read('dashboards', halsDashboard))).toEqual([hal.user.email]);
    const tokens = await call<{ items: { revoked: boolean }[] }>(
      server,
      'GET',
      `/dashboards/${halsDashboard}/embed_tokens`,
      as(hal),
    );
    expect(tokens.body.items.map((token) => token.revoked)).toEqual([false]);
  });

  it('refuses deleting oneself, and anyone but an admin, changing nothing', async () => {
    const self = await remove(ops, ops.user.user_id);
    expect(self.status).toBe(409);
    expect(self.body.code).toBe('self_deletion');
    const ivy = await createUser(server, admin.access_token, 'ivy@example.org');
    const jack = await createUser(server, admin.access_token, 'jack@example.org');
    for (const [session, target, status] of [
      [ivy, ivy.user.user_id, 403],
      [ivy, jack.user.user_id, 403],
      [ivy, ops.user.user_id, 403],
    ] as const) {
      expect((await remove(session, target)).status).toBe(status);
      const summary = await call(server, 'GET', `/users/${target}/deletion-summary`, as(session));
      expect(summary.status).toBe(status);
    }
    expect((await call(server, 'DELETE', `/users/${jack.user.user_id}`)).status).toBe(401);
    expect((await call(server, 'GET', `/users/${jack.user.user_id}/deletion-summary`)).status).toBe(401);
    expect((await call(server, 'GET', '/auth/me', as(jack))).status).toBe(200);
    expect((await call(server, 'GET', '/auth/me', as(ops))).status).toBe(200);
  });

  it('deletes an account once when two admins delete it at the same time', async () => {
    const kim = await createUser(server, admin.access_token, 'kim@example.org');
    const kims = await project(kim, 'Kim’s');
    const answers = await Promise.all([
      remove(admin, kim.user.user_id),
      remove(ops, kim.user.user_id),
      remove(admin, kim.user.user_id, '?delete_owned=true'),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([204, 404, 404]);
    // Whoever won, the project has an owner (an admin's) or is gone with delete_owned: never orphaned.
    const left = await read('projects', kims);
    if (left.status === 200) expect(ownersOf(left)).toHaveLength(1);
    else expect(left.status).toBe(404);
  });
});

describeEachDialect('deleting admins at the same time', (dialect) => {
  it('never leaves no active admin', async () => {
    const server = await startTestServer(dialect);
    try {
      const first = await login(server, ADMIN.email, ADMIN.password);
      const second = await createUser(server, first.access_token, 'second@example.org');
      await call(server, 'PATCH', `/users/${second.user.user_id}`, {
        token: first.access_token,
        json: { role: 'admin' },
      });
      const answers = await Promise.all([
        call(server, 'DELETE', `/users/${second.user.user_id}`, { token: first.access_token }),
        call(server, 'DELETE', `/users/${first.user.user_id}`, { token: second.access_token }),
      ]);
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses[0]).toBe(204);
      expect([401, 409]).toContain(statuses[1]);
      expect(await server.context.users.repository.countActiveAdmins()).toBe(1);
    } finally {
      await server.stop();
      await server.database.drop();
    }
  });
});

/** Makes the database refuse audit rows of one type (a trigger), as a failing write would. */
async function refuseAuditOf(server: TestServer, type: string): Promise<void> {
  const { db, dialect } = server.context.database;
  if (dialect === 'sqlite') {
    await sql
      .raw(
        `CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events WHEN NEW.type = '${type}' BEGIN SELECT RAISE(ABORT, 'refused'); END`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(
      `CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.type = '${type}' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`,
    )
    .execute(db);
  await sql
    .raw('CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION refuse_audit()')
    .execute(db);
}

async function allowAudit(server: TestServer): Promise<void> {
  const { db, dialect } = server.context.database;
  if (dialect === 'sqlite') {
    await sql.raw('DROP TRIGGER refuse_audit').execute(db);
    return;
  }
  await sql.raw('DROP TRIGGER refuse_audit ON audit_events').execute(db);
  await sql.raw('DROP FUNCTION refuse_audit()').execute(db);
}

describe.skipIf(inject('postgresAdminUrl') === '')('deleting an account while a co-owner steps down', () => {
  it('waits for the step-down, then hands over what became owned alone: never an ownerless project', async () => {
    const server = await startTestServer('postgres');
    const client = new pg.Client({ connectionString: server.database.url });
    await client.connect();
    try {
      const admin = await login(server, ADMIN.email, ADMIN.password);
      const ada = await createUser(server, admin.access_token, 'ada@example.org');
      const bob = await createUser(server, admin.access_token, 'bob@example.org');
      const created = await call<{ project_id: string }>(server, 'POST', '/projects', {
        token: ada.access_token,
        json: { name: 'Ours' },
      });
      const projectId = created.body.project_id;
      await call(server, 'PUT', `/projects/${projectId}/permissions`, {
        token: ada.access_token,
        json: { owners: [ada.user.email, bob.user.email], editors: [], viewers: [], is_public: false },
      });
      // Bob steps down in a transaction that has not committed yet.
      await client.query('BEGIN');
      await client.query('DELETE FROM project_members WHERE project_id = $1 AND user_id = $2', [
        projectId,
        bob.user.user_id,
      ]);
      const deletion = call(server, 'DELETE', `/users/${ada.user.user_id}`, { token: admin.access_token });
      // The deletion waits on Bob's row rather than count him as an owner he is ceasing to be.
      await expect
        .poll(async () => {
          const waiting = await client.query(
            "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          );
          return waiting.rowCount;
        })
        .toBe(1);
      await client.query('COMMIT');
      expect((await deletion).status).toBe(204);
      const project = await call<Shared>(server, 'GET', `/projects/${projectId}`, { token: admin.access_token });
      expect(ownersOf(project)).toEqual([ADMIN.email]);
    } finally {
      await client.end();
      await server.stop();
      await server.database.drop();
    }
  });
});
