import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import {
  ADMIN,
  call,
  createUser,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/**
 * `POST /projects/from-template` (docs/templates.md "From the web app"): the ampliseq template
 * applied to a copy of the real results (server/test/fixtures/ampliseq-results) in a folder
 * inside the allowed roots, read in place and ingested.
 */
const FIXTURE = fileURLToPath(new URL('../fixtures/ampliseq-results/', import.meta.url));
const TEMPLATE = 'nf-core/ampliseq/2.16.0';

interface Problem {
  code: string;
  errors: { path: string }[];
}
interface Made {
  variables: Record<string, string>;
  collections: { tag: string; files: number }[];
  left_out: { collections: string[]; components: string[] };
  project_id: string | null;
  dashboard_id: string | null;
  run_id: string | null;
}

describeEachDialect('projects from a template', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let folder: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const admin = await login(server, ADMIN.email, ADMIN.password);
    ada = await createUser(server, admin.access_token, 'ada@example.org');
    folder = join(server.database.dataDir, 'imports', 'ampliseq_run');
    await mkdir(folder, { recursive: true });
    await cp(FIXTURE, folder, { recursive: true });
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  const make = (json: Record<string, unknown>) =>
    call<Made & Problem>(server, 'POST', '/projects/from-template', {
      token: ada.access_token,
      json: { template_id: TEMPLATE, name: 'ampliseq', location: folder, ...json },
    });

  it('says on a dry run what it would make, the variables detected, and makes nothing', async () => {
    const dry = await make({ dry_run: true });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.variables).toEqual({ group_by: 'habitat' });
    expect(dry.body.collections).toHaveLength(15);
    expect(dry.body.collections).toContainEqual({ tag: 'tree', files: 2 });
    expect(dry.body.left_out).toEqual({ collections: [], components: [] });
    expect(dry.body.project_id).toBeNull();
    const projects = await call<{ total: number }>(server, 'GET', '/projects', { token: ada.access_token });
    expect(projects.body.total).toBe(0);
  });

  it('refuses a folder outside the allowed roots, a missing one and an unknown variable, at their fields', async () => {
    const outside = await make({ location: '/etc', dry_run: true });
    expect([outside.status, outside.body.code]).toEqual([400, 'location_not_allowed']);
    const missing = await make({ location: join(folder, 'nowhere'), dry_run: true });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((error) => error.path)).toEqual(['body.location']);
    const unknown = await make({ variables: { colour: 'red' }, dry_run: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.map((error) => error.path)).toEqual(['body.variables.colour']);
    const template = await make({ template_id: 'nf-core/nothing', dry_run: true });
    expect(template.status).toBe(404);
  });

  it('makes the project reading the folder in place, its dashboard, and ingests it', async () => {
    const made = await make({});
    expect(made.status, made.text).toBe(201);
    // Placed before the ingestion, the dashboard keeps every component, the ASV tree too.
    expect(made.body.left_out).toEqual({ collections: [], components: [] });
    const { project_id: projectId, dashboard_id: dashboardId, run_id: runId } = made.body;
    const token = ada.access_token;
    const workflows = await call<{ items: { data_location: unknown }[] }>(
      server,
      'GET',
      `/projects/${projectId}/workflows`,
      { token },
    );
    expect(workflows.body.items[0]?.data_location).toEqual({ structure: 'flat', locations: [folder] });
    await vi.waitFor(
      async () => {
        const runs = await call<{ items: { run_id: string; status: string }[] }>(
          server,
          'GET',
          `/projects/ingestion-runs/${projectId}`,
          { token },
        );
        expect(runs.body.items.find((run) => run.run_id === runId)?.status).toBe('success');
      },
      { timeout: 90_000, interval: 500 },
    );
    const dashboard = await call<{ tabs: { tab_id: string }[] }>(server, 'GET', `/dashboards/${dashboardId}`, {
      token,
    });
    expect(dashboard.body.tabs.map((tab) => tab.tab_id)).toEqual([
      'qc',
      'alpha',
      'community',
      'ordination',
      'differential',
      'phylogeny',
    ]);
    const alpha = await call<{ components: Record<string, { value?: number }> }>(
      server,
      'POST',
      `/dashboards/${dashboardId}/data`,
      { token, json: { tab_id: 'alpha', filters: [{ component_id: 'habitat', value: ['Soil'] }] } },
    );
    expect(alpha.status, alpha.text).toBe(200);
    expect(alpha.body.components.alpha_samples?.value).toBe(3);
    const again = await make({});
    expect([again.status, again.body.code]).toEqual([409, 'name_taken']);
  });
});
