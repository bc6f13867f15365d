import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { type AuthMode, createDashboardRequestSchema } from '@service/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  DIALECTS,
  type Dialect,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { registeredRoutes } from '../../src/http/access.js';
import { API_PREFIX } from '../../src/http/prefix.js';
import type { UserActor } from '../../src/policy/actor.js';

/**
 * Anonymous callers must not learn which ids exist: every write route (and in auth mode every
 * route that takes a token) answers 401 whether its target exists or not, and whatever the body.
 * The routes are the ones the server registered, so a new route is covered without a row here.
 */

const modes: Partial<Record<AuthMode, Record<string, string>>> = {
  auth: {},
  public: { SERVICE_AUTH_PUBLIC_MODE: 'true' },
  demo: { SERVICE_AUTH_PUBLIC_MODE: 'true', SERVICE_AUTH_DEMO_MODE: 'true' },
};

type Ids = Record<string, string>;

/** The id that fills a path parameter, chosen by the parameter's name or the segment before it. */
function fill(url: string, ids: Ids): string {
  const segments = url.split('/');
  return segments
    .map((segment, index) => {
      if (!segment.startsWith(':')) return segment;
      const key = segment === ':id' ? (segments[index - 1] ?? '') : segment.slice(1);
      const id = ids[key];
      if (id === undefined) throw new Error(`no id for ${segment} in ${url}: add one to the fixture`);
      return encodeURIComponent(id);
    })
    .join('/');
}

/** A body naming the same ids, for routes that take their target from the body (upsert, dashboards). */
const bodyOf = (ids: Ids) => ({
  project_id: ids.project_id,
  data_collection_id: ids.datacollections,
  workflow_id: ids.workflows,
  title: 'probe',
  components: [],
});

for (const dialect of DIALECTS) {
  for (const [mode, env] of Object.entries(modes) as [AuthMode, Record<string, string>][]) {
    describe(`anonymous callers in ${mode} mode [${dialect}]`, () => {
      let server: TestServer;
      let existing: Ids;

      beforeAll(async () => {
        server = await startTestServer(await createTestDatabase(dialect as Dialect), {
          ...env,
          SERVICE_JOBS_WORKERS: '0',
        });
        existing = await fixture(server);
      });
      afterAll(async () => {
        await server.stop();
        await server.database.drop();
      });

      it('registers the routes this test walks', () => {
        const guarded = registeredRoutes(server.app).filter((route) => !route.open && route.method !== 'HEAD');
        expect(guarded.filter((route) => route.write).length).toBeGreaterThan(25);
        expect(guarded.map((route) => `${route.method} ${route.url}`)).toContain(
          `POST ${API_PREFIX}/deltatables/upsert`,
        );
      });

      it('answers 401 on every write before looking anything up', async () => {
        const missing: Ids = Object.fromEntries(Object.keys(existing).map((key) => [key, randomUUID()]));
        const checked: string[] = [];
        for (const route of registeredRoutes(server.app)) {
          if (route.open || route.method === 'HEAD') continue;
          if (!route.write && mode !== 'auth') continue;
          for (const ids of [existing, missing]) {
            const path = fill(route.url, ids);
            const response = await fetch(`${server.url}${path}`, {
              method: route.method,
              ...(route.write
                ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(bodyOf(ids)) }
                : {}),
            });
            const text = await response.text();
            expect(response.status, `${route.method} ${path}: ${text}`).toBe(401);
            expect(JSON.parse(text)).toMatchObject({ code: 'unauthenticated' });
          }
          checked.push(`${route.method} ${route.url}`);
        }
        expect(checked).toContain(`POST ${API_PREFIX}/projects/:id/ingest`);
        expect(checked).toContain(`POST ${API_PREFIX}/datacollections/:id/files`);
      });
    });
  }
}

/** One of everything, owned by a user, so that the "existing" ids really exist. */
async function fixture(server: TestServer): Promise<Ids> {
  const { context } = server;
  const row = await context.users.createAccount(
    { email: 'owner@example.org', password: null, role: 'user' },
    { via: 'admin' },
  );
  const owner: UserActor = { kind: 'user', userId: row.id, role: 'user', isTemporary: false, sessionId: null };
  const project = await context.projects.createAndPresent(owner, { name: 'probed', description: '', is_public: true });
  const workflow = await context.workflows.create(owner, project.project_id, { name: 'measure' });
  const collection = await context.dataCollections.create(owner, workflow.workflow_id, {
    tag: 'measurements',
    pattern: '(?<island>[^/]+)/measures\\.csv',
    format: 'csv',
  });
  const file = await context.files.upload(owner, collection.data_collection_id, {
    runTag: 'run_0',
    path: 'Dream/measures.csv',
    content: Readable.from([Buffer.from('sample\nB1\n')]),
  });
  const dashboard = await context.dashboards.create(
    owner,
    createDashboardRequestSchema.parse({
      project_id: project.project_id,
      title: 'Overview',
      is_public: true,
      components: [
        { component_id: 'table', type: 'table', data_collection_id: collection.data_collection_id },
        { component_id: 'count', type: 'card', data_collection_id: collection.data_collection_id, agg: 'count' },
      ],
    }),
  );
  const alert = await context.alerts.create(owner, dashboard.dashboard_id, {
    component_id: 'count',
    condition: { op: '>', value: 0 },
  });
  const join = await context.joins.create(owner, project.project_id, {
    name: 'j',
    left: collection.data_collection_id,
    right: collection.data_collection_id,
    on: ['island'],
    how: 'inner',
  });
  const job = await context.jobs.enqueue(
    'deltatable.upsert',
    { data_collection_id: collection.data_collection_id },
    { userId: owner.userId, projectId: project.project_id },
  );
  const runs = await context.database.db.selectFrom('runs').select('id').execute();
  const embedToken = await context.embedTokens.create(owner, dashboard.dashboard_id, { expires_in_hours: 1 }, null);
  const accessToken = await context.personalTokens.create(
    owner,
    { name: 'probe', scope: 'write', expires_in_days: 1 },
    '127.0.0.1',
  );
  return {
    project_id: project.project_id,
    projects: project.project_id,
    workflows: workflow.workflow_id,
    datacollections: collection.data_collection_id,
    files: file.file_id,
    dashboards: dashboard.dashboard_id,
    joins: join.join_id,
    jobs: job.job_id,
    users: owner.userId,
    runs: runs[0]?.id ?? '',
    ':component_id': 'table',
    component_id: 'table',
    column: 'sample',
    dashboard_id: dashboard.dashboard_id,
    embed_token_id: embedToken.embed_token_id,
    token_id: accessToken.token_id,
    revision: '1',
    alert_id: alert.alert_id,
    // No version was judged, so no notification exists: a made-up id (answered 401 before any lookup).
    notification_id: randomUUID(),
    // The image routes: any registered file's id (they answer 401 before looking it up).
    image_id: file.file_id,
  };
}
