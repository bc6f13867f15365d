import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  call,
  createProjectWithUpload,
  describeEachDialect,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

/**
 * Ids of other users' objects named in a request body are refused, with the same answer as a
 * missing id, and nothing changes: upsert `file_ids` of another collection, join targets in
 * another project, dashboard components on another project's collection.
 */

interface Problem {
  status: number;
  code: string;
  errors?: { path: string; message: string }[];
}

describeEachDialect('ids of other users’ objects in request bodies', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let bob: Session;
  let adas: Awaited<ReturnType<typeof createProjectWithUpload>>;
  let bobs: Awaited<ReturnType<typeof createProjectWithUpload>>;
  let adasFile: string;

  const session = async (email: string): Promise<Session> => {
    const row = await server.context.users.createAccount({ email, password: null, role: 'user' }, { via: 'admin' });
    return server.context.sessions.start(row);
  };
  /** What Bob's project holds, to compare before and after a refused write. */
  const bobsState = async () => ({
    table: (await call(server, 'GET', `/datacollections/${bobs.collectionId}/versions`, { token: bob.access_token }))
      .body,
    joins: (await call(server, 'GET', `/projects/${bobs.projectId}/joins`, { token: bob.access_token })).body,
    dashboards: (await call(server, 'GET', `/dashboards?project_id=${bobs.projectId}`, { token: bob.access_token }))
      .body,
  });
  /** The refusal for `foreign`, which must be the same as for an id that does not exist. */
  const refusedAlike = async (request: (id: string) => Promise<{ status: number; body: unknown }>, foreign: string) => {
    const before = await bobsState();
    const forForeign = await request(foreign);
    const missing = randomUUID();
    const forMissing = await request(missing);
    expect(forForeign.status, JSON.stringify(forForeign.body)).toBe(400);
    expect(forForeign.body).toMatchObject({ code: 'validation_failed' });
    expect(JSON.stringify(forForeign.body).replaceAll(foreign, 'ID')).toBe(
      JSON.stringify(forMissing.body).replaceAll(missing, 'ID'),
    );
    expect(await bobsState()).toEqual(before);
  };

  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_JOBS_WORKERS: '0' });
    ada = await session('ada@example.org');
    bob = await session('bob@example.org');
    adas = await createProjectWithUpload(server, ada.access_token, 'Ada’s', 'x,y\n1,2\n');
    bobs = await createProjectWithUpload(server, bob.access_token, 'Bob’s', 'x,y\n3,4\n');
    const files = await call<{ items: { file_id: string }[] }>(
      server,
      'GET',
      `/datacollections/${adas.collectionId}/files`,
      { token: ada.access_token },
    );
    adasFile = files.body.items[0]?.file_id ?? '';
    expect(adasFile).not.toBe('');
    const first = await call(server, 'POST', '/deltatables/upsert', {
      token: bob.access_token,
      json: { data_collection_id: bobs.collectionId },
    });
    expect(first.status, first.text).toBe(200);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it("refuses an upsert of another collection's files, now or as a job", async () => {
    for (const async_mode of [false, true]) {
      await refusedAlike(
        (id) =>
          call<Problem>(server, 'POST', '/deltatables/upsert', {
            token: bob.access_token,
            json: { data_collection_id: bobs.collectionId, file_ids: [id], async_mode },
          }),
        adasFile,
      );
    }
    // No job was queued for the refused asynchronous upsert.
    const jobs = await call<{ items: unknown[] }>(server, 'GET', '/jobs', { token: bob.access_token });
    expect(jobs.body.items).toEqual([]);
  });

  it('refuses a join to a collection of another project', async () => {
    for (const side of ['left', 'right'] as const) {
      await refusedAlike(
        (id) =>
          call<Problem>(server, 'POST', `/projects/${bobs.projectId}/joins`, {
            token: bob.access_token,
            json: { name: 'j', left: bobs.collectionId, right: bobs.collectionId, on: ['x'], [side]: id },
          }),
        adas.collectionId,
      );
    }
  });

  it("refuses a dashboard component on another project's collection, on create and on save", async () => {
    const component = (id: string) => [{ component_id: 't', type: 'table', data_collection_id: id }];
    await refusedAlike(
      (id) =>
        call<Problem>(server, 'POST', '/dashboards', {
          token: bob.access_token,
          json: { project_id: bobs.projectId, title: 'Mine', components: component(id) },
        }),
      adas.collectionId,
    );
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: bob.access_token,
      json: { project_id: bobs.projectId, title: 'Mine', components: component(bobs.collectionId) },
    });
    expect(created.status, created.text).toBe(201);
    await refusedAlike(
      (id) =>
        call<Problem>(server, 'PUT', `/dashboards/${created.body.dashboard_id}`, {
          token: bob.access_token,
          json: { title: 'Mine', components: component(id) },
        }),
      adas.collectionId,
    );
  });
});
