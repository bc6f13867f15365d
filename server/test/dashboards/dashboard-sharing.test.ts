import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  call,
  createProjectWithUpload,
  describeEachDialect,
  type Session,
  startTestServer,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';

/**
 * Sharing a dashboard must not widen access to its project (docs/architecture.md "Dashboards"): an editor of the
 * dashboard alone keeps to the collections and columns it already shows, and only those who may
 * share the project may make one of its dashboards public.
 */

interface Dashboard {
  dashboard_id: string;
  is_public: boolean;
  components: Record<string, unknown>[];
}

const MEASURES = 'sample,mass,island\nS1,3000,Biscoe\nS2,3100,Dream\n';
const SECRETS = 'sample,diagnosis\nS1,private\n';

describeEachDialect('dashboard sharing and the project', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let bob: Session;
  let carol: Session;
  let dave: Session;
  let projectId: string;
  let measures: string;
  let secrets: string;

  const session = async (email: string): Promise<Session> => {
    const row = await server.context.users.createAccount({ email, password: null, role: 'user' }, { via: 'admin' });
    return server.context.sessions.start(row);
  };
  const upsert = async (token: string, collectionId: string) => {
    const answer = await call(server, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: collectionId },
    });
    if (answer.status !== 200) throw new Error(answer.text);
  };
  const table = (columns?: string[], collection = measures) => ({
    component_id: 'measures',
    type: 'table',
    data_collection_id: collection,
    ...(columns ? { columns } : {}),
  });
  const dashboardOf = async (owner: Session, extra: Record<string, unknown> = {}) => {
    const created = await call<Dashboard>(server, 'POST', '/dashboards', {
      token: owner.access_token,
      json: { project_id: projectId, title: 'Overview', components: [table(['sample', 'mass'])], ...extra },
    });
    if (created.status !== 201) throw new Error(created.text);
    const id = created.body.dashboard_id;
    // Bob reads no part of the project: sharing with him takes its owner (Ada).
    const shared = await call(server, 'PUT', `/dashboards/${id}/permissions`, {
      token: ada.access_token,
      json: { owners: [owner.user.user_id], editors: ['bob@example.org', 'carol@example.org'], is_public: false },
    });
    if (shared.status !== 200) throw new Error(shared.text);
    return id;
  };
  const save = (token: string, id: string, components: unknown[]) =>
    call<Dashboard>(server, 'PUT', `/dashboards/${id}`, { token, json: { title: 'Overview', components } });
  const columnsShown = async (token: string, id: string) => {
    const page = await call<{ columns: { name: string }[] }>(
      server,
      'GET',
      `/dashboards/${id}/components/measures/rows`,
      { token },
    );
    expect(page.status, page.text).toBe(200);
    return page.body.columns.map((column) => column.name);
  };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    ada = await session('ada@example.org');
    bob = await session('bob@example.org');
    carol = await session('carol@example.org');
    dave = await session('dave@example.org');
    const project = await createProjectWithUpload(server, ada.access_token, 'Penguins', MEASURES);
    projectId = project.projectId;
    measures = project.collectionId;
    const second = await call<{ data_collection_id: string }>(
      server,
      'POST',
      `/workflows/${project.workflowId}/datacollections`,
      { token: ada.access_token, json: { tag: 'secrets', pattern: 's\\.csv', format: 'csv' } },
    );
    secrets = second.body.data_collection_id;
    expect(await uploadFile(server, ada.access_token, secrets, { path: 's.csv', content: SECRETS })).toBe(201);
    await upsert(ada.access_token, measures);
    await upsert(ada.access_token, secrets);
    // Bob is no member of the project; Carol reads it; Dave edits it.
    const members = await call(server, 'PUT', `/projects/${projectId}/permissions`, {
      token: ada.access_token,
      json: {
        owners: ['ada@example.org'],
        editors: ['dave@example.org'],
        viewers: ['carol@example.org'],
        is_public: false,
      },
    });
    expect(members.status, members.text).toBe(200);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('keeps an editor of the dashboard alone to the collections and columns it already shows', async () => {
    const id = await dashboardOf(ada);
    expect(await columnsShown(bob.access_token, id)).toEqual(['sample', 'mass']);
    const before = await call<Dashboard>(server, 'GET', `/dashboards/${id}`, { token: ada.access_token });

    for (const widened of [[table()], [table(['sample', 'mass', 'island'])], [table(['sample'], secrets)]]) {
      const refused = await save(bob.access_token, id, widened);
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body).toMatchObject({ code: 'forbidden' });
    }
    // A second component on another collection is refused too.
    const added = await save(bob.access_token, id, [
      table(['sample', 'mass']),
      { ...table(undefined, secrets), component_id: 'more' },
    ]);
    expect(added.status, added.text).toBe(403);
    const after = await call<Dashboard>(server, 'GET', `/dashboards/${id}`, { token: ada.access_token });
    expect(after.body).toEqual(before.body);
    expect(await columnsShown(bob.access_token, id)).toEqual(['sample', 'mass']);

    // What the dashboard already shows stays his to arrange: fewer columns, another order.
    const narrowed = await save(bob.access_token, id, [table(['mass', 'sample'])]);
    expect(narrowed.status, narrowed.text).toBe(200);
    expect(await columnsShown(bob.access_token, id)).toEqual(['mass', 'sample']);
  });

  it('lets an editor of the dashboard who reads the project show more of it', async () => {
    const id = await dashboardOf(ada);
    const widened = await save(carol.access_token, id, [table()]);
    expect(widened.status, widened.text).toBe(200);
    expect(await columnsShown(bob.access_token, id)).toEqual(expect.arrayContaining(['sample', 'mass', 'island']));
    const other = await save(carol.access_token, id, [table(['diagnosis'], secrets)]);
    expect(other.status, other.text).toBe(200);
    expect(await columnsShown(bob.access_token, id)).toEqual(['diagnosis']);
    expect((await call(server, 'GET', `/datacollections/${secrets}/preview`, { token: bob.access_token })).status).toBe(
      404,
    );
  });

  it('makes a dashboard public only for those who may share the project', async () => {
    const id = await dashboardOf(dave);
    const publish = (token: string) =>
      call<Dashboard>(server, 'PUT', `/dashboards/${id}/permissions`, {
        token,
        json: { owners: [dave.user.user_id], editors: ['bob@example.org'], is_public: true },
      });
    // Dave edits the project, so he owns its dashboards, but its public switch is not his.
    expect(
      (
        await call(server, 'PATCH', `/projects/${projectId}`, {
          token: dave.access_token,
          json: { description: 'edited' },
        })
      ).status,
    ).toBe(200);
    const refused = await publish(dave.access_token);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body).toMatchObject({ code: 'forbidden' });
    const unchanged = await call<Dashboard>(server, 'GET', `/dashboards/${id}`, { token: dave.access_token });
    expect(unchanged.body.is_public).toBe(false);
    expect(
      (
        await call(server, 'POST', '/dashboards', {
          token: dave.access_token,
          json: { project_id: projectId, title: 'Open', is_public: true, components: [table()] },
        })
      ).status,
    ).toBe(403);

    // The project's owner may; once public, Dave may still change its members.
    expect((await publish(ada.access_token)).status).toBe(200);
    const kept = await publish(dave.access_token);
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.is_public).toBe(true);
  });
});
