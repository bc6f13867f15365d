import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

const PROVISIONING_KEY = 'provisioning-key-0123456789-abcdefghijkl';
const INTERNAL_KEY = 'internal-key-0123456789-abcdefghijklmnopq';

describe('with the keys unset', () => {
  it('answers 404 on provisioning, /internal/* and /metrics', async () => {
    const server = await startTestServer('sqlite');
    try {
      const provision = await call(server, 'POST', '/auth/provision_user', {
        json: { email: 'a@example.org' },
        headers: { 'x-provisioning-key': PROVISIONING_KEY },
      });
      expect(provision.status).toBe(404);
      for (const path of ['/internal/cleanup', '/internal/vacuum']) {
        expect((await call(server, 'POST', path, { headers: { 'x-internal-key': INTERNAL_KEY } })).status).toBe(404);
      }
      expect((await fetch(`${server.url}/metrics`, { headers: { 'x-internal-key': INTERNAL_KEY } })).status).toBe(404);
    } finally {
      await server.stop();
      await server.database.drop();
    }
  });
});

describeEachDialect('provisioning and internal keys', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      SERVICE_AUTH_PROVISIONING_API_KEY: PROVISIONING_KEY,
      SERVICE_AUTH_INTERNAL_API_KEY_ENV: INTERNAL_KEY,
    });
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const provision = (email: string, key?: string) =>
    call<Session & { created: boolean; code?: string }>(server, 'POST', '/auth/provision_user', {
      json: { email },
      headers: key === undefined ? {} : { 'x-provisioning-key': key },
    });

  it('creates the account once, then gets it, each time with a session', async () => {
    const first = await provision('Analyst@Example.org', PROVISIONING_KEY);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      created: true,
      token_type: 'bearer',
      user: { email: 'Analyst@Example.org', role: 'user' },
    });
    const second = await provision('analyst@example.org', PROVISIONING_KEY);
    expect(second.status).toBe(200);
    expect(second.body.created).toBe(false);
    expect(second.body.user.user_id).toBe(first.body.user.user_id);
    expect((await call(server, 'GET', '/auth/me', { token: second.body.access_token })).status).toBe(200);
  });

  it('refuses a missing or wrong key, and the internal key in its place', async () => {
    for (const key of [undefined, 'wrong', INTERNAL_KEY, `${PROVISIONING_KEY}x`]) {
      const answer = await provision('intruder@example.org', key);
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('invalid_key');
    }
    expect(await server.context.users.repository.findByEmail('intruder@example.org')).toBeUndefined();
  });

  it('never hands out an admin session', async () => {
    const answer = await provision(ADMIN.email, PROVISIONING_KEY);
    expect(answer.status).toBe(403);
    expect(answer.text).not.toContain('access_token');
  });

  it('audit-logs every use without the key', async () => {
    const rows = await server.context.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('type', 'in', ['provisioning.used', 'provisioning.refused'])
      .execute();
    expect(rows.filter((row) => row.type === 'provisioning.used')).toHaveLength(2);
    expect(rows.filter((row) => row.type === 'provisioning.refused').length).toBeGreaterThanOrEqual(5);
    expect(JSON.stringify(rows)).not.toContain(PROVISIONING_KEY);
    expect(JSON.stringify(rows)).not.toContain(INTERNAL_KEY);
  });

  it('opens /metrics and /internal/* with the internal key only', async () => {
    const admin = await login(server, ADMIN.email, ADMIN.password);
    const metrics = await fetch(`${server.url}/metrics`, { headers: { 'x-internal-key': INTERNAL_KEY } });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('http_requests_total');
    for (const headers of [
      { 'x-internal-key': PROVISIONING_KEY },
      { authorization: `Bearer ${admin.access_token}` },
      {} as Record<string, string>,
    ]) {
      expect((await fetch(`${server.url}/metrics`, { headers })).status).toBe(401);
      for (const path of ['/internal/cleanup', '/internal/vacuum']) {
        const refused = await call(server, 'POST', path, { headers });
        expect(refused.status).toBe(401);
        expect(refused.body.code).toBe('invalid_key');
      }
    }
    const cleanup = await call(server, 'POST', '/internal/cleanup', { headers: { 'x-internal-key': INTERNAL_KEY } });
    expect(cleanup.status).toBe(200);
    expect(cleanup.body).toMatchObject({ removed_temporary_users: 0 });
    // The internal key is no user: it does not open user routes.
    const me = await call(server, 'GET', '/auth/me', { headers: { 'x-internal-key': INTERNAL_KEY } });
    expect(me.status).toBe(401);
  });
});

describe('provisioning rate limit', () => {
  it('answers 429 after 30 calls a minute from one address, before looking at the key', async () => {
    const server = await startTestServer('sqlite', { SERVICE_AUTH_PROVISIONING_API_KEY: PROVISIONING_KEY });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 31; i++) {
        const answer = await call(server, 'POST', '/auth/provision_user', {
          json: { email: 'x@example.org' },
          headers: { 'x-provisioning-key': 'wrong-key' },
        });
        statuses.push(answer.status);
      }
      expect(statuses.slice(0, 30).every((status) => status === 401)).toBe(true);
      expect(statuses[30]).toBe(429);
    } finally {
      await server.stop();
      await server.database.drop();
    }
  });
});
