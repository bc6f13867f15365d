import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** Opens /metrics, where the password verifications are counted. */
const INTERNAL_KEY = 'internal-key-0123456789-abcdefghijklmnopq';

describeEachDialect('accounts and sessions', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_AUTH_INTERNAL_API_KEY_ENV: INTERNAL_KEY });
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('registers an account whose email is unique in any letter case', async () => {
    const created = await call(server, 'POST', '/auth/register', {
      json: { email: 'Grace.Hopper@Example.org', password: 'compilers-are-fun' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      email: 'Grace.Hopper@Example.org',
      role: 'user',
      is_temporary: false,
      expires_at: null,
    });
    expect(created.body).not.toHaveProperty('password_hash');

    const again = await call(server, 'POST', '/auth/register', {
      json: { email: 'grace.hopper@example.ORG', password: 'another-password' },
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('email_taken');

    const stored = await server.context.database.db
      .selectFrom('users')
      .select('password_hash')
      .where('email_normalized', '=', 'grace.hopper@example.org')
      .executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^\$argon2id\$/);
  });

  it('refuses short passwords and invalid emails', async () => {
    const short = await call(server, 'POST', '/auth/register', { json: { email: 'x@example.org', password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.errors).toEqual([{ path: 'body.password', message: 'must be at least 12 characters' }]);
    const email = await call(server, 'POST', '/auth/register', {
      json: { email: 'not-an-email', password: 'long-enough-password' },
    });
    expect(email.status).toBe(400);
    expect((email.body.errors as { path: string }[])[0]?.path).toBe('body.email');
  });

  it('signs in with JSON and with the username/password form, case-insensitively', async () => {
    const json = await call<Session>(server, 'POST', '/auth/login', {
      json: { email: 'GRACE.HOPPER@example.org', password: 'compilers-are-fun' },
    });
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({
      token_type: 'bearer',
      expires_in: 900,
      user: { email: 'Grace.Hopper@Example.org' },
    });

    const form = await call<Session>(server, 'POST', '/auth/login', {
      body: new URLSearchParams({
        username: 'grace.hopper@example.org',
        password: 'compilers-are-fun',
        grant_type: 'password',
      }),
    });
    expect(form.status).toBe(200);
    const me = await call(server, 'GET', '/auth/me', { token: form.body.access_token });
    expect(me.body.email).toBe('Grace.Hopper@Example.org');
  });

  it('answers a wrong password and an unknown email the same way, each after one password verification', async () => {
    // What each costs in time is measured by `npm run bench -- login-timing`; here, that the work is done.
    const verifications = async () => {
      const metrics = await fetch(`${server.url}/metrics`, { headers: { 'x-internal-key': INTERNAL_KEY } });
      const text = await metrics.text();
      const count = (against: string) =>
        Number(new RegExp(`^password_verifications_total\\{against="${against}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
      return { stored: count('stored'), decoy: count('decoy') };
    };
    const before = await verifications();
    const wrongPassword = await call(server, 'POST', '/auth/login', {
      json: { email: ADMIN.email, password: 'wrong-password-123' },
    });
    const afterWrongPassword = await verifications();
    const unknownEmail = await call(server, 'POST', '/auth/login', {
      json: { email: 'nobody@example.org', password: 'wrong-password-123' },
    });
    const afterUnknownEmail = await verifications();

    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(unknownEmail.body).toEqual(wrongPassword.body);
    expect(wrongPassword.body.code).toBe('invalid_credentials');
    expect(afterWrongPassword).toEqual({ stored: before.stored + 1, decoy: before.decoy });
    expect(afterUnknownEmail).toEqual({ stored: afterWrongPassword.stored, decoy: afterWrongPassword.decoy + 1 });
  });

  it('rotates refresh tokens and revokes the whole session when a spent one comes back', async () => {
    const first = await login(server, ADMIN.email, ADMIN.password);
    const rotated = await call<Session>(server, 'POST', '/auth/refresh', {
      json: { refresh_token: first.refresh_token },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(first.refresh_token);
    expect((await call(server, 'GET', '/auth/me', { token: rotated.body.access_token })).status).toBe(200);

    const stored = await server.context.database.db.selectFrom('refresh_tokens').select('token_hash').execute();
    expect(stored.map((row) => row.token_hash)).not.toContain(first.refresh_token);

    const reused = await call(server, 'POST', '/auth/refresh', { json: { refresh_token: first.refresh_token } });
    expect(reused.status).toBe(401);
    expect(reused.body.code).toBe('token_invalid');
    // The thief's reuse ended the session: the legitimate pair is dead too.
    expect((await call(server, 'GET', '/auth/me', { token: rotated.body.access_token })).status).toBe(401);
    expect(
      (await call(server, 'POST', '/auth/refresh', { json: { refresh_token: rotated.body.refresh_token } })).status,
    ).toBe(401);
  });

  it('never lets two racing uses of one refresh token both get a working session', async () => {
    const session = await login(server, ADMIN.email, ADMIN.password);
    const answers = await Promise.all(
      [1, 2].map(() =>
        call<Session>(server, 'POST', '/auth/refresh', { json: { refresh_token: session.refresh_token } }),
      ),
    );
    // The second use is a reuse: it ends the session, so whatever the first one got is dead too.
    expect(answers.filter((answer) => answer.status === 200).length).toBeLessThanOrEqual(1);
    expect(answers.filter((answer) => answer.status === 401).length).toBeGreaterThanOrEqual(1);
    for (const answer of answers.filter((a) => a.status === 200)) {
      expect((await call(server, 'GET', '/auth/me', { token: answer.body.access_token })).status).toBe(401);
    }
    expect((await call(server, 'GET', '/auth/me', { token: session.access_token })).status).toBe(401);
  });

  it('refuses unknown refresh tokens', async () => {
    const answer = await call(server, 'POST', '/auth/refresh', { json: { refresh_token: 'made-up-token' } });
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('token_invalid');
  });

  it('ends the session on logout', async () => {
    const session = await login(server, ADMIN.email, ADMIN.password);
    const out = await call(server, 'POST', '/auth/logout', { token: session.access_token });
    expect(out.status).toBe(204);
    expect((await call(server, 'GET', '/auth/me', { token: session.access_token })).status).toBe(401);
    expect(
      (await call(server, 'POST', '/auth/refresh', { json: { refresh_token: session.refresh_token } })).status,
    ).toBe(401);
    expect((await call(server, 'POST', '/auth/logout')).status).toBe(401);
  });

  it('stops accepting a disabled or deleted user at once', async () => {
    const admin = await login(server, ADMIN.email, ADMIN.password);
    const disabled = await createUser(server, admin.access_token, 'to-disable@example.org');
    const deleted = await createUser(server, admin.access_token, 'to-delete@example.org');

    const patch = await call(server, 'PATCH', `/users/${disabled.user.user_id}`, {
      token: admin.access_token,
      json: { disabled: true },
    });
    expect(patch.status).toBe(200);
    expect((await call(server, 'GET', '/auth/me', { token: disabled.access_token })).status).toBe(401);
    expect(
      (await call(server, 'POST', '/auth/refresh', { json: { refresh_token: disabled.refresh_token } })).status,
    ).toBe(401);
    const relogin = await call(server, 'POST', '/auth/login', {
      json: { email: 'to-disable@example.org', password: 'to-disable@example.org-password' },
    });
    expect(relogin.status).toBe(401);

    const removal = await call(server, 'DELETE', `/users/${deleted.user.user_id}`, { token: admin.access_token });
    expect(removal.status).toBe(204);
    expect((await call(server, 'GET', '/auth/me', { token: deleted.access_token })).status).toBe(401);
    expect(
      (await call(server, 'POST', '/auth/refresh', { json: { refresh_token: deleted.refresh_token } })).status,
    ).toBe(401);
  });
});

describeEachDialect('registration switch', (dialect) => {
  it('answers 403 registration_disabled whatever the body, and creates nothing', async () => {
    const server = await startTestServer(dialect, { SERVICE_AUTH_REGISTRATION_DISABLED: 'true' });
    try {
      for (const json of [{ email: 'new@example.org', password: 'long-enough-password' }, { nonsense: 1 }]) {
        const answer = await call(server, 'POST', '/auth/register', { json });
        expect(answer.status).toBe(403);
        expect(answer.body.code).toBe('registration_disabled');
      }
      const users = await server.context.database.db.selectFrom('users').select('email').execute();
      expect(users.map((user) => user.email)).toEqual([ADMIN.email]);
      // Existing accounts still sign in.
      await login(server, ADMIN.email, ADMIN.password);
    } finally {
      await server.stop();
      await server.database.drop();
    }
  });
});

describe('password sign-in switch', () => {
  it('refuses before reading the body while OAuth is configured, whatever the body holds', async () => {
    const server = await startTestServer('sqlite', {
      SERVICE_AUTH_PASSWORD_LOGIN_DISABLED: 'true',
      SERVICE_AUTH_IDP_OAUTH_ENABLED: 'true',
      SERVICE_AUTH_IDP_OAUTH_CLIENT_ID: 'client',
      SERVICE_AUTH_IDP_OAUTH_CLIENT_SECRET: 'secret',
      SERVICE_AUTH_IDP_OAUTH_ISSUER: 'http://127.0.0.1:1',
    });
    try {
      const valid = await call(server, 'POST', '/auth/login', {
        json: { email: ADMIN.email, password: ADMIN.password },
      });
      expect(valid.status).toBe(403);
      expect(valid.body.code).toBe('password_login_disabled');
      const garbage = await call(server, 'POST', '/auth/login', {
        body: '{not json',
        headers: { 'content-type': 'application/json' },
      });
      expect(garbage.status).toBe(403);
      expect(garbage.body.code).toBe('password_login_disabled');
    } finally {
      await server.stop();
      await server.database.drop();
    }
  });
});
