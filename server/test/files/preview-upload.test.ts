import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { API_PREFIX } from '@service/server';
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

interface Preview {
  file_id: string | null;
  format: string;
  read_options: { delimiter?: string; header?: boolean; null_values?: string[] };
  columns: { name: string; type: string | null }[];
  rows: Record<string, unknown>[];
  code?: string;
  detail?: string;
  errors?: { path: string; message: string }[];
}

describeEachDialect('previewing a file sent for Add data, before anything is created', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let owner: Session;
  let editor: Session;
  let viewer: Session;
  let other: Session;
  let projectId: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_UPLOAD_MAX_BYTES: '4096' });
    admin = await login(server, ADMIN.email, ADMIN.password);
    owner = await createUser(server, admin.access_token, 'owner@example.org');
    editor = await createUser(server, admin.access_token, 'editor@example.org');
    viewer = await createUser(server, admin.access_token, 'viewer@example.org');
    other = await createUser(server, admin.access_token, 'other@example.org');
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token: owner.access_token,
      json: { name: 'add data' },
    });
    projectId = project.body.project_id;
    await call(server, 'PUT', `/projects/${projectId}/permissions`, {
      token: owner.access_token,
      json: {
        owners: ['owner@example.org'],
        editors: ['editor@example.org'],
        viewers: ['viewer@example.org'],
        is_public: false,
      },
    });
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  /** Sends a file (and options) as Add data does; answers status and body. */
  async function send(
    name: string,
    content: string | Buffer,
    options: { options?: unknown; token?: string | undefined; target?: string; raw?: string } = {},
  ): Promise<{ status: number; body: Preview }> {
    const form = new FormData();
    if (options.raw !== undefined) form.append('options', options.raw);
    else if (options.options !== undefined) form.append('options', JSON.stringify(options.options));
    form.append('file', new Blob([content]), name);
    const token = 'token' in options ? options.token : owner.access_token;
    const response = await fetch(`${server.url}${API_PREFIX}/projects/${options.target ?? projectId}/files/preview`, {
      method: 'POST',
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      body: form,
    });
    return { status: response.status, body: (await response.json()) as Preview };
  }

  it('reads the sent file as its collection would: dialect, header, types, null markers, chosen types', async () => {
    const csv = 'sample;count;ph;sampled_on\nS1;3;7.1;2024-01-02\nS2;NA;NA;2024-01-03\nS3;5;6.9;2024-02-01\n';
    const detected = await send('water.csv', csv);
    expect(detected.status, JSON.stringify(detected.body)).toBe(200);
    expect(detected.body.file_id).toBeNull();
    expect(detected.body.read_options).toMatchObject({ delimiter: ';', header: true });
    expect(detected.body.columns.map((c) => [c.name, c.type])).toEqual([
      ['sample', 'string'],
      ['count', 'string'],
      ['ph', 'string'],
      ['sampled_on', 'date'],
    ]);

    const chosen = await send('water.csv', csv, {
      options: { read_options: { null_values: ['NA', ''], columns: { count: 'string' } }, limit: 2 },
    });
    expect(chosen.status).toBe(200);
    expect(chosen.body.columns.map((c) => c.type)).toEqual(['string', 'string', 'double', 'date']);
    expect(chosen.body.rows).toHaveLength(2);
    expect(chosen.body.rows[1]).toMatchObject({ sample: 'S2', count: null, ph: null });

    // A text file may come cut after its first lines; JSON by its name; nothing stays behind.
    const lines = await send('events.ndjson', '{"x": 1.5, "ok": true}\n{"x": 2, "ok": false}\n');
    expect(lines.body.columns.map((c) => [c.name, c.type])).toEqual([
      ['x', 'double'],
      ['ok', 'boolean'],
    ]);
    expect((await send('empty.csv', '')).body).toMatchObject({ columns: [], rows: [] });
    const left = await readdir(join(server.database.dataDir, 'tmp')).catch(() => []);
    expect(left.filter((name) => name.startsWith('preview-'))).toEqual([]);
  });

  it('reads each of several dropped files on its own, at once, with its own columns', async () => {
    // Add data sends one request per file, in parallel, and groups the files by their columns.
    const options = { read_options: { null_values: ['NA', ''] }, limit: 20 };
    const [north, south, rain, ragged] = await Promise.all([
      send('plots-north.csv', 'plot,site,area\n1,North,2.5\n', { options }),
      send('plots-south.csv', 'site,plot,area\nSouth,3,NA\n', { options }),
      send('rain.tsv', 'day\tmm\n2024-05-01\t12\n', { options: { ...options, format: 'tsv' } }),
      send('ragged.csv', 'a,b\n1,2\n3\n', { options }),
    ]);
    const columnsOf = (answer: { body: Preview }) => answer.body.columns.map((column) => column.name);
    expect(columnsOf(north)).toEqual(['plot', 'site', 'area']);
    expect(columnsOf(south)).toEqual(['site', 'plot', 'area']);
    expect(south.body.rows).toEqual([{ site: 'South', plot: '3', area: null }]);
    expect(columnsOf(rain)).toEqual(['day', 'mm']);
    // One file that cannot be read does not stop the others, and is named in its own answer.
    expect(ragged.status).toBe(400);
    expect(ragged.body.detail).toContain('ragged.csv, line 3');
  });

  it('refuses what it cannot read, bad options and a file over the upload limit, with what to do', async () => {
    const ragged = await send('ragged.csv', 'a,b,c\n1,2,3\n4,5\n');
    expect(ragged.status).toBe(400);
    expect(ragged.body.detail).toContain('ragged.csv, line 3: 2 fields, expected 3');
    const unknown = await send('notes.dat', 'a,b\n1,2\n');
    expect(unknown.body.detail).toContain('choose one of csv, tsv, parquet, json, ndjson');
    expect((await send('notes.dat', 'a,b\n1,2\n', { options: { format: 'csv' } })).body.rows).toEqual([
      { a: '1', b: '2' },
    ]);
    const badJson = await send('a.csv', 'a\n1\n', { raw: '{not json' });
    expect(badJson.status).toBe(400);
    expect(badJson.body.errors?.[0]?.path).toBe('options');
    const badLimit = await send('a.csv', 'a\n1\n', { options: { limit: 201 } });
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.errors?.[0]?.path).toBe('options.limit');
    expect(badLimit.body.detail).toMatch(/fix the options listed/);
    const big = await send('big.csv', `a\n${'1\n'.repeat(3000)}`);
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('payload_too_large');
  });

  it('lets the project’s editors preview; a viewer 403, others 404, anonymous 401', async () => {
    for (const session of [admin, owner, editor]) {
      expect((await send('a.csv', 'a\n1\n', { token: session.access_token })).status).toBe(200);
    }
    expect((await send('a.csv', 'a\n1\n', { token: viewer.access_token })).status).toBe(403);
    expect((await send('a.csv', 'a\n1\n', { token: other.access_token })).status).toBe(404);
    expect((await send('a.csv', 'a\n1\n', { token: undefined })).status).toBe(401);
    const missing = await send('a.csv', 'a\n1\n', { target: '0190aaaa-0000-7000-8000-000000000000' });
    expect(missing.status).toBe(404);
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
      expect((await send('a.csv', 'a\n1\n', { token: temporary.body.access_token })).status).toBe(404);
    } finally {
      await publicReplica.stop();
    }
  });
});
