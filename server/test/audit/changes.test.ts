import { expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createUser,
  describeEachDialect,
  login,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

interface AuditEvent {
  type: string;
  actor_user_id: string | null;
  details: Record<string, unknown>;
}

/** The change events of the log (security events left out), oldest first. */
async function changes(server: TestServer, adminToken: string): Promise<AuditEvent[]> {
  const answer = await call<{ items: AuditEvent[] }>(server, 'GET', '/audit-events?limit=200', { token: adminToken });
  expect(answer.status).toBe(200);
  return answer.body.items.filter((event) => /^(project|collection|dashboard)\./.test(event.type)).reverse();
}

describeEachDialect('audit log of changes', (dialect) => {
  it('records who created, changed, shared and deleted projects, collections and dashboards, and what', async () => {
    const server = await startTestServer(dialect);
    try {
      const admin = await login(server, ADMIN.email, ADMIN.password);
      const ann = await createUser(server, admin.access_token, 'ann-audit@example.org');
      const bob = await createUser(server, admin.access_token, 'bob-audit@example.org');
      const token = ann.access_token;
      const project = await createProjectWithUpload(server, token, 'Audited soil');
      const rename = await call(server, 'PATCH', `/projects/${project.projectId}`, {
        token,
        json: { name: 'Audited soil 2' },
      });
      expect(rename.status, rename.text).toBe(200);
      const share = await call(server, 'PUT', `/projects/${project.projectId}/permissions`, {
        token,
        json: { owners: [ann.user.email], viewers: [bob.user.email], is_public: false },
      });
      expect(share.status, share.text).toBe(200);
      const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
        token,
        json: { project_id: project.projectId, title: 'pH' },
      });
      const id = dashboard.body.dashboard_id;
      const renamed = await call(server, 'PUT', `/dashboards/${id}`, { token, json: { title: 'Soil pH' } });
      expect(renamed.status, renamed.text).toBe(200);
      await call(server, 'PUT', `/dashboards/${id}/permissions`, {
        token,
        json: { owners: [ann.user.email], editors: [bob.user.email], is_public: false },
      });
      // Refused or failed changes leave no trace: a viewer's rename of the project, a stale save.
      const refused = await call(server, 'PATCH', `/projects/${project.projectId}`, {
        token: bob.access_token,
        json: { name: 'Bob was here' },
      });
      expect(refused.status).toBe(403);
      const stale = await call(server, 'PUT', `/dashboards/${id}`, {
        token: bob.access_token,
        json: { title: 'Stale' },
        headers: { 'if-match': '"0"' },
      });
      expect(stale.status).toBe(412);
      const tag = await call(server, 'PATCH', `/datacollections/${project.collectionId}`, {
        token,
        json: { tag: 'soil' },
      });
      expect(tag.status, tag.text).toBe(200);
      expect((await call(server, 'DELETE', `/dashboards/${id}`, { token })).status).toBe(204);
      expect((await call(server, 'DELETE', `/datacollections/${project.collectionId}`, { token })).status).toBe(204);
      expect((await call(server, 'DELETE', `/projects/${project.projectId}`, { token })).status).toBe(204);

      const events = await changes(server, admin.access_token);
      expect(events.map((event) => event.type)).toEqual([
        'project.created',
        'collection.created',
        'project.updated',
        'project.shared',
        'dashboard.created',
        'dashboard.updated',
        'dashboard.shared',
        'collection.updated',
        'dashboard.deleted',
        'collection.deleted',
        'project.deleted',
      ]);
      expect(events.every((event) => event.actor_user_id === ann.user.user_id)).toBe(true);
      const byType = new Map(events.map((event) => [event.type, event.details]));
      expect(byType.get('project.updated')).toMatchObject({ name: 'Audited soil 2', changed: ['name'] });
      expect(byType.get('project.shared')).toMatchObject({
        owners: [ann.user.user_id],
        viewers: [bob.user.user_id],
        is_public: false,
      });
      expect(byType.get('dashboard.updated')).toMatchObject({ dashboard_id: id, title: 'Soil pH', renamed_from: 'pH' });
      expect(byType.get('dashboard.shared')).toMatchObject({ editors: [bob.user.user_id] });
      expect(byType.get('collection.updated')).toMatchObject({ tag: 'soil', project_id: project.projectId });
      expect(byType.get('dashboard.deleted')).toMatchObject({ dashboard_id: id, title: 'Soil pH' });
      expect(byType.get('project.deleted')).toMatchObject({ project_id: project.projectId, name: 'Audited soil 2' });

      const filtered = await call<{ total: number }>(server, 'GET', '/audit-events?type=dashboard.deleted', {
        token: admin.access_token,
      });
      expect(filtered.body.total).toBe(1);
      expect((await call(server, 'GET', '/audit-events', { token: ann.access_token })).status).toBe(403);
    } finally {
      await server.stop();
      await server.database.drop();
    }
  }, 120_000);
});
