import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withClockAhead } from '../../../test/support/clock.js';
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

interface Project {
  project_id: string;
  name: string;
  is_public: boolean;
  my_role: string;
  permissions: { owners: { email: string }[]; editors: { email: string }[]; viewers: { email: string }[] };
}
interface ProjectList {
  items: Project[];
  total: number;
}

describeEachDialect('projects', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let ada: Session;
  let bob: Session;
  let eve: Session;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    admin = await login(server, ADMIN.email, ADMIN.password);
    ada = await createUser(server, admin.access_token, 'ada@example.org');
    bob = await createUser(server, admin.access_token, 'bob@example.org');
    eve = await createUser(server, admin.access_token, 'eve@example.org');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const create = (token: string, json: Record<string, unknown>) =>
    call<Project>(server, 'POST', '/projects', { token, json });

  it('makes the creator the owner, and refuses a name they already use', async () => {
    const created = await create(ada.access_token, { name: 'Penguins', description: 'Body measurements' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Penguins',
      is_public: false,
      my_role: 'owner',
      permissions: { owners: [{ email: 'ada@example.org' }], editors: [], viewers: [] },
    });
    const again = await create(ada.access_token, { name: 'Penguins' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'name_taken' });
    // Another person may use the same name.
    expect((await create(bob.access_token, { name: 'Penguins' })).status).toBe(201);
  });

  it('refuses bad input field by field', async () => {
    const answer = await call(server, 'POST', '/projects', { token: ada.access_token, json: { name: '', extra: 1 } });
    expect(answer.status).toBe(400);
    expect([...new Set((answer.body.errors as { path: string }[]).map((e) => e.path))].sort()).toEqual([
      'body.extra',
      'body.name',
    ]);
  });

  it('shares through permissions: editors change, viewers read, others see nothing', async () => {
    const project = (await create(ada.access_token, { name: 'Shared' })).body;
    const id = project.project_id;
    const shared = await call<Project>(server, 'PUT', `/projects/${id}/permissions`, {
      token: ada.access_token,
      json: {
        owners: ['ada@example.org'],
        editors: ['BOB@example.org'],
        viewers: [eve.user.user_id],
        is_public: false,
      },
    });
    expect(shared.status).toBe(200);
    expect(shared.body.permissions.editors.map((m) => m.email)).toEqual(['bob@example.org']);
    expect(shared.body.permissions.viewers.map((m) => m.email)).toEqual(['eve@example.org']);

    const edit = await call<Project>(server, 'PATCH', `/projects/${id}`, {
      token: bob.access_token,
      json: { description: 'by bob' },
    });
    expect(edit.status).toBe(200);
    expect(edit.body.my_role).toBe('editor');
    expect(
      (
        await call(server, 'PUT', `/projects/${id}/permissions`, {
          token: bob.access_token,
          json: { owners: ['bob@example.org'], is_public: true },
        })
      ).status,
    ).toBe(403);
    expect((await call(server, 'DELETE', `/projects/${id}`, { token: bob.access_token })).status).toBe(403);
    expect((await call(server, 'GET', `/projects/${id}`, { token: eve.access_token })).body.my_role).toBe('viewer');
    expect(
      (await call(server, 'PATCH', `/projects/${id}`, { token: eve.access_token, json: { description: 'x' } })).status,
    ).toBe(403);

    const stranger = await createUser(server, admin.access_token, 'stranger@example.org');
    const hidden = await call(server, 'GET', `/projects/${id}`, { token: stranger.access_token });
    const missing = await call(server, 'GET', '/projects/00000000-0000-7000-8000-000000000000', {
      token: stranger.access_token,
    });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ ...missing.body, detail: hidden.body.detail });
    expect((await call(server, 'GET', `/projects/${id}`)).status).toBe(401);
  });

  it('answers the sharing as written when the owner hands the project over and loses sight of it', async () => {
    const project = (await create(ada.access_token, { name: 'Handed over' })).body;
    const answer = await call<Project>(server, 'PUT', `/projects/${project.project_id}/permissions`, {
      token: ada.access_token,
      json: { owners: ['bob@example.org'], is_public: false },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.permissions.owners.map((m) => m.email)).toEqual(['bob@example.org']);
    expect(answer.body.my_role).toBeNull();
    expect((await call(server, 'GET', `/projects/${project.project_id}`, { token: ada.access_token })).status).toBe(
      404,
    );
    const bobs = await call<Project>(server, 'GET', `/projects/${project.project_id}`, { token: bob.access_token });
    expect(bobs.body.my_role).toBe('owner');
    // Later tests count the projects people see.
    expect((await call(server, 'DELETE', `/projects/${project.project_id}`, { token: bob.access_token })).status).toBe(
      204,
    );
  });

  it('refuses unknown members, people listed twice, and an empty owner list, changing nothing', async () => {
    const project = (await create(ada.access_token, { name: 'Guarded' })).body;
    const answer = await call(server, 'PUT', `/projects/${project.project_id}/permissions`, {
      token: ada.access_token,
      json: { owners: ['ada@example.org', 'ghost@example.org'], editors: ['ada@example.org'], is_public: true },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toEqual([
      { path: 'body.owners[1]', message: 'no account "ghost@example.org"' },
      { path: 'body.editors[0]', message: 'this person is listed twice' },
    ]);
    const empty = await call(server, 'PUT', `/projects/${project.project_id}/permissions`, {
      token: ada.access_token,
      json: { owners: [], is_public: true },
    });
    expect(empty.status).toBe(400);
    const after = await call<Project>(server, 'GET', `/projects/${project.project_id}`, { token: ada.access_token });
    expect(after.body.is_public).toBe(false);
    expect(after.body.permissions.owners).toHaveLength(1);
  });

  it('lists mine, shared and public projects, newest first, paged', async () => {
    const open = (await create(eve.access_token, { name: 'Open data', is_public: true })).body;
    const mine = await call<ProjectList>(server, 'GET', '/projects?scope=mine', { token: ada.access_token });
    expect(mine.body.items.map((p) => p.name)).toEqual(['Guarded', 'Shared', 'Penguins']);
    const shared = await call<ProjectList>(server, 'GET', '/projects?scope=shared', { token: bob.access_token });
    expect(shared.body.items.map((p) => p.name)).toEqual(['Shared']);
    const publicOnes = await call<ProjectList>(server, 'GET', '/projects?scope=public', { token: ada.access_token });
    expect(publicOnes.body.items.map((p) => p.project_id)).toEqual([open.project_id]);
    const all = await call<ProjectList>(server, 'GET', '/projects?limit=2', { token: ada.access_token });
    expect(all.body.total).toBe(4);
    expect(all.body.items.map((p) => p.name)).toEqual(['Open data', 'Guarded']);
    const everything = await call<ProjectList>(server, 'GET', '/projects', { token: admin.access_token });
    expect(everything.body.total).toBe(5);
    expect((await call(server, 'GET', '/projects?scope=everything', { token: ada.access_token })).status).toBe(400);
  });

  it('deletes a project with everything in it', async () => {
    const project = (await create(ada.access_token, { name: 'Doomed' })).body;
    const workflow = await call<{ workflow_id: string }>(server, 'POST', `/projects/${project.project_id}/workflows`, {
      token: ada.access_token,
      json: { name: 'wf' },
    });
    expect((await call(server, 'DELETE', `/projects/${project.project_id}`, { token: ada.access_token })).status).toBe(
      204,
    );
    expect((await call(server, 'GET', `/projects/${project.project_id}`, { token: ada.access_token })).status).toBe(
      404,
    );
    expect(
      (await call(server, 'GET', `/workflows/${workflow.body.workflow_id}`, { token: ada.access_token })).status,
    ).toBe(404);
  });
});

describe('projects in public mode', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', {
      SERVICE_AUTH_PUBLIC_MODE: 'true',
      SERVICE_AUTH_TEMPORARY_USER_EXPIRY_HOURS: '0.001',
      SERVICE_AUTH_TEMP_USER_RATE_LIMIT: '100/minute',
    });
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('shows anonymous visitors public projects only, read-only', async () => {
    const admin = await login(server, ADMIN.email, ADMIN.password);
    const open = await call<Project>(server, 'POST', '/projects', {
      token: admin.access_token,
      json: { name: 'Open', is_public: true },
    });
    const closed = await call<Project>(server, 'POST', '/projects', {
      token: admin.access_token,
      json: { name: 'Closed' },
    });
    const list = await call<ProjectList>(server, 'GET', '/projects');
    expect(list.status).toBe(200);
    expect(list.body.items.map((p) => p.name)).toEqual(['Open']);
    expect((await call<Project>(server, 'GET', `/projects/${open.body.project_id}`)).body.my_role).toBe('public');
    expect((await call(server, 'GET', `/projects/${closed.body.project_id}`)).status).toBe(404);
    expect(
      (await call(server, 'PATCH', `/projects/${open.body.project_id}`, { json: { description: 'x' } })).status,
    ).toBe(401);
    expect((await call(server, 'POST', '/projects', { json: { name: 'mine' } })).status).toBe(401);
  });

  it('removes a temporary user’s own projects with them, but not projects others co-own', async () => {
    const temp = await call<Session>(server, 'POST', '/auth/public/create_temporary_user', { json: {} });
    const token = temp.body.access_token;
    const solo = await call<Project>(server, 'POST', '/projects', { token, json: { name: 'Scratch' } });
    const joint = await call<Project>(server, 'POST', '/projects', { token, json: { name: 'Joint' } });
    expect(solo.status).toBe(201);
    await call(server, 'PUT', `/projects/${joint.body.project_id}/permissions`, {
      token,
      json: { owners: [temp.body.user.user_id, ADMIN.email], is_public: false },
    });
    // Ten seconds later (the lifetime is 0.001 h, 3.6 s): the user and its own project go.
    await withClockAhead(10_000, () => server.context.temporaryUsers.removeExpired());
    const projects = await server.context.database.db.selectFrom('projects').select('name').execute();
    expect(projects.map((p) => p.name).sort()).toEqual(['Closed', 'Joint', 'Open']);
  });
});
