import { expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createUser,
  describeEachDialect,
  login,
  startTestServer,
} from '../../../test/support/test-server.js';

interface AuditList {
  items: {
    type: string;
    subject_email: string | null;
    actor_user_id: string | null;
    details: Record<string, unknown>;
  }[];
  total: number;
}

describeEachDialect('audit log', (dialect) => {
  it('records security events and shows them to admins only, newest first, filterable', async () => {
    const server = await startTestServer(dialect);
    try {
      await call(server, 'POST', '/auth/login', { json: { email: ADMIN.email, password: 'wrong-password-1' } });
      const admin = await login(server, ADMIN.email, ADMIN.password);
      const person = await createUser(server, admin.access_token, 'audited@example.org');
      await call(server, 'PATCH', `/users/${person.user.user_id}`, {
        token: admin.access_token,
        json: { role: 'admin' },
      });
      await call(server, 'PATCH', `/users/${person.user.user_id}`, {
        token: admin.access_token,
        json: { role: 'user' },
      });
      await call(server, 'POST', '/auth/magic_link', { token: person.access_token, json: {} });
      await call(server, 'DELETE', `/users/${person.user.user_id}`, { token: admin.access_token });

      const all = await call<AuditList>(server, 'GET', '/audit-events?limit=200', { token: admin.access_token });
      expect(all.status).toBe(200);
      const types = all.body.items.map((item) => item.type).reverse();
      expect(types).toEqual([
        'user.created', // bootstrap admin
        'login.failed',
        'login.succeeded',
        'user.created',
        'login.succeeded',
        'user.role_changed',
        'user.role_changed',
        'magic_link.issued',
        'user.deleted',
      ]);
      const failed = all.body.items.find((item) => item.type === 'login.failed');
      expect(failed?.details).toEqual({ reason: 'wrong_password' });
      expect(JSON.stringify(all.body)).not.toContain('wrong-password-1');
      const roleChange = all.body.items.find((item) => item.type === 'user.role_changed');
      expect(roleChange?.actor_user_id).toBe(admin.user.user_id);

      const filtered = await call<AuditList>(server, 'GET', '/audit-events?type=user.role_changed', {
        token: admin.access_token,
      });
      expect(filtered.body.total).toBe(2);
      const bad = await call(server, 'GET', '/audit-events?type=nonsense', { token: admin.access_token });
      expect(bad.status).toBe(400);

      const user = await createUser(server, admin.access_token, 'curious@example.org');
      expect((await call(server, 'GET', '/audit-events', { token: user.access_token })).status).toBe(403);
      expect((await call(server, 'GET', '/audit-events')).status).toBe(401);
    } finally {
      await server.stop();
      await server.database.drop();
    }
  });
});
