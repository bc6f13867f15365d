import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withClockAhead } from '../../../test/support/clock.js';
import {
  ADMIN,
  call,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

describe('single-user mode', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { SERVICE_AUTH_SINGLE_USER_MODE: 'true' });
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('acts as one fixed admin for every request, with no sign-in, ignoring any token', async () => {
    const first = await call(server, 'GET', '/auth/me');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ role: 'admin', is_temporary: false });
    const withGarbage = await call(server, 'GET', '/auth/me', { token: 'garbage' });
    expect(withGarbage.body.user_id).toBe(first.body.user_id);
    expect((await call(server, 'GET', '/audit-events')).status).toBe(200);
  });

  it('keeps the same admin across restarts', async () => {
    const before = (await call(server, 'GET', '/auth/me')).body.user_id;
    await server.stop();
    const again = await startTestServer(server.database, { SERVICE_AUTH_SINGLE_USER_MODE: 'true' });
    try {
      expect((await call(again, 'GET', '/auth/me')).body.user_id).toBe(before);
    } finally {
      await again.stop();
      server = await startTestServer(server.database, { SERVICE_AUTH_SINGLE_USER_MODE: 'true' });
    }
  });

  it('has no user management and no registration', async () => {
    expect((await call(server, 'GET', '/users')).status).toBe(404);
    const register = await call(server, 'POST', '/auth/register', {
      json: { email: 'x@example.org', password: 'long-enough-password' },
    });
    expect(register.status).toBe(403);
  });

  it('tells clients there is nothing to sign in to', async () => {
    const { body } = await call(server, 'GET', '/utils/capabilities');
    expect(body).toMatchObject({
      auth_mode: 'single_user',
      auth: { registration: false, password_login: false, temporary_users: false, temporary_user_expiry_hours: null },
    });
  });
});

describeEachDialect('public mode temporary users', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      SERVICE_AUTH_PUBLIC_MODE: 'true',
      SERVICE_AUTH_TEMPORARY_USER_EXPIRY_HOURS: '0.001', // 3.6 seconds
      SERVICE_AUTH_TEMP_USER_RATE_LIMIT: '100/minute',
    });
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('creates a new throwaway account per call, signed in until it expires', async () => {
    const a = await call<Session & { user: { expires_at: string; is_temporary: boolean } }>(
      server,
      'POST',
      '/auth/public/create_temporary_user',
    );
    const b = await call<Session>(server, 'POST', '/auth/public/create_temporary_user', { json: {} });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.user.user_id).not.toBe(b.body.user.user_id);
    expect(a.body.user.is_temporary).toBe(true);
    const lifetime = Date.parse(a.body.user.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(0);
    expect(lifetime).toBeLessThanOrEqual(3600);
    // The access token never outlives the user.
    expect(a.body.expires_in).toBeLessThanOrEqual(4);

    const me = await call(server, 'GET', '/auth/me', { token: a.body.access_token });
    expect(me.status).toBe(200);
    expect((await call(server, 'GET', '/audit-events', { token: a.body.access_token })).status).toBe(403);
    const register = await call(server, 'POST', '/auth/register', {
      json: { email: 'x@example.org', password: 'long-enough-password' },
    });
    expect(register.status).toBe(403);

    // Ten seconds later: past the user's 3.6 s lifetime.
    const {
      me: late,
      refresh,
      removed,
    } = await withClockAhead(10_000, async () => ({
      me: await call(server, 'GET', '/auth/me', { token: a.body.access_token }),
      refresh: await call(server, 'POST', '/auth/refresh', { json: { refresh_token: a.body.refresh_token } }),
      removed: await Promise.all([
        server.context.temporaryUsers.removeExpired(),
        server.context.temporaryUsers.removeExpired(),
      ]),
    }));
    expect(late.status).toBe(401);
    expect(refresh.status).toBe(401);
    // Two cleanups at once remove each expired user exactly once.
    expect(removed[0] + removed[1]).toBe(2);
    const left = await server.context.database.db
      .selectFrom('users')
      .select('id')
      .where('is_temporary', '=', 1)
      .execute();
    expect(left).toEqual([]);
    const sessions = await server.context.database.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', 'in', [a.body.user.user_id, b.body.user.user_id])
      .execute();
    expect(sessions).toEqual([]);
    const audit = await server.context.database.db
      .selectFrom('audit_events')
      .select('type')
      .where('subject_user_id', '=', a.body.user.user_id)
      .orderBy('at')
      .execute();
    expect(audit.map((row) => row.type)).toEqual(['temporary_user.created', 'temporary_user.removed']);
  });

  it('lets anonymous visitors browse but asks them to sign in for anything personal', async () => {
    expect((await call(server, 'GET', '/utils/capabilities')).body).toMatchObject({
      auth_mode: 'public',
      auth: {
        temporary_users: true,
        access_code_required: false,
        temporary_user_expiry_hours: 0.001,
        registration: false,
      },
    });
    expect((await call(server, 'GET', '/auth/me')).status).toBe(401);
    expect((await call(server, 'POST', '/auth/magic_link')).status).toBe(401);
    // Registered accounts still sign in with a password.
    await login(server, ADMIN.email, ADMIN.password);
  });
});

describe('temporary users with an access code', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', {
      SERVICE_AUTH_PUBLIC_MODE: 'true',
      SERVICE_AUTH_DEMO_MODE: 'true',
      SERVICE_AUTH_PUBLIC_ACCESS_CODE: 'open-sesame',
      SERVICE_AUTH_TEMP_USER_RATE_LIMIT: '5/minute',
    });
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('requires the code, then limits guessing: refused attempts count, the limiter answers first', async () => {
    expect((await call(server, 'GET', '/utils/capabilities')).body).toMatchObject({
      auth_mode: 'demo',
      auth: { access_code_required: true, temporary_user_expiry_hours: 24 },
    });
    const none = await call(server, 'POST', '/auth/public/create_temporary_user', { json: {} });
    expect(none.status).toBe(403);
    expect(none.body.code).toBe('access_code_invalid');
    const wrong = await call(server, 'POST', '/auth/public/create_temporary_user', {
      json: { access_code: 'open-sesamE' },
    });
    expect(wrong.status).toBe(403);
    const right = await call<Session>(server, 'POST', '/auth/public/create_temporary_user', {
      json: { access_code: 'open-sesame' },
    });
    expect(right.status).toBe(201);
    expect(right.text).not.toContain('open-sesame');
    for (let i = 0; i < 2; i++) {
      await call(server, 'POST', '/auth/public/create_temporary_user', { json: { access_code: `guess-${i}` } });
    }
    // Sixth attempt in the window: refused before the code is even looked at.
    const limited = await call(server, 'POST', '/auth/public/create_temporary_user', {
      json: { access_code: 'open-sesame' },
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const temporaries = await server.context.database.db
      .selectFrom('users')
      .select('id')
      .where('is_temporary', '=', 1)
      .execute();
    expect(temporaries).toHaveLength(1);
  });
});

describe('temporary users outside public and demo mode', () => {
  it('do not exist, and the access code is ignored', async () => {
    const server = await startTestServer('sqlite', { SERVICE_AUTH_PUBLIC_ACCESS_CODE: 'open-sesame' });
    try {
      const answer = await call(server, 'POST', '/auth/public/create_temporary_user', {
        json: { access_code: 'open-sesame' },
      });
      expect(answer.status).toBe(404);
      expect((await call(server, 'GET', '/utils/capabilities')).body).toMatchObject({
        auth: { temporary_users: false, access_code_required: false },
      });
    } finally {
      await server.stop();
      await server.database.drop();
    }
  });
});
