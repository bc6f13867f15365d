import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import {
  ADMIN,
  call,
  createTestDatabase,
  createUser,
  describeEachDialect,
  login,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from '../../../test/support/test-server.js';

/**
 * Sessions found valid are remembered for a moment (SERVICE_AUTH_SESSION_CACHE_SECONDS). What a
 * process changes must still take effect at once in that process, and, on PostgreSQL, in every
 * other replica before the change is answered (each acknowledges the notice): these replicas keep
 * entries for ten minutes, so only the notice can make them refuse.
 */
const LONG_CACHE = { SERVICE_AUTH_SESSION_CACHE_SECONDS: '600' };

let servers: TestServer[] = [];
let databases: TestDatabase[] = [];

afterEach(async () => {
  for (const server of servers) await server.stop();
  for (const database of databases) await database.drop();
  servers = [];
  databases = [];
});

/** A fresh database, dropped after the test. */
async function freshDatabase(dialect: 'sqlite' | 'postgres'): Promise<TestDatabase> {
  const database = await createTestDatabase(dialect);
  databases.push(database);
  return database;
}

async function replica(database: TestDatabase, env: Record<string, string> = LONG_CACHE): Promise<TestServer> {
  const server = await startTestServer(database, env);
  servers.push(server);
  return server;
}

/** Two replicas on one fresh PostgreSQL database. */
async function twoReplicas(env: Record<string, string> = LONG_CACHE) {
  const database = await freshDatabase('postgres');
  return { database, first: await replica(database, env), second: await replica(database, env) };
}

async function me(server: TestServer, token: string) {
  return call<{ role: string }>(server, 'GET', '/auth/me', { token });
}

/** Polls until the answer has the wanted status; fails the test if it never comes. */
async function eventually(read: () => Promise<{ status: number }>, status: number): Promise<void> {
  await expect.poll(async () => (await read()).status, { timeout: 10_000, interval: 20 }).toBe(status);
}

describeEachDialect('session cache within one process', (dialect) => {
  it('sign-out, disabling, demotion and deletion take effect at once, however long the cache', async () => {
    const database = await freshDatabase(dialect);
    const server = await replica(database);
    const admin = await login(server, ADMIN.email, ADMIN.password);

    const signedOut = await createUser(server, admin.access_token, 'leaver@example.org');
    expect((await me(server, signedOut.access_token)).status).toBe(200);
    expect((await call(server, 'POST', '/auth/logout', { token: signedOut.access_token })).status).toBe(204);
    expect((await me(server, signedOut.access_token)).status).toBe(401);

    const promoted = await createUser(server, admin.access_token, 'promoted@example.org');
    const userId = promoted.user.user_id;
    await call(server, 'PATCH', `/users/${userId}`, { token: admin.access_token, json: { role: 'admin' } });
    expect((await me(server, promoted.access_token)).body.role).toBe('admin');
    await call(server, 'PATCH', `/users/${userId}`, { token: admin.access_token, json: { role: 'user' } });
    expect((await me(server, promoted.access_token)).body.role).toBe('user');
    expect((await call(server, 'GET', '/users', { token: promoted.access_token })).status).toBe(403);

    await call(server, 'PATCH', `/users/${userId}`, { token: admin.access_token, json: { disabled: true } });
    expect((await me(server, promoted.access_token)).status).toBe(401);

    const deleted = await createUser(server, admin.access_token, 'deleted@example.org');
    expect((await me(server, deleted.access_token)).status).toBe(200);
    await call(server, 'DELETE', `/users/${deleted.user.user_id}`, { token: admin.access_token });
    expect((await me(server, deleted.access_token)).status).toBe(401);
  });

  it('a reused refresh token revokes the cached session at once', async () => {
    const database = await freshDatabase(dialect);
    const server = await replica(database);
    const session = await login(server, ADMIN.email, ADMIN.password);
    const refreshed = await call<{ access_token: string }>(server, 'POST', '/auth/refresh', {
      json: { refresh_token: session.refresh_token },
    });
    expect(refreshed.status).toBe(200);
    expect((await me(server, refreshed.body.access_token)).status).toBe(200);
    const reused = await call(server, 'POST', '/auth/refresh', { json: { refresh_token: session.refresh_token } });
    expect(reused.status).toBe(401);
    expect((await me(server, refreshed.body.access_token)).status).toBe(401);
  });
});

describe.skipIf(inject('postgresAdminUrl') === '')('session cache across PostgreSQL replicas', () => {
  it('a sign-out on one replica ends the session on another that had cached it', async () => {
    const { first, second } = await twoReplicas();
    const session = await login(first, ADMIN.email, ADMIN.password);
    expect((await me(second, session.access_token)).status).toBe(200);

    expect((await call(first, 'POST', '/auth/logout', { token: session.access_token })).status).toBe(204);
    // At once: the sign-out is answered after the second replica acknowledged the notice.
    expect((await me(second, session.access_token)).status).toBe(401);
  });

  it('answers a sign-out only once every listening process has acknowledged it', async () => {
    const { database, first, second } = await twoReplicas();
    const session = await login(first, ADMIN.email, ADMIN.password);
    // A third process that listens like a replica and acknowledges only when told to.
    const ghost = new pg.Client({ connectionString: database.url, application_name: 'service-sessions:ghost' });
    await ghost.connect();
    try {
      const heard: string[] = [];
      ghost.on('notification', (message) => heard.push(message.payload ?? ''));
      await ghost.query('LISTEN service_session_invalidations');
      let answered = false;
      const logout = call(first, 'POST', '/auth/logout', { token: session.access_token }).then((answer) => {
        answered = true;
        return answer;
      });
      // The notice, then both replicas' acknowledgements of it: all the sign-out waits for now is ours.
      await expect.poll(() => heard.filter((payload) => payload.startsWith('a:')).length).toBe(2);
      const notice = heard.find((payload) => payload.startsWith('n:')) ?? '';
      expect(notice).toMatch(/^n:[^:]+:session:/);
      expect((await me(second, session.access_token)).status).toBe(401);
      expect(answered).toBe(false);
      await ghost.query('SELECT pg_notify($1, $2)', [
        'service_session_invalidations',
        `a:${notice.split(':')[1]}:ghost`,
      ]);
      expect((await logout).status).toBe(204);
    } finally {
      await ghost.end();
    }
  });

  it('does not wait longer than the cache trusts an entry for a process that never acknowledges', async () => {
    const { database, first, second } = await twoReplicas({ SERVICE_AUTH_SESSION_CACHE_SECONDS: '1' });
    const ghost = new pg.Client({ connectionString: database.url, application_name: 'service-sessions:mute' });
    await ghost.connect();
    try {
      await ghost.query('LISTEN service_session_invalidations');
      const session = await login(first, ADMIN.email, ADMIN.password);
      expect((await me(second, session.access_token)).status).toBe(200);
      expect((await call(first, 'POST', '/auth/logout', { token: session.access_token })).status).toBe(204);
      expect((await me(second, session.access_token)).status).toBe(401);
    } finally {
      await ghost.end();
    }
  });

  it('disabling, demoting and deleting a user on one replica reach the other', async () => {
    const { first, second } = await twoReplicas();
    const admin = await login(first, ADMIN.email, ADMIN.password);
    const user = await createUser(first, admin.access_token, 'someone@example.org');
    const userId = user.user.user_id;

    await call(first, 'PATCH', `/users/${userId}`, { token: admin.access_token, json: { role: 'admin' } });
    expect((await me(second, user.access_token)).body.role).toBe('admin');
    await call(first, 'PATCH', `/users/${userId}`, { token: admin.access_token, json: { role: 'user' } });
    expect((await call(second, 'GET', '/users', { token: user.access_token })).status).toBe(403);

    await call(first, 'PATCH', `/users/${userId}`, { token: admin.access_token, json: { disabled: true } });
    expect((await me(second, user.access_token)).status).toBe(401);

    // Deleting: the second replica had the session cached, and refuses it as soon as the delete answers.
    const deleted = await createUser(first, admin.access_token, 'deleted@example.org');
    expect((await me(second, deleted.access_token)).status).toBe(200);
    const removal = await call(first, 'DELETE', `/users/${deleted.user.user_id}?delete_owned=true`, {
      token: admin.access_token,
    });
    expect(removal.status).toBe(204);
    expect((await me(second, deleted.access_token)).status).toBe(401);
  });

  it('a replica whose notice connection was cut reconnects and forgets what it may have missed', async () => {
    const { database, first, second } = await twoReplicas();
    const session = await login(first, ADMIN.email, ADMIN.password);
    expect((await me(second, session.access_token)).status).toBe(200);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const listeners = `FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN service_session%'`;
      // Cut every replica's LISTEN connection, as a database restart or failover would.
      const cut = await client.query(`SELECT pg_terminate_backend(pid) ${listeners}`);
      expect(cut.rowCount).toBe(2);
      // A revocation written behind the replicas' backs, with no notice at all.
      await client.query("UPDATE sessions SET revoked_at = now()::text, revoked_reason = 'test' WHERE id = $1", [
        JSON.parse(Buffer.from(session.access_token.split('.')[1] ?? '', 'base64url').toString()).sid,
      ]);
      await eventually(() => me(second, session.access_token), 401);

      // Once both listen again, notices flow again: the second replica caches a new session and
      // only the notice of its sign-out can make it refuse.
      await eventually(async () => ({ status: (await client.query(`SELECT 1 ${listeners}`)).rowCount ?? 0 }), 2);
      const again = await login(first, ADMIN.email, ADMIN.password);
      expect((await me(second, again.access_token)).status).toBe(200);
      await call(first, 'POST', '/auth/logout', { token: again.access_token });
      expect((await me(second, again.access_token)).status).toBe(401);
    } finally {
      await client.end();
    }
  });
});

describe('session cache across processes sharing one SQLite file', () => {
  it('sees the other replica’s sign-outs and user changes within moments, long before the cache expires', async () => {
    const database = await freshDatabase('sqlite');
    const first = await replica(database);
    const second = await replica(database);
    const admin = await login(first, ADMIN.email, ADMIN.password);
    const user = await createUser(first, admin.access_token, 'sqlite-user@example.org');
    const other = await login(first, 'sqlite-user@example.org', 'sqlite-user@example.org-password');

    expect((await me(second, user.access_token)).status).toBe(200);
    expect((await me(second, other.access_token)).status).toBe(200);
    expect((await call(first, 'POST', '/auth/logout', { token: user.access_token })).status).toBe(204);
    await eventually(() => me(second, user.access_token), 401);
    expect((await me(second, other.access_token)).status).toBe(200);

    await call(first, 'PATCH', `/users/${user.user.user_id}`, { token: admin.access_token, json: { disabled: true } });
    await eventually(() => me(second, other.access_token), 401);
  });
});

describeEachDialect('session cache switched off', (dialect) => {
  it('with SERVICE_AUTH_SESSION_CACHE_SECONDS=0 a change made behind the server is seen on the next request', async () => {
    const database = await freshDatabase(dialect);
    const server = await replica(database, { SERVICE_AUTH_SESSION_CACHE_SECONDS: '0' });
    const other = await replica(database, { SERVICE_AUTH_SESSION_CACHE_SECONDS: '0' });
    const session = await login(server, ADMIN.email, ADMIN.password);
    expect((await me(other, session.access_token)).status).toBe(200);
    expect((await call(server, 'POST', '/auth/logout', { token: session.access_token })).status).toBe(204);
    expect((await me(other, session.access_token)).status).toBe(401);
  });
});
