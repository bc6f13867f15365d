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
  uploadFile,
} from '../../../test/support/test-server.js';

interface Preview {
  format: string;
  read_options: { delimiter?: string; header?: boolean; null_values?: string[] };
  columns: { name: string; type: string | null; engine_type: string }[];
  rows: Record<string, unknown>[];
  code?: string;
  detail?: string;
}

describeEachDialect('previewing a registered file before its table is built', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let owner: Session;
  let editor: Session;
  let viewer: Session;
  let other: Session;
  let workflowId: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    admin = await login(server, ADMIN.email, ADMIN.password);
    owner = await createUser(server, admin.access_token, 'owner@example.org');
    editor = await createUser(server, admin.access_token, 'editor@example.org');
    viewer = await createUser(server, admin.access_token, 'viewer@example.org');
    other = await createUser(server, admin.access_token, 'other@example.org');
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token: owner.access_token,
      json: { name: 'preview' },
    });
    await call(server, 'PUT', `/projects/${project.body.project_id}/permissions`, {
      token: owner.access_token,
      json: {
        owners: ['owner@example.org'],
        editors: ['editor@example.org'],
        viewers: ['viewer@example.org'],
        is_public: false,
      },
    });
    const workflow = await call<{ workflow_id: string }>(
      server,
      'POST',
      `/projects/${project.body.project_id}/workflows`,
      {
        token: owner.access_token,
        json: { name: 'uploads' },
      },
    );
    workflowId = workflow.body.workflow_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  /** Uploads one file into a new collection; answers the registered file's id. */
  async function registered(tag: string, path: string, content: string, format = 'csv'): Promise<string> {
    const collection = await call<{ data_collection_id: string }>(
      server,
      'POST',
      `/workflows/${workflowId}/datacollections`,
      {
        token: owner.access_token,
        json: { tag, format, pattern: path.replaceAll('.', '\\.') },
      },
    );
    const id = collection.body.data_collection_id;
    expect(await uploadFile(server, owner.access_token, id, { path, content })).toBe(201);
    const files = await call<{ items: { file_id: string }[] }>(server, 'GET', `/datacollections/${id}/files`, {
      token: owner.access_token,
    });
    return files.body.items[0]?.file_id as string;
  }

  const preview = (
    fileId: string,
    body: Record<string, unknown> = {},
    token: string | undefined = owner.access_token,
  ) => call<Preview>(server, 'POST', `/files/${fileId}/preview`, { token, json: body });

  it('detects the delimiter, the header and each column’s type, and reads only the rows asked for', async () => {
    const lines = Array.from(
      { length: 500 },
      (_, i) =>
        `S${i};${i};${i % 7 === 0 ? 'NA' : (i / 10).toFixed(1)};2024-01-${String((i % 28) + 1).padStart(2, '0')}`,
    );
    const fileId = await registered('semicolons', 'water.csv', `sample;n;ph;sampled_on\n${lines.join('\n')}\n`);
    const first = await preview(fileId, { limit: 5 });
    expect(first.status, first.text).toBe(200);
    expect(first.body.format).toBe('csv');
    expect(first.body.read_options).toMatchObject({ delimiter: ';', header: true });
    expect(first.body.columns.map((c) => [c.name, c.type])).toEqual([
      ['sample', 'string'],
      ['n', 'integer'],
      ['ph', 'string'],
      ['sampled_on', 'date'],
    ]);
    expect(first.body.rows).toHaveLength(5);
    expect(first.body.rows[0]).toMatchObject({ sample: 'S0', ph: 'NA' });

    // With NA as a null marker the column is numbers; a chosen type wins over the detected one.
    const fixed = await preview(fileId, { read_options: { null_values: ['NA', ''], columns: { n: 'string' } } });
    expect(fixed.status).toBe(200);
    expect(fixed.body.columns.map((c) => c.type)).toEqual(['string', 'string', 'double', 'date']);
    expect(fixed.body.rows).toHaveLength(20);
    expect(fixed.body.rows[0]).toMatchObject({ n: '0', ph: null });
    expect(fixed.body.read_options.null_values).toEqual(['NA', '']);
  });

  it('previews TSV and ndjson by their names, and an empty file as no columns', async () => {
    const tsv = await registered('tabs', 'counts.tsv', 'gene\tcount\nA\t3\n', 'tsv');
    expect((await preview(tsv)).body).toMatchObject({ format: 'tsv', rows: [{ gene: 'A' }] });
    const ndjson = await registered(
      'lines',
      'events.ndjson',
      '{"x": 1.5, "ok": true}\n{"x": 2, "ok": false}\n',
      'ndjson',
    );
    const lines = await preview(ndjson);
    expect(lines.body.columns.map((c) => [c.name, c.type])).toEqual([
      ['x', 'double'],
      ['ok', 'boolean'],
    ]);
    const empty = await registered('empty', 'empty.csv', '');
    expect((await preview(empty)).body).toMatchObject({ columns: [], rows: [] });
  });

  it('refuses what it cannot read with what to do: a ragged line, an unknown format, bad options', async () => {
    const ragged = await registered('ragged', 'ragged.csv', 'a,b,c\n1,2,3\n4,5\n');
    const refused = await preview(ragged);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain('ragged.csv, line 3: 2 fields, expected 3');
    expect(refused.body.detail).not.toMatch(/sniff|strict_mode/i);

    const unnamed = await registered('unnamed', 'notes.dat', 'a,b\n1,2\n');
    const unknown = await preview(unnamed);
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toContain('choose one of csv, tsv, parquet, json, ndjson');
    expect((await preview(unnamed, { format: 'csv' })).body.rows).toEqual([{ a: '1', b: '2' }]); // 64-bit integers travel as text

    expect((await preview(unnamed, { limit: 201 })).status).toBe(400);
    expect((await preview(unnamed, { sheet: 1 })).body.code).toBe('validation_failed');
    expect((await preview(unnamed, { format: 'csv', read_options: { columns: { a: 'numbr!' } } })).status).toBe(400);

    // A type chosen for a column that one of the rows shown does not fit: the column, the value, what to do.
    const misfit = await registered('misfit', 'misfit.csv', 'n,label\n1,a\nNA,b\n');
    const typed = await preview(misfit, { read_options: { columns: { n: 'integer' } } });
    expect(typed.status).toBe(400);
    expect(typed.body.detail).toContain('misfit.csv, line 3: column n holds "NA", which is not an integer');
    expect(typed.body.detail).toContain('add "NA" to the null markers');
    const fixed = await preview(misfit, { read_options: { columns: { n: 'integer' }, null_values: ['NA'] } });
    expect(fixed.body.rows.map((row) => row.n)).toEqual(['1', null]);
  });

  it('lets readers of the project preview; others get 404, anonymous 401', async () => {
    const fileId = await registered('roles', 'roles.csv', 'a\n1\n');
    for (const session of [admin, owner, editor, viewer]) {
      expect((await preview(fileId, {}, session.access_token)).status).toBe(200);
    }
    expect((await preview(fileId, {}, other.access_token)).status).toBe(404);
    // A temporary user, made by a public-mode replica on the same database, is just another user.
    const publicReplica = await startTestServer(server.database, { SERVICE_AUTH_PUBLIC_MODE: 'true' });
    try {
      const temporary = await call<{ access_token: string }>(
        publicReplica,
        'POST',
        '/auth/public/create_temporary_user',
        {
          json: {},
        },
      );
      expect(temporary.status).toBe(201);
      const asTemporary = await call(publicReplica, 'POST', `/files/${fileId}/preview`, {
        token: temporary.body.access_token,
        json: {},
      });
      expect(asTemporary.status).toBe(404);
    } finally {
      await publicReplica.stop();
    }
    expect((await call(server, 'POST', `/files/${fileId}/preview`, { json: {} })).status).toBe(401);
    expect((await preview('0190aaaa-0000-7000-8000-000000000000', {})).status).toBe(404);
  });
});
