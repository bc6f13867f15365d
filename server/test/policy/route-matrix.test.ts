import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { type AuthMode, createDashboardRequestSchema } from '@service/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  type CallOptions,
  call,
  type Dialect,
  describeEachDialect,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { API_PREFIX } from '../../src/http/prefix.js';
import type { UserActor } from '../../src/policy/actor.js';
import { contentState } from './state.js';

/**
 * Every route × every actor × every mode, with the status each must get. The list of routes comes
 * from the server's own OpenAPI document, so a new route without a row here fails this test.
 * Actors on a private project P: its owner, an editor, a viewer, another user, a temporary user
 * (public and demo mode), an admin, and anonymous.
 */

type ActorName = 'admin' | 'owner' | 'editor' | 'viewer' | 'other' | 'temporary' | 'anonymous';
const PROVISIONING_KEY = 'p'.repeat(48);
const INTERNAL_KEY = 'i'.repeat(48);

interface Fixture {
  projectId: string;
  workflowId: string;
  dataCollectionId: string;
  runId: string;
  fileId: string;
  /** A private dashboard of the project, created by its owner: a table and a text component. */
  dashboardId: string;
}

interface World {
  server: TestServer;
  mode: AuthMode;
  tokens: Partial<Record<ActorName, string>>;
  users: Partial<Record<ActorName, UserActor>>;
  p: Fixture;
  /** A new session for an actor (for routes that end one). */
  freshToken(actor: ActorName): Promise<string | undefined>;
  /** A throwaway project (with workflow, collection and run) owned by the owner, shared like P. */
  freshFixture(): Promise<Fixture>;
  /** The ids of everything the fixtures made: all private, all the owner's. */
  ownersIds: string[];
}

interface Row {
  request(world: World, actor: ActorName): Promise<{ path: string; options?: CallOptions }>;
  expected(mode: AuthMode, actor: ActorName): number;
}

const publicLike = (mode: AuthMode) => mode === 'public' || mode === 'demo';
const anyone = (status: number) => () => status;
/** Routes that need a signed-in user (single-user mode: everyone is the admin). */
const signedIn = (ok: number) => (mode: AuthMode, actor: ActorName) =>
  mode === 'single_user' || actor !== 'anonymous' ? ok : 401;
const adminOnly = (ok: number) => (mode: AuthMode, actor: ActorName) => {
  if (mode === 'single_user' || actor === 'admin') return ok;
  return actor === 'anonymous' ? 401 : 403;
};
const userAdmin = (ok: number) => (mode: AuthMode, actor: ActorName) =>
  mode === 'auth' ? adminOnly(ok)(mode, actor) : 404;
/** Routes on the private project P, for an action only `allowed` roles may do. */
const onProject = (ok: number, allowed: ActorName[]) => (mode: AuthMode, actor: ActorName) => {
  if (mode === 'single_user' || allowed.includes(actor)) return ok;
  if (actor === 'anonymous') return publicLike(mode) && allowed.includes('viewer') ? 404 : 401;
  if (actor === 'other' || actor === 'temporary') return 404;
  return 403;
};
/** Jobs: their owner and admins see them; for everyone else they do not exist. */
const ownJob = (ok: number) => (mode: AuthMode, actor: ActorName) => {
  if (mode === 'single_user' || actor === 'admin' || actor === 'owner') return ok;
  return actor === 'anonymous' ? 401 : 404;
};
const readers: ActorName[] = ['admin', 'owner', 'editor', 'viewer'];
const outsiders: ActorName[] = ['other', 'temporary', 'anonymous'];
const editors: ActorName[] = ['admin', 'owner', 'editor'];
const owners: ActorName[] = ['admin', 'owner'];
const reading = onProject(200, readers);

const rows: Record<string, Row> = {
  'GET /health': { request: async () => ({ path: '/health' }), expected: anyone(200) },
  'GET /service/api/v1/utils/capabilities': {
    request: async () => ({ path: '/utils/capabilities' }),
    expected: anyone(200),
  },
  'GET /service/api/v1/auth/jwks.json': { request: async () => ({ path: '/auth/jwks.json' }), expected: anyone(200) },
  'POST /service/api/v1/auth/login': {
    request: async () => ({
      path: '/auth/login',
      options: { json: { email: 'probe@example.org', password: 'probe-password-1' } },
    }),
    expected: anyone(200),
  },
  'POST /service/api/v1/auth/register': {
    request: async () => ({
      path: '/auth/register',
      options: { json: { email: `new-${randomUUID()}@example.org`, password: 'a-new-password' } },
    }),
    expected: (mode) => (mode === 'auth' ? 201 : 403),
  },
  'POST /service/api/v1/auth/refresh': {
    request: async (world) => {
      const session = await probeSession(world);
      return { path: '/auth/refresh', options: { json: { refresh_token: session.refresh_token } } };
    },
    expected: anyone(200),
  },
  'POST /service/api/v1/auth/logout': {
    request: async (world, actor) => ({ path: '/auth/logout', options: { token: await world.freshToken(actor) } }),
    expected: signedIn(204),
  },
  'GET /service/api/v1/auth/me': { request: async () => ({ path: '/auth/me' }), expected: signedIn(200) },
  'POST /service/api/v1/auth/magic_link': {
    request: async () => ({ path: '/auth/magic_link', options: { json: { next: '/projects' } } }),
    expected: signedIn(201),
  },
  'POST /service/api/v1/auth/magic_link/redeem': {
    request: async (world) => {
      const probe = await probeSession(world);
      const link = await call<{ url: string }>(world.server, 'POST', '/auth/magic_link', { token: probe.access_token });
      const ticket = new URLSearchParams(new URL(link.body.url).hash.slice(1)).get('ticket');
      return { path: '/auth/magic_link/redeem', options: { json: { ticket } } };
    },
    expected: anyone(200),
  },
  'POST /service/api/v1/auth/public/create_temporary_user': {
    request: async () => ({ path: '/auth/public/create_temporary_user', options: { json: {} } }),
    expected: (mode) => (publicLike(mode) ? 201 : 404),
  },
  'POST /service/api/v1/auth/provision_user': {
    request: async () => ({
      path: '/auth/provision_user',
      options: {
        json: { email: `provisioned-${randomUUID()}@example.org` },
        headers: { 'x-provisioning-key': PROVISIONING_KEY },
      },
    }),
    expected: anyone(201),
  },
  'GET /service/api/v1/users': { request: async () => ({ path: '/users' }), expected: userAdmin(200) },
  'POST /service/api/v1/users': {
    request: async () => ({
      path: '/users',
      options: { json: { email: `made-${randomUUID()}@example.org`, password: 'made-password-1' } },
    }),
    expected: userAdmin(201),
  },
  'GET /service/api/v1/users/{id}': {
    request: async (world) => ({ path: `/users/${await throwawayUser(world)}` }),
    expected: userAdmin(200),
  },
  'PATCH /service/api/v1/users/{id}': {
    request: async (world) => ({ path: `/users/${await throwawayUser(world)}`, options: { json: { role: 'admin' } } }),
    expected: userAdmin(200),
  },
  'DELETE /service/api/v1/users/{id}': {
    request: async (world) => ({ path: `/users/${await throwawayUser(world)}` }),
    expected: userAdmin(204),
  },
  'GET /service/api/v1/audit-events': { request: async () => ({ path: '/audit-events' }), expected: adminOnly(200) },
  // The internal key is the only way in: a user's token, even an admin's, is not.
  'POST /service/api/v1/internal/cleanup': {
    request: async () => ({ path: '/internal/cleanup' }),
    expected: anyone(401),
  },
  'POST /service/api/v1/internal/vacuum': {
    request: async () => ({ path: '/internal/vacuum' }),
    expected: anyone(401),
  },
  'GET /metrics': { request: async () => ({ path: '/metrics' }), expected: anyone(401) },

  'GET /service/api/v1/projects': {
    request: async () => ({ path: '/projects' }),
    expected: (mode, actor) => (actor === 'anonymous' && mode === 'auth' ? 401 : 200),
  },
  'POST /service/api/v1/projects': {
    request: async () => ({ path: '/projects', options: { json: { name: `project-${randomUUID()}` } } }),
    expected: signedIn(201),
  },
  'GET /service/api/v1/projects/schema': { request: async () => ({ path: '/projects/schema' }), expected: anyone(200) },
  'POST /service/api/v1/projects/import': {
    request: async () => ({
      path: '/projects/import',
      options: { json: { yaml: `name: imported-${randomUUID()}\n` } },
    }),
    expected: signedIn(201),
  },
  'POST /service/api/v1/projects/validate': {
    request: async () => ({ path: '/projects/validate', options: { json: { yaml: 'name: checked\n' } } }),
    expected: signedIn(200),
  },
  'GET /service/api/v1/projects/{id}': {
    request: async (w) => ({ path: `/projects/${w.p.projectId}` }),
    expected: reading,
  },
  'GET /service/api/v1/projects/{id}/yaml': {
    request: async (w) => ({ path: `/projects/${w.p.projectId}/yaml` }),
    expected: reading,
  },
  'PATCH /service/api/v1/projects/{id}': {
    request: async (w) => ({ path: `/projects/${w.p.projectId}`, options: { json: { description: randomUUID() } } }),
    expected: onProject(200, editors),
  },
  'PUT /service/api/v1/projects/{id}/permissions': {
    request: async (w) => ({
      path: `/projects/${w.p.projectId}/permissions`,
      options: {
        json: {
          owners: ['owner@example.org'],
          editors: ['editor@example.org'],
          viewers: ['viewer@example.org'],
          is_public: false,
        },
      },
    }),
    expected: onProject(200, owners),
  },
  'DELETE /service/api/v1/projects/{id}': {
    request: async (w) => ({ path: `/projects/${(await w.freshFixture()).projectId}` }),
    expected: onProject(204, owners),
  },
  'GET /service/api/v1/projects/{id}/workflows': {
    request: async (w) => ({ path: `/projects/${w.p.projectId}/workflows` }),
    expected: reading,
  },
  'POST /service/api/v1/projects/{id}/workflows': {
    request: async (w) => ({
      path: `/projects/${w.p.projectId}/workflows`,
      options: { json: { name: `wf-${randomUUID()}` } },
    }),
    expected: onProject(201, editors),
  },
  'GET /service/api/v1/workflows/{id}': {
    request: async (w) => ({ path: `/workflows/${w.p.workflowId}` }),
    expected: reading,
  },
  'PATCH /service/api/v1/workflows/{id}': {
    request: async (w) => ({
      path: `/workflows/${w.p.workflowId}`,
      options: { json: { engine: { name: 'nextflow' } } },
    }),
    expected: onProject(200, editors),
  },
  'DELETE /service/api/v1/workflows/{id}': {
    request: async (w) => ({ path: `/workflows/${(await w.freshFixture()).workflowId}` }),
    expected: onProject(204, editors),
  },
  'GET /service/api/v1/workflows/{id}/run-configurations': {
    request: async (w) => ({ path: `/workflows/${w.p.workflowId}/run-configurations` }),
    expected: reading,
  },
  'POST /service/api/v1/workflows/{id}/run-configurations': {
    request: async (w) => ({
      path: `/workflows/${w.p.workflowId}/run-configurations`,
      options: { json: { name: 'default', parameters: { depth: 3 } } },
    }),
    expected: onProject(201, editors),
  },
  'GET /service/api/v1/workflows/{id}/runs': {
    request: async (w) => ({ path: `/workflows/${w.p.workflowId}/runs` }),
    expected: reading,
  },
  'GET /service/api/v1/runs/{id}': { request: async (w) => ({ path: `/runs/${w.p.runId}` }), expected: reading },
  'DELETE /service/api/v1/runs/{id}': {
    request: async (w) => ({ path: `/runs/${(await w.freshFixture()).runId}` }),
    expected: onProject(204, editors),
  },
  'GET /service/api/v1/workflows/{id}/datacollections': {
    request: async (w) => ({ path: `/workflows/${w.p.workflowId}/datacollections` }),
    expected: reading,
  },
  'POST /service/api/v1/workflows/{id}/datacollections': {
    request: async (w) => ({
      path: `/workflows/${w.p.workflowId}/datacollections`,
      options: { json: { tag: `dc-${randomUUID()}`, pattern: '.*\\.csv', format: 'csv' } },
    }),
    expected: onProject(201, editors),
  },
  'GET /service/api/v1/datacollections/{id}': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}` }),
    expected: reading,
  },
  'PATCH /service/api/v1/datacollections/{id}': {
    request: async (w) => ({
      path: `/datacollections/${w.p.dataCollectionId}`,
      options: { json: { columns: { a: 'A' } } },
    }),
    expected: onProject(200, editors),
  },
  'DELETE /service/api/v1/datacollections/{id}': {
    request: async (w) => ({ path: `/datacollections/${(await w.freshFixture()).dataCollectionId}` }),
    expected: onProject(204, editors),
  },
  'GET /service/api/v1/projects/{id}/joins': {
    request: async (w) => ({ path: `/projects/${w.p.projectId}/joins` }),
    expected: reading,
  },
  'POST /service/api/v1/projects/{id}/joins': {
    request: async (w) => ({
      path: `/projects/${w.p.projectId}/joins`,
      options: {
        json: {
          name: `j${randomUUID().slice(0, 8)}`,
          left: w.p.dataCollectionId,
          right: w.p.dataCollectionId,
          on: ['island'],
        },
      },
    }),
    expected: onProject(201, editors),
  },
  'DELETE /service/api/v1/joins/{id}': {
    request: async (w) => {
      const fixture = await w.freshFixture();
      const owner = w.server.context;
      const join = await owner.joins.create(
        {
          kind: 'user',
          userId: (await owner.users.repository.findByEmail('owner@example.org'))?.id ?? '',
          role: 'user',
          isTemporary: false,
          sessionId: null,
        },
        fixture.projectId,
        { name: 'j', left: fixture.dataCollectionId, right: fixture.dataCollectionId, on: ['island'], how: 'inner' },
      );
      return { path: `/joins/${join.join_id}` };
    },
    expected: onProject(204, editors),
  },
  'POST /service/api/v1/projects/ingestion/trigger/{project_id}': {
    request: async (w) => ({
      path: `/projects/ingestion/trigger/${(await w.freshFixture()).projectId}?overwrite=false`,
    }),
    expected: onProject(202, editors),
  },
  'GET /service/api/v1/projects/ingestion/trigger-status/{project_id}': {
    request: async (w) => ({ path: `/projects/ingestion/trigger-status/${w.p.projectId}` }),
    expected: reading,
  },
  'GET /service/api/v1/projects/ingestion-runs/{project_id}': {
    request: async (w) => ({ path: `/projects/ingestion-runs/${w.p.projectId}` }),
    expected: reading,
  },
  'POST /service/api/v1/projects/{id}/ingest': {
    request: async (w) => ({ path: `/projects/${(await w.freshFixture()).projectId}/ingest`, options: { json: {} } }),
    expected: onProject(200, editors),
  },
  'GET /service/api/v1/dashboards': {
    request: async (w) => ({ path: `/dashboards?project_id=${w.p.projectId}` }),
    expected: (mode, actor) => (actor === 'anonymous' && mode === 'auth' ? 401 : 200),
  },
  'POST /service/api/v1/dashboards': {
    request: async (w) => ({
      path: '/dashboards',
      options: {
        json: {
          project_id: w.p.projectId,
          title: `d-${randomUUID()}`,
          components: [{ component_id: 't', type: 'table', data_collection_id: w.p.dataCollectionId }],
        },
      },
    }),
    expected: onProject(201, editors),
  },
  'GET /service/api/v1/dashboards/{id}': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}` }),
    expected: reading,
  },
  // The project's owners and editors manage its dashboards; its viewers read them.
  'PUT /service/api/v1/dashboards/{id}': {
    request: async (w) => ({
      path: `/dashboards/${w.p.dashboardId}`,
      options: {
        json: {
          title: `d-${randomUUID()}`,
          components: [
            { component_id: 'table', type: 'table', data_collection_id: w.p.dataCollectionId, page_size: 10 },
            { component_id: 'intro', type: 'text', markdown: randomUUID() },
          ],
        },
      },
    }),
    expected: onProject(200, editors),
  },
  'PUT /service/api/v1/dashboards/{id}/permissions': {
    request: async (w) => ({
      path: `/dashboards/${w.p.dashboardId}/permissions`,
      options: { json: { owners: ['owner@example.org'], is_public: false } },
    }),
    expected: onProject(200, editors),
  },
  'DELETE /service/api/v1/dashboards/{id}': {
    request: async (w) => ({ path: `/dashboards/${(await w.freshFixture()).dashboardId}` }),
    expected: onProject(204, editors),
  },
  'GET /service/api/v1/dashboards/{id}/versions': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/versions` }),
    expected: reading,
  },
  'GET /service/api/v1/dashboards/{id}/components/{component_id}/rows': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/components/table/rows?limit=5&sort=sample:desc` }),
    expected: reading,
  },
  'POST /service/api/v1/dashboards/{id}/data': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/data`, options: { json: {} } }),
    expected: reading,
  },
  'GET /service/api/v1/jobs': { request: async () => ({ path: '/jobs' }), expected: signedIn(200) },
  'GET /service/api/v1/jobs/{id}': {
    request: async (w) => ({ path: `/jobs/${await ownersJob(w)}` }),
    expected: ownJob(200),
  },
  'POST /service/api/v1/jobs/{id}/cancel': {
    request: async (w) => ({ path: `/jobs/${await ownersJob(w)}/cancel` }),
    expected: ownJob(200),
  },
  'POST /service/api/v1/deltatables/upsert': {
    request: async (w) => ({
      path: '/deltatables/upsert',
      options: { json: { data_collection_id: w.p.dataCollectionId } },
    }),
    expected: onProject(200, editors),
  },
  'POST /service/api/v1/datacollections/{id}/files': {
    request: async (w) => {
      const form = new FormData();
      form.append('run', 'run_1');
      form.append('path', 'Biscoe/measures.csv');
      form.append('file', new Blob(['sample\nA1\n']), 'measures.csv');
      return { path: `/datacollections/${w.p.dataCollectionId}/files`, options: { form } };
    },
    expected: onProject(201, editors),
  },
  'GET /service/api/v1/files/{id}': {
    request: async (w) => ({ path: `/files/${w.p.fileId}` }),
    expected: reading,
  },
  'GET /service/api/v1/files/{id}/content': {
    request: async (w) => ({ path: `/files/${w.p.fileId}/content` }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/schema': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/schema` }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/preview': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/preview` }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/summary': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/summary` }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/values/{column}': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/values/sample` }),
    expected: reading,
  },
  'POST /service/api/v1/datacollections/{id}/aggregate': {
    request: async (w) => ({
      path: `/datacollections/${w.p.dataCollectionId}/aggregate`,
      options: { json: { aggregates: [{ fn: 'count' }] } },
    }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/download': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/download?format=csv` }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/versions': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/versions` }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/files': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/files` }),
    expected: reading,
  },
};

/** A pending job that belongs to the project owner (workers are off, so it stays pending). */
async function ownersJob(world: World): Promise<string> {
  const owner = await world.server.context.users.repository.findByEmail('owner@example.org');
  const job = await world.server.context.jobs.enqueue(
    'deltatable.upsert',
    { data_collection_id: world.p.dataCollectionId },
    {
      userId: owner?.id ?? null,
      projectId: world.p.projectId,
    },
  );
  return job.job_id;
}

/** A session for the probe account without spending the login rate limit. */
async function probeSession(world: World): Promise<Session> {
  const probe = await world.server.context.users.repository.findByEmail('probe@example.org');
  if (!probe) throw new Error('probe account missing');
  return world.server.context.sessions.start(probe);
}

async function throwawayUser(world: World): Promise<string> {
  const row = await world.server.context.users.createAccount(
    { email: `victim-${randomUUID()}@example.org`, password: null, role: 'user' },
    { via: 'admin' },
  );
  return row.id;
}

const modes: Record<AuthMode, Record<string, string>> = {
  auth: {},
  single_user: { SERVICE_AUTH_SINGLE_USER_MODE: 'true' },
  public: { SERVICE_AUTH_PUBLIC_MODE: 'true' },
  demo: { SERVICE_AUTH_PUBLIC_MODE: 'true', SERVICE_AUTH_DEMO_MODE: 'true' },
};

function actorsOf(mode: AuthMode): ActorName[] {
  if (mode === 'single_user') return ['anonymous'];
  const members: ActorName[] = ['admin', 'owner', 'editor', 'viewer', 'other', 'anonymous'];
  return publicLike(mode) ? [...members, 'temporary'] : members;
}

describeEachDialect('route × actor matrix', (dialect: Dialect) => {
  for (const mode of Object.keys(modes) as AuthMode[]) {
    describe(`in ${mode} mode`, () => {
      let world: World;

      beforeAll(async () => {
        const server = await startTestServer(dialect, {
          ...modes[mode],
          SERVICE_AUTH_PROVISIONING_API_KEY: PROVISIONING_KEY,
          SERVICE_AUTH_INTERNAL_API_KEY_ENV: INTERNAL_KEY,
          SERVICE_AUTH_TEMP_USER_RATE_LIMIT: '1000/minute',
          // No workers: jobs stay pending, so reading and cancelling them is deterministic.
          SERVICE_JOBS_WORKERS: '0',
        });
        const { context } = server;
        await context.users.createAccount(
          { email: 'probe@example.org', password: 'probe-password-1', role: 'user' },
          { via: 'admin' },
        );
        const users: World['users'] = {};
        const accounts: Partial<Record<ActorName, string>> = {};
        for (const name of ['owner', 'editor', 'viewer', 'other'] as const) {
          accounts[name] = (
            await context.users.createAccount(
              { email: `${name}@example.org`, password: null, role: 'user' },
              { via: 'admin' },
            )
          ).id;
        }
        accounts.admin = (await context.users.repository.findByEmail(ADMIN.email))?.id;
        const sessionFor = async (actor: ActorName): Promise<Session | undefined> => {
          if (mode === 'single_user' || actor === 'anonymous') return undefined;
          if (actor === 'temporary') return context.temporaryUsers.create('127.0.0.1');
          const row = await context.users.repository.findById(accounts[actor] as string);
          return row ? context.sessions.start(row) : undefined;
        };
        const tokens: World['tokens'] = {};
        for (const actor of actorsOf(mode)) {
          const session = await sessionFor(actor);
          if (!session) continue;
          tokens[actor] = session.access_token;
          users[actor] = {
            kind: 'user',
            userId: session.user.user_id,
            role: session.user.role as 'admin' | 'user',
            isTemporary: actor === 'temporary',
            sessionId: null,
          };
        }
        const owner: UserActor = {
          kind: 'user',
          userId: accounts.owner as string,
          role: 'user',
          isTemporary: false,
          sessionId: null,
        };
        const ownersIds: string[] = [];
        const freshFixture = async (): Promise<Fixture> => {
          const project = await context.projects.createAndPresent(owner, {
            name: `p-${randomUUID()}`,
            description: '',
            is_public: false,
          });
          await context.projects.setPermissions(owner, project.project_id, {
            owners: [owner.userId],
            editors: ['editor@example.org'],
            viewers: ['viewer@example.org'],
            is_public: false,
          });
          const workflow = await context.workflows.create(owner, project.project_id, { name: 'measure' });
          const collection = await context.dataCollections.create(owner, workflow.workflow_id, {
            tag: 'measurements',
            pattern: '(?<island>[^/]+)/measures\\.csv',
            format: 'csv',
          });
          const runId = randomUUID();
          const now = new Date().toISOString();
          await context.database.db
            .insertInto('runs')
            .values({
              id: runId,
              workflow_id: workflow.workflow_id,
              tag: 'run_1',
              location: null,
              status: 'registered',
              run_configuration_id: null,
              started_at: null,
              finished_at: null,
              created_at: now,
              updated_at: now,
            })
            .execute();
          const file = await context.files.upload(owner, collection.data_collection_id, {
            runTag: 'run_0',
            path: 'Dream/measures.csv',
            content: Readable.from([Buffer.from('sample\nB1\n')]),
          });
          // The collection has a table, so every query route has data to answer with.
          await context.upserts.upsert(owner, { data_collection_id: collection.data_collection_id });
          const dashboard = await context.dashboards.create(
            owner,
            createDashboardRequestSchema.parse({
              project_id: project.project_id,
              title: 'Overview',
              components: [
                { component_id: 'table', type: 'table', data_collection_id: collection.data_collection_id },
                { component_id: 'intro', type: 'text', markdown: '# Measurements' },
              ],
              layout: [{ component_id: 'table', x: 0, y: 0, w: 12, h: 6 }],
            }),
          );
          ownersIds.push(
            project.project_id,
            workflow.workflow_id,
            collection.data_collection_id,
            file.file_id,
            dashboard.dashboard_id,
          );
          return {
            projectId: project.project_id,
            workflowId: workflow.workflow_id,
            dataCollectionId: collection.data_collection_id,
            runId,
            fileId: file.file_id,
            dashboardId: dashboard.dashboard_id,
          };
        };
        world = {
          server,
          mode,
          tokens,
          users,
          p: await freshFixture(),
          freshToken: async (actor) => (await sessionFor(actor))?.access_token,
          freshFixture,
          ownersIds,
        };
      });
      afterAll(async () => {
        await world.server.stop();
        await world.server.database.drop();
      });

      it('has a row for every route the server documents', async () => {
        const document = await call<{ paths: Record<string, Record<string, unknown>> }>(
          world.server,
          'GET',
          '/openapi.json',
        );
        const documented = Object.entries(document.body.paths).flatMap(([path, methods]) =>
          Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
        );
        expect(documented.length).toBeGreaterThan(30);
        for (const route of documented) expect(rows, `no matrix row for ${route}`).toHaveProperty([route]);
      });

      it("lists the owner's private items to its members and to no one else", async () => {
        for (const actor of actorsOf(mode)) {
          const token = world.tokens[actor];
          const options = token ? { token } : {};
          const projects = await call(world.server, 'GET', '/projects?limit=1000', options);
          const dashboards = await call(world.server, 'GET', `/dashboards?limit=1000`, options);
          const member = mode === 'single_user' || readers.includes(actor);
          for (const [answer, id] of [
            [projects, world.p.projectId],
            [dashboards, world.p.dashboardId],
          ] as const) {
            if (answer.status !== 200) continue;
            if (member) expect(answer.text, `${actor} lists ${id}`).toContain(id);
            else expect(answer.text, `${actor} lists ${id}`).not.toContain(id);
          }
        }
      });

      for (const [route, row] of Object.entries(rows)) {
        for (const actor of actorsOf(mode)) {
          const expected = row.expected(mode, actor);
          it(`${route} as ${actor} → ${expected}`, async () => {
            const [method, template] = route.split(' ') as [string, string];
            const { path, options } = await row.request(world, actor);
            const token = options && 'token' in options ? options.token : world.tokens[actor];
            const refusedWrite = method !== 'GET' && expected >= 400;
            const before = refusedWrite ? await contentState(world.server.context.database) : null;
            const answer =
              template === '/metrics'
                ? await fetch(
                    `${world.server.url}/metrics`,
                    token ? { headers: { authorization: `Bearer ${token}` } } : {},
                  ).then((response) => ({ status: response.status, headers: response.headers, text: '' }))
                : await call(world.server, method, path, { ...options, ...(token ? { token } : {}) });
            expect(answer.status, answer.text).toBe(expected);
            // A refused write leaves everything as it was.
            if (before !== null) expect(await contentState(world.server.context.database)).toEqual(before);
            // Nothing the owner keeps private shows in what anyone outside the project is answered.
            if (mode !== 'single_user' && outsiders.includes(actor) && answer.status < 300) {
              for (const id of world.ownersIds) expect(answer.text, `${route} shows ${id}`).not.toContain(id);
              expect(answer.text).not.toContain('owner@example.org');
            }
            expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
            // Every API answer, and so every one carrying a token or a ticket, is kept by no cache.
            if (template.startsWith(API_PREFIX)) {
              expect(answer.headers.get('cache-control')).toBe(
                route === `GET ${API_PREFIX}/auth/jwks.json` ? 'public, max-age=300' : 'no-store',
              );
            }
          });
        }
      }
    });
  }
});
