import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  describeEachDialect,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

/**
 * Members' emails are shown to members (and admins) only: the public of a public project or
 * dashboard, anonymous visitors and other signed-in users, get the member lists without them.
 */

interface Members {
  owners: { user_id: string; email?: string }[];
  editors: { user_id: string; email?: string }[];
  viewers: { user_id: string; email?: string }[];
}

describeEachDialect('members’ emails', (dialect) => {
  let server: TestServer;
  let people: Record<'admin' | 'ada' | 'eddie' | 'vera' | 'dana' | 'stranger', Session>;
  let projectId: string;
  let dashboardId: string;
  let privateDashboardId: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_AUTH_PUBLIC_MODE: 'true' });
    const session = async (email: string) =>
      server.context.sessions.start(
        (await server.context.users.repository.findByEmail(email)) ??
          (await server.context.users.createAccount({ email, password: null, role: 'user' }, { via: 'admin' })),
      );
    people = {
      admin: await session(ADMIN.email),
      ada: await session('ada@example.org'),
      eddie: await session('eddie@example.org'),
      vera: await session('vera@example.org'),
      dana: await session('dana@example.org'),
      stranger: await session('stranger@example.org'),
    };
    const project = await createProjectWithUpload(server, people.ada.access_token, 'Penguins');
    projectId = project.projectId;
    const shared = await call(server, 'PUT', `/projects/${projectId}/permissions`, {
      token: people.ada.access_token,
      json: {
        owners: ['ada@example.org'],
        editors: ['eddie@example.org'],
        viewers: ['vera@example.org'],
        is_public: true,
      },
    });
    expect(shared.status, shared.text).toBe(200);
    // A second, private project with a public dashboard shared with Dana alone.
    const hidden = await createProjectWithUpload(server, people.ada.access_token, 'Hidden');
    const dashboard = async (projectOf: string, collection: string, is_public: boolean) => {
      const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
        token: people.ada.access_token,
        json: {
          project_id: projectOf,
          title: 'Overview',
          is_public,
          components: [{ component_id: 't', type: 'table', data_collection_id: collection }],
        },
      });
      expect(created.status, created.text).toBe(201);
      const id = created.body.dashboard_id;
      const members = await call(server, 'PUT', `/dashboards/${id}/permissions`, {
        token: people.ada.access_token,
        json: { owners: ['ada@example.org'], viewers: ['dana@example.org'], is_public },
      });
      expect(members.status, members.text).toBe(200);
      return id;
    };
    dashboardId = await dashboard(hidden.projectId, hidden.collectionId, true);
    privateDashboardId = await dashboard(projectId, project.collectionId, false);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const answers = async (token: string | undefined) => {
    const options = token ? { token } : {};
    return {
      project: await call<{ permissions: Members }>(server, 'GET', `/projects/${projectId}`, options),
      projects: await call(server, 'GET', '/projects?limit=100', options),
      dashboard: await call<{ permissions: Members }>(server, 'GET', `/dashboards/${dashboardId}`, options),
      dashboards: await call(server, 'GET', '/dashboards?limit=100', options),
    };
  };

  it('leaves them out for the public: anonymous visitors and other users', async () => {
    for (const token of [undefined, people.stranger.access_token]) {
      const seen = await answers(token);
      for (const answer of Object.values(seen)) {
        expect(answer.status, answer.text).toBe(200);
        expect(answer.text).not.toMatch(/@example\.org/);
      }
      // The lists are still there, by role, without who is who.
      expect(seen.project.body.permissions).toEqual({
        owners: [{ user_id: people.ada.user.user_id }],
        editors: [{ user_id: people.eddie.user.user_id }],
        viewers: [{ user_id: people.vera.user.user_id }],
      });
      expect(seen.dashboard.body.permissions.viewers).toEqual([{ user_id: people.dana.user.user_id }]);
    }
  });

  it("shows them to the resource's members and to admins", async () => {
    for (const who of ['admin', 'ada', 'eddie', 'vera'] as const) {
      const { project } = await answers(people[who].access_token);
      expect(project.body.permissions.viewers, who).toEqual([
        { user_id: people.vera.user.user_id, email: 'vera@example.org' },
      ]);
      // The project's members are members of its dashboards too.
      const dashboard = await call<{ permissions: Members }>(server, 'GET', `/dashboards/${privateDashboardId}`, {
        token: people[who].access_token,
      });
      expect(dashboard.body.permissions.viewers, who).toEqual([
        { user_id: people.dana.user.user_id, email: 'dana@example.org' },
      ]);
    }
    // A member of the dashboard alone sees its members, not the project's.
    const { dashboard, project } = await answers(people.dana.access_token);
    expect(dashboard.body.permissions.owners).toEqual([{ user_id: people.ada.user.user_id, email: 'ada@example.org' }]);
    expect(project.text).not.toMatch(/@example\.org/);
  });
});
