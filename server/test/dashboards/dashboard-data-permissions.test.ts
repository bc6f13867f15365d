import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createSharedDashboard,
  createTestDatabase,
  DIALECTS,
  roleTokens,
  SHARING,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable } from './analytics-table.js';

/**
 * `POST /dashboards/{id}/data` (and `GET /dashboards/{id}/versions`) obeys the dashboard's readers exactly as its rows route does
 * (docs/architecture.md "Permissions", "Dashboards"): every role in auth mode, and anonymous and temporary callers in public
 * and demo modes, where only public dashboards are theirs to read.
 */

const MODES = {
  auth: {},
  public: { SERVICE_AUTH_PUBLIC_MODE: 'true' },
  demo: { SERVICE_AUTH_PUBLIC_MODE: 'true', SERVICE_AUTH_DEMO_MODE: 'true' },
} as const;

for (const dialect of DIALECTS) {
  for (const [mode, env] of Object.entries(MODES)) {
    describe(`dashboard data permissions in ${mode} mode [${dialect}]`, () => {
      let server: TestServer;
      const tokens: Record<string, string | undefined> = {};
      let privateId: string;
      let publicId: string;

      beforeAll(async () => {
        server = await startTestServer(await createTestDatabase(dialect), { ...env, SERVICE_JOBS_WORKERS: '0' });
        Object.assign(tokens, await roleTokens(server, mode !== 'auth'));
        const project = await projectWithTable(server, tokens.owner as string, 'Penguins');
        const dashboard = (isPublic: boolean) =>
          createSharedDashboard(
            server,
            tokens.owner as string,
            {
              project_id: project.projectId,
              title: 'Overview',
              is_public: isPublic,
              components: [
                { component_id: 'count', type: 'card', data_collection_id: project.collectionId, agg: 'count' },
                { component_id: 'measures', type: 'table', data_collection_id: project.collectionId },
              ],
            },
            { ...SHARING, is_public: isPublic },
          );
        privateId = await dashboard(false);
        publicId = await dashboard(true);
      });
      afterAll(async () => {
        await server.stop();
        await server.database.drop();
      });

      const data = (id: string, token: string | undefined) =>
        call<DataAnswer>(server, 'POST', `/dashboards/${id}/data`, {
          json: { components: ['count'] },
          ...(token === undefined ? {} : { token }),
        });
      const publicLike = mode !== 'auth';

      it('answers the readers of a private dashboard, and as not found or unauthenticated to everyone else', async () => {
        const expected: Record<string, number> = {
          admin: 200,
          owner: 200,
          editor: 200,
          viewer: 200,
          other: 404,
          ...(publicLike ? { temporary: 404 } : {}),
          // Anonymous callers may browse public things in public and demo modes: this one is not.
          anonymous: publicLike ? 404 : 401,
        };
        for (const [actor, status] of Object.entries(expected)) {
          const answer = await data(privateId, tokens[actor]);
          expect(answer.status, `${actor}: ${answer.text}`).toBe(status);
          if (status === 200) expect(answer.body.components.count).toEqual({ value: 120, unfiltered_value: 120 });
          else expect(answer.text).not.toContain('120');
          // The rows route of the same dashboard says the same.
          const rows = await call(server, 'GET', `/dashboards/${privateId}/components/measures/rows`, {
            ...(tokens[actor] === undefined ? {} : { token: tokens[actor] }),
          });
          expect(rows.status, actor).toBe(status);
          // And its versions (the version picker).
          const versions = await call(server, 'GET', `/dashboards/${privateId}/versions`, {
            ...(tokens[actor] === undefined ? {} : { token: tokens[actor] }),
          });
          expect(versions.status, actor).toBe(status);
        }
      });

      it('answers anyone a public dashboard in public and demo modes, and only readers in auth mode', async () => {
        for (const actor of ['other', ...(publicLike ? ['temporary'] : []), 'anonymous']) {
          const answer = await data(publicId, tokens[actor]);
          const status = actor === 'anonymous' && !publicLike ? 401 : 200;
          expect(answer.status, `${actor}: ${answer.text}`).toBe(status);
          if (status === 200) expect(answer.body.components.count).toEqual({ value: 120, unfiltered_value: 120 });
          const versions = await call<{ collections: unknown[] }>(server, 'GET', `/dashboards/${publicId}/versions`, {
            ...(tokens[actor] === undefined ? {} : { token: tokens[actor] }),
          });
          expect(versions.status, actor).toBe(status);
          if (status === 200) expect(versions.body.collections).toHaveLength(1);
        }
      });
    });
  }
}
