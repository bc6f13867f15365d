import { expect, it } from 'vitest';
import { call, createTestDatabase, describeEachDialect, startTestServer } from '../../../test/support/test-server.js';

describeEachDialect('login rate limit', (dialect) => {
  it('answers 429 with Retry-After after 10 attempts a minute, counted in the database across replicas', async () => {
    const database = await createTestDatabase(dialect);
    const first = await startTestServer(database);
    const second = await startTestServer(database);
    try {
      const attempt = (server: typeof first) =>
        call(server, 'POST', '/auth/login', { json: { email: 'victim@example.org', password: 'guess-number-x' } });
      // Alternate replicas: a per-process counter would let 20 attempts through.
      for (let i = 0; i < 10; i++) {
        expect((await attempt(i % 2 === 0 ? first : second)).status).toBe(401);
      }
      for (const server of [first, second]) {
        const refused = await attempt(server);
        expect(refused.status).toBe(429);
        expect(refused.body.code).toBe('rate_limited');
        const retryAfter = Number(refused.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(60);
      }
      // Another email from the same address is counted separately.
      const other = await call(first, 'POST', '/auth/login', {
        json: { email: 'other@example.org', password: 'guess-number-x' },
      });
      expect(other.status).toBe(401);

      const counters = await first.context.database.db.selectFrom('rate_limit_counters').selectAll().execute();
      expect(counters.find((row) => row.key.includes('victim@example.org'))?.hits).toBe(12);
    } finally {
      await first.stop();
      await second.stop();
      await database.drop();
    }
  });
});

describeEachDialect('registration rate limit', (dialect) => {
  it('answers 429 once an address has used its registrations, counted in the database across replicas', async () => {
    const database = await createTestDatabase(dialect);
    const env = { SERVICE_AUTH_REGISTRATION_RATE_LIMIT: '3/hour' };
    const first = await startTestServer(database, env);
    const second = await startTestServer(database, env);
    try {
      const register = (server: typeof first, n: number) =>
        call(server, 'POST', '/auth/register', {
          json: { email: `new-${n}@example.org`, password: 'long-enough-password' },
        });
      expect((await register(first, 1)).status).toBe(201);
      expect((await register(second, 2)).status).toBe(201);
      // A refused attempt counts too: it is what probes which emails exist.
      expect((await register(first, 1)).status).toBe(409);
      for (const server of [first, second]) {
        const refused = await register(server, 9);
        expect(refused.status).toBe(429);
        expect(refused.body.code).toBe('rate_limited');
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      const users = await first.context.database.db
        .selectFrom('users')
        .select('email')
        .where('email', 'like', 'new-%')
        .execute();
      expect(users.map((user) => user.email).sort()).toEqual(['new-1@example.org', 'new-2@example.org']);
    } finally {
      await first.stop();
      await second.stop();
      await database.drop();
    }
  });
});
