import { expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createUser,
  describeEachDialect,
  login,
  startTestServer,
} from '../../../test/support/test-server.js';

describeEachDialect('joins', (dialect) => {
  it('links two collections of one project, and nothing else', async () => {
    const server = await startTestServer(dialect);
    try {
      const admin = await login(server, ADMIN.email, ADMIN.password);
      const ada = await createUser(server, admin.access_token, 'ada@example.org');
      const token = ada.access_token;
      const make = async (name: string) => {
        const project = await call<{ project_id: string }>(server, 'POST', '/projects', { token, json: { name } });
        const workflow = await call<{ workflow_id: string }>(
          server,
          'POST',
          `/projects/${project.body.project_id}/workflows`,
          {
            token,
            json: { name: 'wf' },
          },
        );
        const dc = async (tag: string) =>
          (
            await call<{ data_collection_id: string }>(
              server,
              'POST',
              `/workflows/${workflow.body.workflow_id}/datacollections`,
              {
                token,
                json: { tag, pattern: `${tag}\\.csv`, format: 'csv' },
              },
            )
          ).body.data_collection_id;
        return { projectId: project.body.project_id, a: await dc('a'), b: await dc('b') };
      };
      const one = await make('one');
      const two = await make('two');

      const created = await call<{ join_id: string; how: string }>(server, 'POST', `/projects/${one.projectId}/joins`, {
        token,
        json: { name: 'a_b', left: one.a, right: one.b, on: ['id'] },
      });
      expect(created.status).toBe(201);
      expect(created.body.how).toBe('inner');
      const duplicate = await call(server, 'POST', `/projects/${one.projectId}/joins`, {
        token,
        json: { name: 'a_b', left: one.a, right: one.b, on: ['id'] },
      });
      expect(duplicate.status).toBe(409);
      const foreign = await call(server, 'POST', `/projects/${one.projectId}/joins`, {
        token,
        json: { name: 'cross', left: one.a, right: two.b, on: ['id'] },
      });
      expect(foreign.status).toBe(400);
      expect((foreign.body.errors as { path: string }[]).map((e) => e.path)).toEqual(['body.right']);

      const listed = await call<{ items: { name: string }[] }>(server, 'GET', `/projects/${one.projectId}/joins`, {
        token,
      });
      expect(listed.body.items.map((join) => join.name)).toEqual(['a_b']);
      expect((await call(server, 'DELETE', `/joins/${created.body.join_id}`, { token })).status).toBe(204);
      expect(
        (await call<{ total: number }>(server, 'GET', `/projects/${one.projectId}/joins`, { token })).body.total,
      ).toBe(0);
    } finally {
      await server.stop();
      await server.database.drop();
    }
  });
});
