import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN, call, login, type Session } from '../../../test/support/test-server.js';
import {
  type BackendServer,
  describeEachBackend,
  INTERNAL_KEY,
  naming,
  projectWithTable,
  startBackendServer,
} from './support.js';

describeEachBackend('deleting removes the stored data', (dialect, storage) => {
  let backend: BackendServer;
  let admin: Session;
  beforeAll(async () => {
    // Public mode, for temporary users; registered accounts sign in as usual.
    backend = await startBackendServer(dialect, storage, { SERVICE_AUTH_PUBLIC_MODE: 'true' });
    admin = await login(backend.server, ADMIN.email, ADMIN.password);
  });
  afterAll(async () => {
    await backend?.stop();
  });

  const uploadKey = (fileId: string) => `files/${fileId}`;

  it('deleting a project leaves nothing of it in storage, nor in the local file cache', async () => {
    const { server } = backend;
    const project = await projectWithTable(server, admin.access_token, 'doomed-project');
    const ids = [project.collectionId, ...project.fileIds];
    expect(naming(await backend.keys(), ids).length).toBeGreaterThan(1);
    if (storage === 's3') expect(await backend.cachedFiles()).not.toEqual([]);

    const deleted = await call(server, 'DELETE', `/projects/${project.projectId}`, { token: admin.access_token });
    expect(deleted.status).toBe(204);
    expect(naming(await backend.keys(), ids)).toEqual([]);
    expect(await backend.cachedFiles()).toEqual([]);
  });

  it('deleting an account with what it owns alone leaves nothing of its projects in storage', async () => {
    const { server } = backend;
    // Account administration is auth mode's; this is the path `service user delete` takes in any mode.
    const account = await server.context.users.createAccount(
      { email: `leaving-${storage}@example.org`, password: 'leaving-password-1', role: 'user' },
      { via: 'cli' },
    );
    const leaving = await login(server, account.email, 'leaving-password-1');
    const project = await projectWithTable(server, leaving.access_token, 'owned-alone');
    const ids = [project.collectionId, ...project.fileIds];
    expect(naming(await backend.keys(), ids).length).toBeGreaterThan(1);

    const outcome = await server.context.accountDeletion.delete(
      account.id,
      { deleteOwned: true },
      { userId: null, via: 'cli' },
    );
    expect(outcome).toMatchObject({ owned: 'deleted', projects: 1 });
    expect(naming(await backend.keys(), ids)).toEqual([]);
    expect((await call(server, 'GET', `/projects/${project.projectId}`, { token: admin.access_token })).status).toBe(
      404,
    );
  });

  it.skipIf(storage === 'local')('every replica drops its local copies of a project another one deleted', async () => {
    const { server } = backend;
    const other = await backend.replica();
    const project = await projectWithTable(server, admin.access_token, 'seen-by-two');
    // The other replica reads the table too, so it holds copies of its own.
    const preview = await call(other, 'GET', `/datacollections/${project.collectionId}/preview`, {
      token: admin.access_token,
    });
    expect(preview.status).toBe(200);
    const copiesOn = (replica: typeof server) =>
      naming(replica.context.delta.files.cachedKeys(), [project.collectionId]);
    expect(copiesOn(other).length).toBeGreaterThan(0);

    expect((await call(server, 'DELETE', `/projects/${project.projectId}`, { token: admin.access_token })).status).toBe(
      204,
    );
    expect(copiesOn(server)).toEqual([]);
    expect(copiesOn(other).length).toBeGreaterThan(0);
    // What the periodic cleanup runs on every replica.
    expect(await other.context.purger.sweepLocalCopies(other.context.database.db)).toBeGreaterThan(0);
    expect(copiesOn(other)).toEqual([]);
    // On disk, only copies of objects that still exist remain.
    const cached = [server, other].reduce(
      (total, replica) => total + replica.context.delta.files.cachedKeys().length,
      0,
    );
    expect((await backend.cachedFiles()).length).toBe(cached);
  });

  it('deleting a workflow removes its uploads and tables, and nothing of other projects', async () => {
    const { server } = backend;
    const kept = await projectWithTable(server, admin.access_token, 'kept-project');
    const doomed = await projectWithTable(server, admin.access_token, 'doomed-workflow');
    const deleted = await call(server, 'DELETE', `/workflows/${doomed.workflowId}`, { token: admin.access_token });
    expect(deleted.status).toBe(204);
    const keys = await backend.keys();
    expect(naming(keys, [doomed.collectionId, ...doomed.fileIds])).toEqual([]);
    expect(keys).toContain(uploadKey(kept.fileIds[0]!));
    expect(naming(keys, [kept.collectionId]).length).toBeGreaterThan(1);
    const preview = await call(server, 'GET', `/datacollections/${kept.collectionId}/preview`, {
      token: admin.access_token,
    });
    expect(preview.status).toBe(200);
  });

  it('deleting a data collection removes its table; deleting a run removes its uploads', async () => {
    const { server } = backend;
    const project = await projectWithTable(server, admin.access_token, 'doomed-collection');
    const deleted = await call(server, 'DELETE', `/datacollections/${project.collectionId}`, {
      token: admin.access_token,
    });
    expect(deleted.status).toBe(204);
    let keys = await backend.keys();
    expect(naming(keys, [project.collectionId])).toEqual([]);
    // The upload belongs to the workflow's run, not to the collection.
    expect(keys).toContain(uploadKey(project.fileIds[0]!));

    const file = await call<{ run_id: string }>(server, 'GET', `/files/${project.fileIds[0]}`, {
      token: admin.access_token,
    });
    expect((await call(server, 'DELETE', `/runs/${file.body.run_id}`, { token: admin.access_token })).status).toBe(204);
    keys = await backend.keys();
    expect(naming(keys, project.fileIds)).toEqual([]);
  });

  it('the temporary-user cleanup removes the stored data of their projects', async () => {
    const { server } = backend;
    const temporary = await call<Session>(server, 'POST', '/auth/public/create_temporary_user', { json: {} });
    expect(temporary.status).toBe(201);
    const project = await projectWithTable(server, temporary.body.access_token, 'temporary-project');
    const ids = [project.collectionId, ...project.fileIds];
    expect(naming(await backend.keys(), ids).length).toBeGreaterThan(1);

    // The user's time is up (the clock moved, as far as the database can tell).
    await server.context.database.db
      .updateTable('users')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', temporary.body.user.user_id)
      .execute();
    const cleanup = await call(server, 'POST', '/internal/cleanup', { headers: { 'x-internal-key': INTERNAL_KEY } });
    expect(cleanup.body).toMatchObject({ removed_temporary_users: 1 });
    expect(naming(await backend.keys(), ids)).toEqual([]);
  });

  it('vacuum collects what a failed deletion left behind', async () => {
    const { server } = backend;
    const project = await projectWithTable(server, admin.access_token, 'left-behind');
    // The rows go without the storage, as when deleting storage failed after the commit.
    await server.context.database.db.deleteFrom('projects').where('id', '=', project.projectId).execute();
    const ids = [project.collectionId, ...project.fileIds];
    expect(naming(await backend.keys(), ids).length).toBeGreaterThan(1);

    const vacuum = await call<{ removed_tables: number; removed_uploads: number; removed_keys: string[] }>(
      server,
      'POST',
      '/internal/vacuum',
      { headers: { 'x-internal-key': INTERNAL_KEY } },
    );
    expect(vacuum.status, vacuum.text).toBe(200);
    expect(vacuum.body.removed_tables).toBe(1);
    // The table had no reader left; the upload may be one in flight until it is older than the retention.
    expect(vacuum.body.removed_uploads).toBe(0);
    expect(naming(await backend.keys(), [project.collectionId])).toEqual([]);
    expect(await backend.keys()).toContain(uploadKey(project.fileIds[0]!));

    const later = await server.context.vacuum.run({ now: Date.now() + 169 * 60 * 60 * 1000 });
    expect(later.removed_keys).toContain(uploadKey(project.fileIds[0]!));
    expect(naming(await backend.keys(), ids)).toEqual([]);
  });
});
