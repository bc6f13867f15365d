import { afterAll, beforeAll, expect, it } from 'vitest';
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

interface Created {
  token_id: string;
  token: string;
  name: string;
  scope: string;
  project_ids: string[] | null;
  expires_at: string;
}

describeEachDialect('personal access tokens', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let ada: Session;
  let mine: { projectId: string; collectionId: string };
  let other: { projectId: string };

  const createToken = async (session: Session, json: Record<string, unknown>) => {
    const answer = await call<Created>(server, 'POST', '/auth/tokens', { token: session.access_token, json });
    expect(answer.status, answer.text).toBe(201);
    return answer.body;
  };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    admin = await login(server, ADMIN.email, ADMIN.password);
    ada = await createUser(server, admin.access_token, 'ada@example.org');
    mine = await createProjectWithUpload(server, ada.access_token, 'mine');
    other = await createProjectWithUpload(server, ada.access_token, 'other');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('is created once with its secret, listed without it, used, and revoked', async () => {
    const created = await createToken(ada, { name: 'pipeline', expires_in_days: 30, scope: 'write' });
    expect(created.token).toMatch(/^pat_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ name: 'pipeline', scope: 'write', project_ids: null });
    const days = (Date.parse(created.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);

    const stored = await server.context.database.db
      .selectFrom('access_tokens')
      .select('token_hash')
      .where('id', '=', created.token_id)
      .executeTakeFirstOrThrow();
    expect(stored.token_hash).not.toContain(created.token.slice(4));

    const me = await call<{ email: string }>(server, 'GET', '/auth/me', { token: created.token });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe('ada@example.org');
    // Used again at once: still one recorded use (at most one write a minute per token).
    expect((await call(server, 'GET', '/projects', { token: created.token })).status).toBe(200);

    const list = await call<{ items: Record<string, unknown>[]; total: number }>(server, 'GET', '/auth/tokens', {
      token: ada.access_token,
    });
    expect(list.status).toBe(200);
    const listed = list.body.items.find((item) => item.token_id === created.token_id);
    expect(listed).toMatchObject({ name: 'pipeline', scope: 'write', last_used_from: '127.0.0.1' });
    expect(typeof listed?.last_used_at).toBe('string');
    expect(JSON.stringify(list.body)).not.toContain(created.token.slice(4));

    // Someone else's token does not exist for them.
    const admins = await call(server, 'DELETE', `/auth/tokens/${created.token_id}`, { token: admin.access_token });
    expect(admins.status).toBe(404);
    const revoked = await call(server, 'DELETE', `/auth/tokens/${created.token_id}`, { token: ada.access_token });
    expect(revoked.status).toBe(204);
    const after = await call<{ code: string }>(server, 'GET', '/auth/me', { token: created.token });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('token_invalid');
  });

  it('refuses expiries beyond a year, unknown scopes and projects the user cannot read', async () => {
    const token = ada.access_token;
    const tooLong = await call(server, 'POST', '/auth/tokens', {
      token,
      json: { name: 'x', expires_in_days: 367, scope: 'read' },
    });
    expect(tooLong.status).toBe(400);
    const scope = await call(server, 'POST', '/auth/tokens', { token, json: { name: 'x', scope: 'admin' } });
    expect(scope.status).toBe(400);
    const adminProject = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token: admin.access_token,
      json: { name: 'admins' },
    });
    const foreign = await call<{ errors: { path: string }[] }>(server, 'POST', '/auth/tokens', {
      token,
      json: { name: 'x', scope: 'read', project_ids: [mine.projectId, adminProject.body.project_id] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors.map((error) => error.path)).toEqual(['body.project_ids[1]']);
  });

  it('a read token reads but every write is 403 forbidden', async () => {
    const { token } = await createToken(ada, { name: 'reader', scope: 'read' });
    expect((await call(server, 'GET', `/projects/${mine.projectId}`, { token })).status).toBe(200);
    const preview = await call(server, 'GET', `/datacollections/${mine.collectionId}/preview`, { token });
    expect(preview.status).toBe(200);
    const write = await call<{ code: string }>(server, 'PATCH', `/projects/${mine.projectId}`, {
      token,
      json: { description: 'changed' },
    });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('forbidden');
    const create = await call(server, 'POST', '/projects', { token, json: { name: 'new' } });
    expect(create.status).toBe(403);
  });

  it('a project-limited token finds other projects absent (404) and lists only its own', async () => {
    const { token } = await createToken(ada, { name: 'one', scope: 'write', project_ids: [mine.projectId] });
    expect((await call(server, 'GET', `/projects/${mine.projectId}`, { token })).status).toBe(200);
    const patched = await call(server, 'PATCH', `/projects/${mine.projectId}`, {
      token,
      json: { description: 'by token' },
    });
    expect(patched.status).toBe(200);
    const elsewhere = await call<{ code: string }>(server, 'GET', `/projects/${other.projectId}`, { token });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.code).toBe('not_found');
    const patchOther = await call(server, 'PATCH', `/projects/${other.projectId}`, {
      token,
      json: { description: 'x' },
    });
    expect(patchOther.status).toBe(404);
    const list = await call<{ items: { project_id: string }[]; total: number }>(server, 'GET', '/projects', {
      token,
    });
    expect(list.body.items.map((item) => item.project_id)).toEqual([mine.projectId]);
    expect(list.body.total).toBe(1);
    // It cannot make a project outside its list either.
    expect((await call(server, 'POST', '/projects', { token, json: { name: 'outside' } })).status).toBe(403);
  });

  it('cannot manage tokens or sign-in links, nor administer accounts', async () => {
    const { token } = await createToken(ada, { name: 'writer', scope: 'write' });
    const mint = await call(server, 'POST', '/auth/tokens', { token, json: { name: 'more', scope: 'write' } });
    expect(mint.status).toBe(403);
    expect((await call(server, 'GET', '/auth/tokens', { token })).status).toBe(403);
    expect((await call(server, 'POST', '/auth/magic_link', { token, json: {} })).status).toBe(403);
    const adminToken = await createToken(admin, { name: 'ops', scope: 'write' });
    expect((await call(server, 'GET', '/users', { token: adminToken.token })).status).toBe(403);
    expect((await call(server, 'GET', '/projects', { token: adminToken.token })).status).toBe(200);
  });

  it('stops working when it expires, when its user is disabled or deleted', async () => {
    const bob = await createUser(server, admin.access_token, 'bob@example.org');
    const created = await createToken(bob, { name: 'bob', scope: 'write' });
    expect((await call(server, 'GET', '/auth/me', { token: created.token })).status).toBe(200);

    await server.context.database.db
      .updateTable('access_tokens')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', created.token_id)
      .execute();
    expect((await call(server, 'GET', '/auth/me', { token: created.token })).status).toBe(401);

    const second = await createToken(bob, { name: 'bob-2', scope: 'read' });
    const disable = await call(server, 'PATCH', `/users/${bob.user.user_id}`, {
      token: admin.access_token,
      json: { disabled: true },
    });
    expect(disable.status).toBe(200);
    expect((await call(server, 'GET', '/auth/me', { token: second.token })).status).toBe(401);
    await call(server, 'PATCH', `/users/${bob.user.user_id}`, { token: admin.access_token, json: { disabled: false } });
    expect((await call(server, 'GET', '/auth/me', { token: second.token })).status).toBe(200);

    const deleted = await call(server, 'DELETE', `/users/${bob.user.user_id}`, { token: admin.access_token });
    expect(deleted.status).toBe(204);
    expect((await call(server, 'GET', '/auth/me', { token: second.token })).status).toBe(401);
    const left = await server.context.database.db
      .selectFrom('access_tokens')
      .select('id')
      .where('user_id', '=', bob.user.user_id)
      .execute();
    expect(left).toEqual([]);
  });

  it('refuses unknown and malformed tokens with 401', async () => {
    const unknown = await call<{ code: string }>(server, 'GET', '/auth/me', { token: `pat_${'A'.repeat(43)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('token_invalid');
  });
});
