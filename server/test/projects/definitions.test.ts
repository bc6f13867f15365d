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
  errors: { path: string; message: string; line?: number; column?: number }[];
}

describeEachDialect('project definitions (project.yaml)', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let imports: string;

  const definition = () => `name: penguins
description: Body measurements
workflows:
  - name: measure
    engine: { name: nextflow, version: "24.10" }
    data_location:
      structure: runs
      locations: [ ${imports}/penguins ]
      runs_regex: "^run_\\\\d+$"
    data_collections:
      - tag: measurements
        type: table
        pattern: "(?<island>[^/]+)/measures\\\\.csv"
        format: csv
        read_options: { delimiter: ",", header: true }
        keys: [ sample_id ]
        columns: { sample_id: "Sample identifier" }
      - tag: sites
        pattern: "sites\\\\.tsv"
        format: tsv
joins:
  - { name: with_sites, left: measurements, right: sites, on: [ island ], how: left }
`;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    imports = join(server.database.dataDir, 'imports');
    const admin = await login(server, ADMIN.email, ADMIN.password);
    ada = await createUser(server, admin.access_token, 'ada@example.org');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const importYaml = (yaml: string, token = ada.access_token) =>
    call<{ project_id: string; created: boolean; changed: boolean } & Problem>(server, 'POST', '/projects/import', {
      token,
      body: yaml,
      headers: { 'content-type': 'application/yaml' },
    });

  it('creates the project from YAML, then re-importing the same file changes nothing', async () => {
    const first = await importYaml(definition());
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ created: true, changed: true });
    const id = first.body.project_id;

    const workflows = await call<{ items: { workflow_id: string; engine: unknown; data_location: unknown }[] }>(
      server,
      'GET',
      `/projects/${id}/workflows`,
      { token: ada.access_token },
    );
    expect(workflows.body.items).toHaveLength(1);
    expect(workflows.body.items[0]?.engine).toEqual({ name: 'nextflow', version: '24.10' });
    const collections = await call<{ items: { tag: string; keys: string[] | null; read_options: unknown }[] }>(
      server,
      'GET',
      `/workflows/${workflows.body.items[0]?.workflow_id}/datacollections`,
      { token: ada.access_token },
    );
    expect(collections.body.items.map((c) => c.tag).sort()).toEqual(['measurements', 'sites']);

    const updatedAt = (await call(server, 'GET', `/projects/${id}`, { token: ada.access_token })).body.updated_at;
    const again = await importYaml(definition());
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ project_id: id, created: false, changed: false });
    expect((await call(server, 'GET', `/projects/${id}`, { token: ada.access_token })).body.updated_at).toBe(updatedAt);

    // JSON {yaml} is the same import.
    const viaJson = await call(server, 'POST', '/projects/import', {
      token: ada.access_token,
      json: { yaml: definition() },
    });
    expect(viaJson.body).toMatchObject({ project_id: id, changed: false });
  });

  it('re-imports a minimal definition (no description, no public switch) without change', async () => {
    const minimal = 'name: minimal\nworkflows:\n  - name: wf\n';
    expect((await importYaml(minimal)).status).toBe(201);
    const again = await importYaml(minimal);
    expect(again.status).toBe(200);
    expect(again.body.changed).toBe(false);
  });

  it('exports the project back as YAML that re-imports without change', async () => {
    const id = (await importYaml(definition())).body.project_id;
    const exported = await call(server, 'GET', `/projects/${id}/yaml`, { token: ada.access_token });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toContain('application/yaml');
    expect(exported.text).toContain('tag: measurements');
    expect(exported.text).toContain('name: with_sites');
    const reimported = await importYaml(exported.text);
    expect(reimported.body).toMatchObject({ project_id: id, created: false, changed: false });
  });

  it('updates what changed and reports it', async () => {
    const changed = await importYaml(definition().replace('Body measurements', 'Bill and flipper lengths'));
    expect(changed.status).toBe(200);
    expect(changed.body.changed).toBe(true);
    const project = await call(server, 'GET', `/projects/${changed.body.project_id}`, { token: ada.access_token });
    expect(project.body.description).toBe('Bill and flipper lengths');
  });

  it('names the line, column, path and rule of every error, and imports nothing', async () => {
    const broken = `name: broken
workflows:
  - name: measure
    data_collections:
      - tag: measurements
        pattern: "(unclosed"
        format: xlsx
        surprise: 1
`;
    const answer = await importYaml(broken);
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('validation_failed');
    const byPath = Object.fromEntries(answer.body.errors.map((e) => [e.path, e]));
    expect(byPath['workflows[0].data_collections[0].format']).toMatchObject({ line: 7, column: 17 });
    expect(byPath['workflows[0].data_collections[0].format']?.message).toContain('csv');
    expect(byPath['workflows[0].data_collections[0].surprise']).toMatchObject({ message: 'unknown field', line: 8 });
    const projects = await server.context.database.db
      .selectFrom('projects')
      .select('name')
      .where('name', '=', 'broken')
      .execute();
    expect(projects).toEqual([]);
  });

  it('refuses a pattern that does not compile and a location outside the allowed roots, with positions', async () => {
    const answer = await importYaml(`name: outside
workflows:
  - name: wf
    data_location:
      structure: flat
      locations:
        - ${imports}/../../etc
    data_collections:
      - tag: t
        pattern: "(unclosed"
        format: csv
`);
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toEqual([
      {
        path: 'workflows[0].data_location.locations[0]',
        message: expect.stringContaining('not inside SERVICE_INGESTION_ALLOWED_ROOTS'),
        line: 7,
        column: 11,
      },
      {
        path: 'workflows[0].data_collections[0].pattern',
        message: expect.stringContaining('missing closing )'),
        line: 10,
        column: 18,
      },
    ]);
  });

  it('refuses YAML syntax errors with their position', async () => {
    const answer = await importYaml('name: [unclosed\nworkflows: {');
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0]).toMatchObject({ line: expect.any(Number), column: expect.any(Number) });
  });

  it('refuses joins that name unknown collections', async () => {
    const answer = await importYaml(`name: joined
joins:
  - { name: j, left: nowhere, right: nothing, on: [ id ] }
`);
    expect(answer.status).toBe(400);
    expect(answer.body.errors.map((e) => e.path)).toEqual(['joins[0].left', 'joins[0].right']);
  });

  it('refuses other body types and oversized documents', async () => {
    const text = await call(server, 'POST', '/projects/import', {
      token: ada.access_token,
      body: 'name: x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    const huge = await importYaml(`name: huge\ndescription: "${'x'.repeat(600 * 1024)}"\n`);
    expect(huge.status).toBe(413);
  });

  it('validates without importing', async () => {
    const ok = await call(server, 'POST', '/projects/validate', {
      token: ada.access_token,
      json: { yaml: definition() },
    });
    expect(ok.body).toEqual({ valid: true, name: 'penguins' });
    const bad = await call(server, 'POST', '/projects/validate', {
      token: ada.access_token,
      json: { yaml: 'nme: typo' },
    });
    expect(bad.status).toBe(400);
  });

  it('publishes the JSON Schema of the format', async () => {
    const schema = await call(server, 'GET', '/projects/schema');
    expect(schema.status).toBe(200);
    expect(schema.headers.get('content-type')).toContain('application/schema+json');
    expect(JSON.stringify(schema.body)).toContain('data_collections');
  });

  it('lets only editors re-import, and only owners flip the public switch', async () => {
    const admin = await login(server, ADMIN.email, ADMIN.password);
    const bob = await createUser(server, admin.access_token, 'bob@example.org');
    const first = await importYaml('name: teamwork\n', bob.access_token);
    await call(server, 'PUT', `/projects/${first.body.project_id}/permissions`, {
      token: bob.access_token,
      json: { owners: ['bob@example.org'], is_public: false },
    });
    // Same name for another person is another project.
    expect((await importYaml('name: teamwork\n')).status).toBe(201);
    const flip = await importYaml('name: teamwork\nis_public: true\n', bob.access_token);
    expect(flip.status).toBe(200);
  });
});
