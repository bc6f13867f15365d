import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { migrateToLatest, openDatabase } from '@service/server';
import { Migrator } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createTestDatabase,
  createUser,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from '../../../test/support/test-server.js';
import { migrationProvider } from '../../src/db/migrations/index.js';

interface Problem {
  code: string;
}

interface RunList {
  items: { status: string; steps: { name: string; status: string; detail: string }[] }[];
}

const flat = (...locations: string[]) => ({ structure: 'flat', locations });

async function newProject(server: TestServer, token: string, name: string): Promise<string> {
  const answer = await call<{ project_id: string }>(server, 'POST', '/projects', { token, json: { name } });
  if (answer.status !== 201) throw new Error(`creating ${name}: ${answer.status} ${answer.text}`);
  return answer.body.project_id;
}

async function addWorkflow(server: TestServer, token: string, projectId: string, dataLocation: unknown) {
  const answer = await call<{ workflow_id: string }>(server, 'POST', `/projects/${projectId}/workflows`, {
    token,
    json: { name: 'wf', data_location: dataLocation },
  });
  if (answer.status !== 201) throw new Error(`adding a workflow: ${answer.status} ${answer.text}`);
  return answer.body.workflow_id;
}

function patchLocation(server: TestServer, token: string, workflowId: string, json: Record<string, unknown>) {
  return call<Problem>(server, 'PATCH', `/workflows/${workflowId}`, { token, json });
}

function importYaml(server: TestServer, token: string, name: string, location: string) {
  return call<{ project_id: string } & Problem>(server, 'POST', '/projects/import', {
    token,
    body: `name: ${name}
workflows:
  - name: wf
    data_location: { structure: flat, locations: [ ${location} ] }
    data_collections:
      - { tag: t, pattern: "[^/]+\\\\.csv", format: csv }
`,
    headers: { 'content-type': 'application/yaml' },
  });
}

function share(server: Server, projectId: string, roles: { owners: string[]; editors: string[] }) {
  return call(server, 'PUT', `/projects/${projectId}/permissions`, {
    token: server.adminToken,
    json: { ...roles, viewers: [], is_public: false },
  });
}

async function declarerOf(database: { db: TestServer['context']['database']['db'] }, workflowId: string) {
  const row = await database.db
    .selectFrom('workflows')
    .select('locations_declared_by')
    .where('id', '=', workflowId)
    .executeTakeFirstOrThrow();
  return row.locations_declared_by;
}

/** Ingests; on a refused scan, the failed step's detail, after checking that nothing was read. */
async function ingest(server: TestServer, token: string, projectId: string, workflowId: string) {
  const runsOf = () =>
    server.context.database.db.selectFrom('runs').select('id').where('workflow_id', '=', workflowId).execute();
  const before = await runsOf();
  const answer = await call<Problem>(server, 'POST', `/projects/${projectId}/ingest`, { token, json: {} });
  if (answer.status === 200) return 'scanned';
  expect(answer.status).toBe(403);
  expect(answer.body.code).toBe('forbidden');
  const runs = await call<RunList>(server, 'GET', `/projects/ingestion-runs/${projectId}`, { token });
  expect(runs.body.items[0]).toMatchObject({ status: 'failed', steps: [{ name: 'scan wf', status: 'failed' }] });
  expect(await runsOf()).toEqual(before);
  return runs.body.items[0]?.steps[0]?.detail;
}

type Server = TestServer & { adminToken: string; adminId: string };

async function start(target: Parameters<typeof startTestServer>[0], env: Record<string, string> = {}) {
  const server = await startTestServer(target, env);
  const admin = await login(server, ADMIN.email, ADMIN.password);
  return Object.assign(server, { adminToken: admin.access_token, adminId: admin.user.user_id });
}

describeEachDialect('who declared a data location', (dialect) => {
  let server: Server;
  let ada: Session;
  let bob: Session;
  let imports: string;

  beforeAll(async () => {
    server = await start(dialect);
    imports = join(server.database.dataDir, 'imports');
    for (const folder of ['ada', 'other', 'gone', 'shared/hr']) await mkdir(join(imports, folder), { recursive: true });
    await writeFile(join(imports, 'shared', 'hr', 'reviews.csv'), 'who,score\nbob,1\n');
    ada = await createUser(server, server.adminToken, 'ada@example.org');
    bob = await createUser(server, server.adminToken, 'bob@example.org');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('records who declared or last changed a location, through the API and project.yaml', async () => {
    const projectId = await newProject(server, ada.access_token, 'ada');
    const workflowId = await addWorkflow(server, ada.access_token, projectId, flat(join(imports, 'ada')));
    const declarer = () => declarerOf(server.context.database, workflowId);
    expect(await declarer()).toBe(ada.user.user_id);
    // Sending the stored location again, or renaming, declares nothing.
    const renamed = await patchLocation(server, server.adminToken, workflowId, {
      name: 'wf',
      data_location: flat(join(imports, 'ada')),
    });
    expect(renamed.status).toBe(200);
    expect(await declarer()).toBe(ada.user.user_id);
    const moved = await patchLocation(server, server.adminToken, workflowId, {
      data_location: flat(join(imports, 'other')),
    });
    expect(moved.status).toBe(200);
    expect(await declarer()).toBe(server.adminId);
    expect((await patchLocation(server, ada.access_token, workflowId, { data_location: null })).status).toBe(200);
    expect(await declarer()).toBeNull();

    const imported = await importYaml(server, ada.access_token, 'ada yaml', join(imports, 'ada'));
    expect(imported.status).toBe(201);
    const yamlWorkflow = await server.context.database.db
      .selectFrom('workflows')
      .select('id')
      .where('project_id', '=', imported.body.project_id)
      .executeTakeFirstOrThrow();
    expect(await declarerOf(server.context.database, yamlWorkflow.id)).toBe(ada.user.user_id);
    await share(server, imported.body.project_id, { owners: ['ada@example.org'], editors: ['bob@example.org'] });
    const moveByAdmin = await patchLocation(server, server.adminToken, yamlWorkflow.id, {
      data_location: flat(join(imports, 'other')),
    });
    expect(moveByAdmin.status).toBe(200);
    // Re-importing the stored location keeps the admin as declarer; changing it makes Ada the declarer.
    expect((await importYaml(server, ada.access_token, 'ada yaml', join(imports, 'other'))).status).toBe(200);
    expect(await declarerOf(server.context.database, yamlWorkflow.id)).toBe(server.adminId);
    expect((await importYaml(server, ada.access_token, 'ada yaml', join(imports, 'ada'))).status).toBe(200);
    expect(await declarerOf(server.context.database, yamlWorkflow.id)).toBe(ada.user.user_id);
  });

  it('scans nothing whose declarer was removed, even for a co-owner who may scan', async () => {
    const carol = await createUser(server, server.adminToken, 'carol@example.org');
    const projectId = await newProject(server, carol.access_token, 'carol');
    const workflowId = await addWorkflow(server, carol.access_token, projectId, flat(join(imports, 'gone')));
    expect(
      (await share(server, projectId, { owners: ['carol@example.org', 'bob@example.org'], editors: [] })).status,
    ).toBe(200);
    expect(await ingest(server, bob.access_token, projectId, workflowId)).toBe('scanned');
    const removed = await call(server, 'DELETE', `/users/${carol.user.user_id}`, { token: server.adminToken });
    expect(removed.status).toBe(204);
    expect(await ingest(server, bob.access_token, projectId, workflowId)).toContain('no longer exists');
  });

  it('re-checks the reach rule as the declarer, not only as the user who starts the scan', async () => {
    const projectId = await newProject(server, ada.access_token, 'ada shares');
    const workflowId = await addWorkflow(server, ada.access_token, projectId, flat(join(imports, 'shared')));
    await share(server, projectId, { owners: ['ada@example.org'], editors: ['bob@example.org'] });
    // Later an admin keeps a private project below Ada's folder; Bob may edit it, Ada may not.
    const hr = await newProject(server, server.adminToken, 'hr');
    await addWorkflow(server, server.adminToken, hr, flat(join(imports, 'shared', 'hr')));
    await share(server, hr, { owners: [ADMIN.email], editors: ['bob@example.org'] });
    expect(await ingest(server, bob.access_token, projectId, workflowId)).toContain('project you cannot edit');
  });
});

describeEachDialect('SERVICE_INGESTION_USER_LOCATIONS=false at scan time', (dialect) => {
  let server: Server;

  beforeAll(async () => {
    server = await start(dialect, { SERVICE_INGESTION_USER_LOCATIONS: 'false' });
    await mkdir(join(server.database.dataDir, 'imports', 'dana'), { recursive: true });
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('scans nothing an admin declared once they are no longer an admin', async () => {
    const first = await createUser(server, server.adminToken, 'dana@example.org');
    const promote = (role: string) =>
      call(server, 'PATCH', `/users/${first.user.user_id}`, { token: server.adminToken, json: { role } });
    expect((await promote('admin')).status).toBe(200);
    const dana = await login(server, 'dana@example.org', 'dana@example.org-password');
    const projectId = await newProject(server, dana.access_token, 'dana');
    const workflowId = await addWorkflow(
      server,
      dana.access_token,
      projectId,
      flat(join(server.database.dataDir, 'imports', 'dana')),
    );
    expect(await ingest(server, server.adminToken, projectId, workflowId)).toBe('scanned');
    expect((await promote('user')).status).toBe(200);
    expect(await ingest(server, server.adminToken, projectId, workflowId)).toContain('administrator declared');
  });
});

describeEachDialect('locations declared before declarers were recorded', (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database.drop();
  });

  it('are answered for by a project owner, and scanned under the rules as that owner', async () => {
    const imports = join(database.dataDir, 'imports');
    await mkdir(join(imports, 'eve'), { recursive: true });
    await mkdir(join(imports, 'temp'), { recursive: true });
    const before = await start(database);
    const eve = await createUser(before, before.adminToken, 'eve@example.org');
    const eveProject = await newProject(before, eve.access_token, 'eve');
    const eveWorkflow = await addWorkflow(before, eve.access_token, eveProject, flat(join(imports, 'eve')));
    await before.stop();
    // Temporary users exist in public mode only.
    const publicMode = await start(database, { SERVICE_AUTH_PUBLIC_MODE: 'true' });
    const temp = (await call<Session>(publicMode, 'POST', '/auth/public/create_temporary_user', { json: {} })).body;
    const tempProject = await newProject(publicMode, temp.access_token, 'temp');
    const tempWorkflow = await addWorkflow(publicMode, publicMode.adminToken, tempProject, flat(join(imports, 'temp')));
    await publicMode.stop();

    // Back to the schema before 0010, then forward again: what an upgraded server finds.
    const opened = openDatabase(
      database.url.startsWith('sqlite:')
        ? { kind: 'sqlite', path: database.url.slice('sqlite:'.length) }
        : { kind: 'postgres', url: database.url },
    );
    try {
      const { error } = await new Migrator({ db: opened.db, provider: migrationProvider }).migrateTo(
        '0009_drop_queue_probe',
      );
      expect(error).toBeUndefined();
      expect((await migrateToLatest(opened)).applied).toEqual([
        '0010_locations_declared_by',
        '0011_embed_tokens',
        '0012_dashboard_revision',
        '0013_worker_heartbeats',
        '0014_dashboard_copies',
        '0015_ingestion_run_leases',
        '0016_dashboard_tabs',
        '0017_dashboard_colors',
        '0018_access_tokens',
        '0019_dashboard_revisions',
        '0020_live_events',
        '0021_workflow_schedules',
        '0022_alerts',
        '0023_live_stream_leases',
        '0024_generated_dashboards',
      ]);
      expect(await declarerOf(opened, eveWorkflow)).toBe(eve.user.user_id);
      expect(await declarerOf(opened, tempWorkflow)).toBe(temp.user.user_id);
    } finally {
      await opened.close();
    }

    const after = await start(database, { SERVICE_INGESTION_USER_LOCATIONS: 'false' });
    try {
      expect(await ingest(after, after.adminToken, tempProject, tempWorkflow)).toContain('temporary account');
      expect(await ingest(after, eve.access_token, eveProject, eveWorkflow)).toContain('administrator declared');
      // An admin adopts the location by declaring it again.
      expect((await patchLocation(after, after.adminToken, eveWorkflow, { data_location: null })).status).toBe(200);
      const again = await patchLocation(after, after.adminToken, eveWorkflow, {
        data_location: flat(join(imports, 'eve')),
      });
      expect(again.status).toBe(200);
      expect(await ingest(after, eve.access_token, eveProject, eveWorkflow)).toBe('scanned');
    } finally {
      await after.stop();
    }
  });
});
