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

describeEachDialect('data locations outside SERVICE_INGESTION_ALLOWED_ROOTS', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let imports: string;
  let projectId: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    imports = join(server.database.dataDir, 'imports');
    const admin = await login(server, ADMIN.email, ADMIN.password);
    ada = await createUser(server, admin.access_token, 'ada@example.org');
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token: ada.access_token,
      json: { name: 'roots' },
    });
    projectId = project.body.project_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('refuses an import with 400 location_not_allowed, naming path, line and column, and creates nothing', async () => {
    const answer = await call<Problem>(server, 'POST', '/projects/import', {
      token: ada.access_token,
      headers: { 'content-type': 'application/yaml' },
      body: `name: outside
workflows:
  - name: wf
    data_location:
      structure: flat
      locations:
        - ${imports}/inside
        - ${imports}/../../etc
    data_collections:
      - tag: t
        pattern: "x\\\\.csv"
        format: csv
`,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('location_not_allowed');
    expect(answer.body.errors).toEqual([
      {
        path: 'workflows[0].data_location.locations[1]',
        message: expect.stringContaining('not inside SERVICE_INGESTION_ALLOWED_ROOTS'),
        line: 8,
        column: 11,
      },
    ]);
    const projects = await server.context.database.db
      .selectFrom('projects')
      .select('id')
      .where('name', '=', 'outside')
      .execute();
    expect(projects).toEqual([]);
  });

  it('keeps the other errors of the file next to the refused location, in document order', async () => {
    const answer = await call<Problem>(server, 'POST', '/projects/import', {
      token: ada.access_token,
      headers: { 'content-type': 'application/yaml' },
      body: `name: mixed
workflows:
  - name: wf
    data_collections:
      - tag: t
        pattern: "(unclosed"
        format: csv
  - name: wf2
    data_location: { structure: flat, locations: [ /etc ] }
`,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('location_not_allowed');
    expect(answer.body.errors?.map((error) => [error.path, error.line])).toEqual([
      ['workflows[0].data_collections[0].pattern', 6],
      ['workflows[1].data_location.locations[0]', 9],
    ]);
  });

  it('refuses a workflow created or changed to point outside, and leaves the stored workflow as it was', async () => {
    const created = await call<Problem>(server, 'POST', `/projects/${projectId}/workflows`, {
      token: ada.access_token,
      json: { name: 'outside', data_location: { structure: 'flat', locations: ['/etc'] } },
    });
    expect(created.status).toBe(400);
    expect(created.body.code).toBe('location_not_allowed');
    expect(created.body.errors).toEqual([
      { path: 'body.data_location.locations[0]', message: expect.stringContaining('/etc') },
    ]);

    const inside = { structure: 'flat', locations: [join(imports, 'ok')] };
    const workflow = await call<{ workflow_id: string }>(server, 'POST', `/projects/${projectId}/workflows`, {
      token: ada.access_token,
      json: { name: 'inside', data_location: inside },
    });
    expect(workflow.status).toBe(201);
    const changed = await call<Problem>(server, 'PATCH', `/workflows/${workflow.body.workflow_id}`, {
      token: ada.access_token,
      json: { data_location: { structure: 'flat', locations: [join(imports, '..')] } },
    });
    expect(changed.status).toBe(400);
    expect(changed.body.code).toBe('location_not_allowed');
    const stored = await call<{ data_location: unknown }>(server, 'GET', `/workflows/${workflow.body.workflow_id}`, {
      token: ada.access_token,
    });
    expect(stored.body.data_location).toEqual(inside);
  });
});
