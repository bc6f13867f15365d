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

interface AdminUser {
  user_id: string;
  email: string;
  role: string;
  disabled: boolean;
}

describeEachDialect('user administration', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let regular: Session;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    admin = await login(server, ADMIN.email, ADMIN.password);
    regular = await createUser(server, admin.access_token, 'regular@example.org');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const routes = (id: string) =>
    [
      ['GET', '/users', undefined],
      ['POST', '/users', { email: 'someone@example.org', password: 'someone-password' }],
      ['GET', `/users/${id}`, undefined],
      ['PATCH', `/users/${id}`, { role: 'admin' }],
      ['GET', `/users/${id}/deletion-summary`, undefined],
      ['DELETE', `/users/${id}`, undefined],
      ['DELETE', `/users/${id}?delete_owned=true`, undefined],
    ] as const;

  it('refuses anonymous callers with 401 and regular users with 403 on every route, changing nothing', async () => {
    for (const [method, path, json] of routes(regular.user.user_id)) {
      const anonymous = await call(server, method, path, json === undefined ? {} : { json });
      expect(anonymous.status, `${method} ${path} anonymous`).toBe(401);
      expect(anonymous.body.code).toBe('unauthenticated');
      const user = await call(server, method, path, {
        token: regular.access_token,
        ...(json === undefined ? {} : { json }),
      });
      expect(user.status, `${method} ${path} as user`).toBe(403);
      expect(user.body.code).toBe('forbidden');
    }
    const me = await call(server, 'GET', '/auth/me', { token: regular.access_token });
    expect(me.body.role).toBe('user');
    expect(await server.context.users.repository.findByEmail('someone@example.org')).toBeUndefined();
  });

  it('lets an admin create, list, read, change and delete accounts', async () => {
    const created = await call<AdminUser>(server, 'POST', '/users', {
      token: admin.access_token,
      json: { email: 'Ada@Example.org', password: 'analytical-engine', role: 'user' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: 'Ada@Example.org', role: 'user', disabled: false });
    const id = created.body.user_id;

    const list = await call<{ items: AdminUser[]; total: number; limit: number; skip: number }>(
      server,
      'GET',
      '/users?limit=2',
      {
        token: admin.access_token,
      },
    );
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(3);
    expect(list.body.limit).toBe(2);
    expect(list.body.items.map((user) => user.email)).toEqual(['Ada@Example.org', 'regular@example.org']);
    const second = await call<{ items: AdminUser[] }>(server, 'GET', '/users?limit=2&skip=2', {
      token: admin.access_token,
    });
    expect(second.body.items.map((user) => user.email)).toEqual([ADMIN.email]);

    expect((await call(server, 'GET', `/users/${id}`, { token: admin.access_token })).body.email).toBe(
      'Ada@Example.org',
    );

    const promoted = await call<AdminUser>(server, 'PATCH', `/users/${id}`, {
      token: admin.access_token,
      json: { role: 'admin' },
    });
    expect(promoted.status).toBe(200);
    expect(promoted.body.role).toBe('admin');
    const ada = await login(server, 'ada@example.org', 'analytical-engine');
    expect((await call(server, 'GET', '/users', { token: ada.access_token })).status).toBe(200);

    expect((await call(server, 'DELETE', `/users/${id}`, { token: admin.access_token })).status).toBe(204);
    expect((await call(server, 'GET', `/users/${id}`, { token: admin.access_token })).status).toBe(404);
    expect((await call(server, 'DELETE', `/users/${id}`, { token: admin.access_token })).status).toBe(404);
  });

  it('refuses a duplicate email and bad input', async () => {
    const duplicate = await call(server, 'POST', '/users', {
      token: admin.access_token,
      json: { email: 'REGULAR@example.org', password: 'whatever-password' },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.code).toBe('email_taken');

    const badRole = await call(server, 'POST', '/users', {
      token: admin.access_token,
      json: { email: 'new@example.org', password: 'whatever-password', role: 'superuser' },
    });
    expect(badRole.status).toBe(400);
    expect((badRole.body.errors as { path: string }[]).map((error) => error.path)).toEqual(['body.role']);

    const emptyPatch = await call(server, 'PATCH', `/users/${regular.user.user_id}`, {
      token: admin.access_token,
      json: {},
    });
    expect(emptyPatch.status).toBe(400);
    const badLimit = await call(server, 'GET', '/users?limit=500', { token: admin.access_token });
    expect(badLimit.status).toBe(400);
    expect((badLimit.body.errors as { path: string }[])[0]?.path).toBe('querystring.limit');
    expect((await call(server, 'GET', '/users/does-not-exist', { token: admin.access_token })).status).toBe(404);
  });

  it('never demotes, disables or deletes the last active admin', async () => {
    const adminId = admin.user.user_id;
    for (const [method, json] of [
      ['PATCH', { role: 'user' }],
      ['PATCH', { disabled: true }],
      ['DELETE', undefined],
    ] as const) {
      const answer = await call(server, method, `/users/${adminId}`, {
        token: admin.access_token,
        ...(json ? { json } : {}),
      });
      expect(answer.status).toBe(409);
      expect(answer.body.code).toBe('last_admin');
    }
    const me = await call(server, 'GET', '/auth/me', { token: admin.access_token });
    expect(me.body.role).toBe('admin');
  });

  it('re-enables a disabled account', async () => {
    const person = await createUser(server, admin.access_token, 'flaky@example.org');
    await call(server, 'PATCH', `/users/${person.user.user_id}`, {
      token: admin.access_token,
      json: { disabled: true },
    });
    const enabled = await call<AdminUser>(server, 'PATCH', `/users/${person.user.user_id}`, {
      token: admin.access_token,
      json: { disabled: false },
    });
    expect(enabled.body.disabled).toBe(false);
    await login(server, 'flaky@example.org', 'flaky@example.org-password');
  });
});
