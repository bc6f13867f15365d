import { expect } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createUser,
  login,
  type Session,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';
import { dataOf, type OpenStream } from './sse-client.js';

/** The live-stream tests' world (event-stream, joined collections, limits, workers). */

export const HEARTBEAT = { SERVICE_EVENTS_HEARTBEAT_SECONDS: '1', SERVICE_EVENTS_MAX_STREAMS_PER_USER: '3' };

export interface Fixture {
  server: TestServer;
  admin: Session;
  owner: Session;
  viewer: Session;
  other: Session;
  projectId: string;
  workflowId: string;
  collectionId: string;
  dashboardId: string;
}

/** A project of `owner` shared with `viewer`, one collection with a table, a dashboard reading it. */
export async function fixture(server: TestServer): Promise<Fixture> {
  const admin = await login(server, ADMIN.email, ADMIN.password);
  const owner = await createUser(server, admin.access_token, 'owner@example.org');
  const viewer = await createUser(server, admin.access_token, 'viewer@example.org');
  const other = await createUser(server, admin.access_token, 'other@example.org');
  const token = owner.access_token;
  const { projectId, workflowId, collectionId } = await createProjectWithUpload(server, token, 'live');
  await call(server, 'PUT', `/projects/${projectId}/permissions`, {
    token,
    json: { owners: [owner.user.user_id], editors: [], viewers: ['viewer@example.org'], is_public: false },
  });
  await call(server, 'POST', '/deltatables/upsert', { token, json: { data_collection_id: collectionId } });
  const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
    token,
    json: {
      project_id: projectId,
      title: 'Live',
      components: [{ component_id: 'rows', type: 'table', data_collection_id: collectionId }],
      layout: [{ component_id: 'rows', x: 0, y: 0, w: 12, h: 6 }],
    },
  });
  expect(dashboard.status).toBe(201);
  return {
    server,
    admin,
    owner,
    viewer,
    other,
    projectId,
    workflowId,
    collectionId,
    dashboardId: dashboard.body.dashboard_id,
  };
}

let uploads = 0;
/** Uploads one more file and updates the table through the API: a new version. */
export async function newVersion(server: { url: string }, f: Fixture): Promise<number> {
  uploads += 1;
  const status = await uploadFile(server, f.owner.access_token, f.collectionId, {
    path: 't.csv',
    run: `run_${uploads}`,
    content: `a,b\n${uploads},${uploads}\n`,
  });
  expect(status).toBe(201);
  const upsert = await call<{ version: number }>(server, 'POST', '/deltatables/upsert', {
    token: f.owner.access_token,
    json: { data_collection_id: f.collectionId },
  });
  expect(upsert.status, upsert.text).toBe(200);
  return upsert.body.version;
}

export const hasVersion = (collectionId: string, version: number) => (stream: OpenStream) =>
  dataOf<{ data_collection_id: string; version: number }>(stream, 'version').some(
    (event) => event.data_collection_id === collectionId && event.version === version,
  );
