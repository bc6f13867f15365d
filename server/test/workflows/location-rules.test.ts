import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
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

interface Problem {
  code: string;
  errors?: { path: string; message: string; line?: number; column?: number }[];
}

const flat = (...locations: string[]) => ({ structure: 'flat', locations });

async function newProject(server: TestServer, token: string, name: string): Promise<string> {
  const answer = await call<{ project_id: string }>(server, 'POST', '/projects', { token, json: { name } });
  if (answer.status !== 201) throw new Error(`creating ${name}: ${answer.status} ${answer.text}`);
  return answer.body.project_id;
}

function addWorkflow(server: TestServer, token: string, projectId: string, name: string, dataLocation: unknown) {
  return call<{ workflow_id: string } & Problem>(server, 'POST', `/projects/${projectId}/workflows`, {
    token,
    json: { name, data_location: dataLocation },
  });
}

function importYaml(server: TestServer, token: string, body: string) {
  return call<{ project_id: string } & Problem>(server, 'POST', '/projects/import', {
    token,
    body,
    headers: { 'content-type': 'application/yaml' },
  });
}

const yamlWith = (name: string, location: string) => `name: ${name}
workflows:
  - name: wf
    data_location:
      structure: flat
      locations: [ ${location} ]
    data_collections:
      - { tag: t, pattern: "[^/]+\\\\.csv", format: csv }
`;

describeEachDialect('who may declare which data location', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let ada: Session;
  let imports: string;
  let secret: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    imports = join(server.database.dataDir, 'imports');
    secret = join(imports, 'admin', 'secret');
    await mkdir(join(imports, 'ada'), { recursive: true });
    await mkdir(secret, { recursive: true });
    await writeFile(join(secret, 'salaries.csv'), 'name,salary\nada,1\n');
    await writeFile(join(imports, 'ada', 'mine.csv'), 'a,b\n1,2\n');
    admin = await login(server, ADMIN.email, ADMIN.password);
    ada = await createUser(server, admin.access_token, 'ada@example.org');
    const privateProject = await newProject(server, admin.access_token, 'private');
    expect((await addWorkflow(server, admin.access_token, privateProject, 'payroll', flat(secret))).status).toBe(201);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('refuses a user a location that contains or lies inside a project they cannot edit', async () => {
    const projectId = await newProject(server, ada.access_token, 'ada project');
    for (const reach of [imports, join(imports, 'admin'), secret, join(secret, 'deeper')]) {
      const answer = await addWorkflow(server, ada.access_token, projectId, 'wide', flat(join(imports, 'ada'), reach));
      expect(answer.status, reach).toBe(403);
      expect(answer.body).toMatchObject({
        code: 'forbidden',
        errors: [{ path: 'body.data_location.locations[1]', message: expect.stringContaining('cannot edit') }],
      });
    }
    const own = await addWorkflow(server, ada.access_token, projectId, 'own', flat(join(imports, 'ada')));
    expect(own.status).toBe(201);
    const widened = await call<Problem>(server, 'PATCH', `/workflows/${own.body.workflow_id}`, {
      token: ada.access_token,
      json: { data_location: flat(imports) },
    });
    expect(widened.status).toBe(403);
    const stored = await call<{ data_location: unknown }>(server, 'GET', `/workflows/${own.body.workflow_id}`, {
      token: ada.access_token,
    });
    expect(stored.body.data_location).toEqual(flat(join(imports, 'ada')));

    const imported = await importYaml(server, ada.access_token, yamlWith('ada yaml', imports));
    expect(imported.status).toBe(403);
    expect(imported.body).toMatchObject({
      code: 'forbidden',
      errors: [{ path: 'workflows[0].data_location.locations[0]', line: 6, column: 20 }],
    });
  });

  it('lets admins reach into other projects, and editors of the other project too', async () => {
    const adminProject = await newProject(server, admin.access_token, 'admin wide');
    const around = await addWorkflow(server, admin.access_token, adminProject, 'all', flat(join(imports, 'admin')));
    expect(around.status).toBe(201);

    const shared = await newProject(server, admin.access_token, 'shared with ada');
    expect((await addWorkflow(server, admin.access_token, shared, 'wf', flat(join(imports, 'shared')))).status).toBe(
      201,
    );
    const granted = await call(server, 'PUT', `/projects/${shared}/permissions`, {
      token: admin.access_token,
      json: { owners: [ADMIN.email], editors: ['ada@example.org'], viewers: [], is_public: false },
    });
    expect(granted.status).toBe(200);
    const adaProject = await newProject(server, ada.access_token, 'ada reads shared');
    const inside = await addWorkflow(server, ada.access_token, adaProject, 'wf', flat(join(imports, 'shared', 'sub')));
    expect(inside.status).toBe(201);
  });

  it('re-checks at scan time: a location that later reaches into a private project scans nothing', async () => {
    const projectId = await newProject(server, ada.access_token, 'ada scans');
    const mine = join(imports, 'ada');
    const workflow = await addWorkflow(server, ada.access_token, projectId, 'wf', flat(mine));
    expect(workflow.status).toBe(201);
    // Afterwards the admin keeps a private project in a folder below Ada's.
    await mkdir(join(mine, 'hr'), { recursive: true });
    await writeFile(join(mine, 'hr', 'reviews.csv'), 'who,score\nbob,1\n');
    const hr = await newProject(server, admin.access_token, 'hr');
    expect((await addWorkflow(server, admin.access_token, hr, 'reviews', flat(join(mine, 'hr')))).status).toBe(201);

    const ingest = await call<Problem>(server, 'POST', `/projects/${projectId}/ingest`, {
      token: ada.access_token,
      json: {},
    });
    expect(ingest.status).toBe(403);
    expect(ingest.body.code).toBe('forbidden');
    const runs = await call<{ items: { status: string; steps: { name: string; status: string; detail: string }[] }[] }>(
      server,
      'GET',
      `/projects/ingestion-runs/${projectId}`,
      { token: ada.access_token },
    );
    expect(runs.body.items[0]?.status).toBe('failed');
    expect(runs.body.items[0]?.steps[0]).toMatchObject({
      name: 'scan wf',
      status: 'failed',
      detail: expect.stringContaining('project you cannot edit'),
    });
    const scanned = await server.context.database.db
      .selectFrom('runs')
      .select('id')
      .where('workflow_id', '=', workflow.body.workflow_id)
      .execute();
    expect(scanned).toEqual([]);
  });
});

describeEachDialect('SERVICE_INGESTION_USER_LOCATIONS=false', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let ada: Session;
  let imports: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_INGESTION_USER_LOCATIONS: 'false' });
    imports = join(server.database.dataDir, 'imports');
    await mkdir(join(imports, 'ada'), { recursive: true });
    await writeFile(join(imports, 'ada', 'a.csv'), 'a,b\n1,2\n');
    admin = await login(server, ADMIN.email, ADMIN.password);
    ada = await createUser(server, admin.access_token, 'ada@example.org');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('lets only admins declare locations; users still rename and ingest what an admin declared', async () => {
    const projectId = await newProject(server, ada.access_token, 'ada');
    const refused = await addWorkflow(server, ada.access_token, projectId, 'wf', flat(join(imports, 'ada')));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    const imported = await importYaml(server, ada.access_token, yamlWith('ada yaml', join(imports, 'ada')));
    expect(imported.status).toBe(403);

    const declared = await addWorkflow(server, admin.access_token, projectId, 'wf', flat(join(imports, 'ada')));
    expect(declared.status).toBe(201);
    const renamed = await call(server, 'PATCH', `/workflows/${declared.body.workflow_id}`, {
      token: ada.access_token,
      json: { name: 'renamed', data_location: flat(join(imports, 'ada')) },
    });
    expect(renamed.status).toBe(200);
    const moved = await call<Problem>(server, 'PATCH', `/workflows/${declared.body.workflow_id}`, {
      token: ada.access_token,
      json: { data_location: flat(join(imports, 'elsewhere')) },
    });
    expect(moved.status).toBe(403);

    const ingest = await call<{ run?: { status: string } }>(server, 'POST', `/projects/${projectId}/ingest`, {
      token: ada.access_token,
      json: {},
    });
    expect(ingest.status).toBe(200);
    expect(ingest.body.run?.status).toBe('success');
  });
});

describeEachDialect('temporary users and data locations', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let temp: Session;
  let imports: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      SERVICE_AUTH_PUBLIC_MODE: 'true',
      SERVICE_AUTH_TEMP_USER_RATE_LIMIT: '100/minute',
    });
    imports = join(server.database.dataDir, 'imports');
    await mkdir(join(imports, 'ada'), { recursive: true });
    await writeFile(join(imports, 'ada', 'a.csv'), 'a,b\n1,2\n');
    admin = await login(server, ADMIN.email, ADMIN.password);
    temp = (await call<Session>(server, 'POST', '/auth/public/create_temporary_user', { json: {} })).body;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('refuses a temporary user any location, through the API and project.yaml', async () => {
    const projectId = await newProject(server, temp.access_token, 'temp project');
    const created = await addWorkflow(server, temp.access_token, projectId, 'wf', flat(join(imports, 'ada')));
    expect(created.status).toBe(403);
    expect(created.body.code).toBe('forbidden');

    const plain = await addWorkflow(server, temp.access_token, projectId, 'plain', null);
    expect(plain.status).toBe(201);
    const patched = await call<Problem>(server, 'PATCH', `/workflows/${plain.body.workflow_id}`, {
      token: temp.access_token,
      json: { data_location: flat(join(imports, 'ada')) },
    });
    expect(patched.status).toBe(403);
    expect(patched.body.code).toBe('forbidden');

    const imported = await importYaml(server, temp.access_token, yamlWith('temp yaml', imports));
    expect(imported.status).toBe(403);
    expect(imported.body.code).toBe('forbidden');

    // An admin may still give the project a location; the temporary user cannot have it scanned.
    const byAdmin = await call(server, 'PATCH', `/workflows/${plain.body.workflow_id}`, {
      token: admin.access_token,
      json: { data_location: flat(join(imports, 'ada')) },
    });
    expect(byAdmin.status).toBe(200);
    const ingest = await call<Problem>(server, 'POST', `/projects/${projectId}/ingest`, {
      token: temp.access_token,
      json: {},
    });
    expect(ingest.status).toBe(403);
    const scanned = await server.context.database.db
      .selectFrom('runs')
      .select('id')
      .where('workflow_id', '=', plain.body.workflow_id)
      .execute();
    expect(scanned).toEqual([]);
    const workflows = await call<{ items: { data_location: unknown }[] }>(
      server,
      'GET',
      `/projects/${projectId}/workflows`,
      { token: temp.access_token },
    );
    expect(workflows.body.items.map((workflow) => workflow.data_location)).toEqual([flat(join(imports, 'ada'))]);
  });
});
