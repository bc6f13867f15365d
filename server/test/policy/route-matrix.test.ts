import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { type AuthMode, createDashboardRequestSchema } from '@service/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  type Dialect,
  describeEachDialect,
  type Session,
  startTestServer,
} from '../../../test/support/test-server.js';
import { API_PREFIX } from '../../src/http/prefix.js';
import type { UserActor } from '../../src/policy/actor.js';
import { accountRows } from './matrix-rows-accounts.js';
import { alertRows } from './matrix-rows-alerts.js';
import { dashboardRows } from './matrix-rows-dashboards.js';
import { dataRows } from './matrix-rows-data.js';
import { exportRows } from './matrix-rows-export.js';
import { projectRows } from './matrix-rows-projects.js';
import {
  type ActorName,
  type Fixture,
  INTERNAL_KEY,
  outsiders,
  PROVISIONING_KEY,
  publicLike,
  type Row,
  readers,
  type World,
} from './matrix-world.js';
import { contentState } from './state.js';

/**
 * Every route × every actor × every mode, with the status each must get. The list of routes comes
 * from the server's own OpenAPI document, so a new route without a row here fails this test.
 * Actors on a private project P: its owner, an editor, a viewer, another user, a temporary user
 * (public and demo mode), an admin, and anonymous.
 */
const rows: Record<string, Row> = {
  ...accountRows,
  ...projectRows,
  ...dataRows,
  ...dashboardRows,
  ...exportRows,
  ...alertRows,
};

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
