import { expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createUser,
  describeEachDialect,
  login,
  startTestServer,
} from '../../../test/support/test-server.js';

describeEachDialect('deletion summaries', (dialect) => {
  it('tells those who may delete a project or a collection what goes with it, and nobody else', async () => {
    const server = await startTestServer(dialect);
    try {
      const admin = await login(server, ADMIN.email, ADMIN.password);
      const owner = await createUser(server, admin.access_token, 'owner-summary@example.org');
      const editor = await createUser(server, admin.access_token, 'editor-summary@example.org');
      const viewer = await createUser(server, admin.access_token, 'viewer-summary@example.org');
      const other = await createUser(server, admin.access_token, 'other-summary@example.org');
      const token = owner.access_token;
      const project = await createProjectWithUpload(server, token, 'Summarised');
      const shared = await call(server, 'PUT', `/projects/${project.projectId}/permissions`, {
        token,
        json: {
          owners: [owner.user.email],
          editors: [editor.user.email],
          viewers: [viewer.user.email],
          is_public: false,
        },
      });
      expect(shared.status, shared.text).toBe(200);
      const showing = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
        token,
        json: {
          project_id: project.projectId,
          title: 'Rows of t',
          components: [{ component_id: 'rows', type: 'table', data_collection_id: project.collectionId }],
        },
      });
      expect(showing.status, showing.text).toBe(201);
      await call(server, 'POST', '/dashboards', { token, json: { project_id: project.projectId, title: 'Empty' } });
      const embed = await call(server, 'POST', `/dashboards/${showing.body.dashboard_id}/embed_tokens`, {
        token,
        json: { component_id: 'rows' },
      });
      expect(embed.status, embed.text).toBe(201);

      const projectPath = `/projects/${project.projectId}/deletion-summary`;
      const summary = await call(server, 'GET', projectPath, { token });
      expect(summary.status, summary.text).toBe(200);
      expect(summary.body).toEqual({
        workflows: 1,
        data_collections: 1,
        files: 1,
        dashboards: 2,
        active_embed_tokens: 1,
      });
      expect((await call(server, 'GET', projectPath, { token: admin.access_token })).status).toBe(200);
      // Deleting a project is its owners' (and admins'): editors and viewers are refused, others never see it.
      expect((await call(server, 'GET', projectPath, { token: editor.access_token })).status).toBe(403);
      expect((await call(server, 'GET', projectPath, { token: viewer.access_token })).status).toBe(403);
      expect((await call(server, 'GET', projectPath, { token: other.access_token })).status).toBe(404);
      expect((await call(server, 'GET', projectPath)).status).toBe(401);
      expect((await call(server, 'GET', '/projects/no-such-project/deletion-summary', { token })).status).toBe(404);

      const collectionPath = `/datacollections/${project.collectionId}/deletion-summary`;
      const collection = await call(server, 'GET', collectionPath, { token: editor.access_token });
      expect(collection.status, collection.text).toBe(200);
      expect(collection.body).toEqual({
        files: 1,
        dashboards: [{ dashboard_id: showing.body.dashboard_id, title: 'Rows of t' }],
      });
      expect((await call(server, 'GET', collectionPath, { token })).status).toBe(200);
      expect((await call(server, 'GET', collectionPath, { token: viewer.access_token })).status).toBe(403);
      expect((await call(server, 'GET', collectionPath, { token: other.access_token })).status).toBe(404);
      expect((await call(server, 'GET', collectionPath)).status).toBe(401);
    } finally {
      await server.stop();
      await server.database.drop();
    }
  }, 120_000);
});
