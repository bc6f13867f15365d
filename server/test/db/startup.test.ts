import { generateKeyPairSync } from 'node:crypto';
import { migrateToLatest, openDatabase } from '@service/server';
import { decodeProtectedHeader } from 'jose';
import { expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createTestDatabase,
  describeEachDialect,
  login,
  startTestServer,
} from '../../../test/support/test-server.js';

function databaseConfig(url: string) {
  return url.startsWith('sqlite:')
    ? { kind: 'sqlite' as const, path: url.slice('sqlite:'.length) }
    : { kind: 'postgres' as const, url };
}

describeEachDialect('startup on a shared database', (dialect) => {
  it('migrates once, and migrating again changes nothing', async () => {
    const target = await createTestDatabase(dialect);
    const database = openDatabase(databaseConfig(target.url));
    try {
      expect((await migrateToLatest(database)).applied).toEqual([
        '0001_accounts',
        '0002_access',
        '0003_delta_commits',
        '0004_projects',
        '0005_delta_sources',
        '0006_jobs',
        '0007_dashboards',
        '0008_queue',
        '0009_drop_queue_probe',
        '0010_locations_declared_by',
        '0011_embed_tokens',
        '0012_dashboard_revision',
        '0013_worker_heartbeats',
        '0014_dashboard_copies',
        '0015_ingestion_run_leases',
        '0016_dashboard_tabs',
        '0017_dashboard_colors',
        '0018_access_tokens',
        '0019_dashboard_revisions',
        '0020_live_events',
        '0021_workflow_schedules',
        '0022_alerts',
        '0023_live_stream_leases',
        '0024_generated_dashboards',
      ]);
      expect((await migrateToLatest(database)).applied).toEqual([]);
      const tables = await database.db.introspection.getTables();
      expect(tables.map((table) => table.name)).toEqual(
        expect.arrayContaining([
          'users',
          'sessions',
          'refresh_tokens',
          'signing_keys',
          'rate_limit_counters',
          'dashboards',
          'dashboard_members',
        ]),
      );
    } finally {
      await database.close();
      await target.drop();
    }
  });

  it('has replicas share one signing key, so each accepts the other’s tokens', async () => {
    const database = await createTestDatabase(dialect);
    // PostgreSQL replicas race through startup in one process; SQLite connections in one process
    // would block each other's thread, so its concurrent start is covered by the CLI test with
    // real processes.
    const [a, b] =
      dialect === 'postgres'
        ? await Promise.all([startTestServer(database), startTestServer(database)])
        : [await startTestServer(database), await startTestServer(database)];
    try {
      const keys = await a.context.database.db.selectFrom('signing_keys').select('kid').execute();
      expect(keys).toHaveLength(1);
      const fromA = await login(a, ADMIN.email, ADMIN.password);
      expect((await call(b, 'GET', '/auth/me', { token: fromA.access_token })).status).toBe(200);
      const refreshedOnB = await call<{ access_token: string }>(b, 'POST', '/auth/refresh', {
        json: { refresh_token: fromA.refresh_token },
      });
      expect(refreshedOnB.status).toBe(200);
      expect((await call(a, 'GET', '/auth/me', { token: refreshedOnB.body.access_token })).status).toBe(200);
      // A logout on one replica reaches the other within moments (docs/api.md, session cache).
      await call(a, 'POST', '/auth/logout', { token: refreshedOnB.body.access_token });
      await expect
        .poll(async () => (await call(b, 'GET', '/auth/me', { token: refreshedOnB.body.access_token })).status, {
          timeout: 10_000,
          interval: 20,
        })
        .toBe(401);
      expect((await call(a, 'GET', '/auth/jwks.json')).body).toEqual((await call(b, 'GET', '/auth/jwks.json')).body);
    } finally {
      await a.stop();
      await b.stop();
      await database.drop();
    }
  });

  it('creates the bootstrap admin once and never overwrites it', async () => {
    const database = await createTestDatabase(dialect);
    const first = await startTestServer(database);
    const admin = await login(first, ADMIN.email, ADMIN.password);
    // The operator demotes nobody but changes the admin's state; a restart must keep it.
    const helper = await call<{ user_id: string }>(first, 'POST', '/users', {
      token: admin.access_token,
      json: { email: 'second-admin@example.org', password: 'second-admin-pass', role: 'admin' },
    });
    await call(first, 'PATCH', `/users/${admin.user.user_id}`, { token: admin.access_token, json: { role: 'user' } });
    await first.stop();

    const restarted = await startTestServer(database, { SERVICE_BOOTSTRAP_ADMIN_PASSWORD: 'a-different-password' });
    try {
      const users = await restarted.context.database.db
        .selectFrom('users')
        .selectAll()
        .where('email_normalized', '=', ADMIN.email)
        .execute();
      expect(users).toHaveLength(1);
      expect(users[0]?.role).toBe('user');
      await login(restarted, ADMIN.email, ADMIN.password);
      const changed = await call(restarted, 'POST', '/auth/login', {
        json: { email: ADMIN.email, password: 'a-different-password' },
      });
      expect(changed.status).toBe(401);
      expect(helper.status).toBe(201);
    } finally {
      await restarted.stop();
      await database.drop();
    }
  });
});

it('signs with the configured PEM key when one is given', async () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const server = await startTestServer('sqlite', { SERVICE_AUTH_JWT_PRIVATE_KEY: pem });
  try {
    const session = await login(server, ADMIN.email, ADMIN.password);
    const jwks = await call<{ keys: { kid: string; n: string }[] }>(server, 'GET', '/auth/jwks.json');
    expect(decodeProtectedHeader(session.access_token).kid).toBe(jwks.body.keys[0]?.kid);
    expect(jwks.body.keys[0]?.n).toBe(privateKey.export({ format: 'jwk' }).n);
    expect(await server.context.database.db.selectFrom('signing_keys').selectAll().execute()).toEqual([]);
  } finally {
    await server.stop();
    await server.database.drop();
  }
});
