import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';

/**
 * Derived columns (docs/project-yaml.md "Rules"): a column captured by an RE2 expression from
 * another column of the same row, computed by DuckDB when the table is built.
 */

interface Problem {
  status: number;
  code?: string;
  detail?: string;
  errors?: { path: string; message: string }[];
}
interface Preview {
  columns: { name: string; type: string }[];
  rows: Record<string, unknown>[];
}

const CONTRASTS = 'sample,contrast,n\nA,habitatSoil,1\nB,habitatSediment,22\nC,other,3\nD,,4\n';
const HABITAT = { name: 'habitat', from: 'contrast', regex: '^habitat(.+)$' };

describeEachDialect('derived columns', (dialect) => {
  let server: TestServer;
  let admin: Session;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    admin = await login(server, ADMIN.email, ADMIN.password);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const token = () => admin.access_token;
  const setDerive = (id: string, derive: unknown) =>
    call<Problem>(server, 'PATCH', `/datacollections/${id}`, { token: token(), json: { read_options: { derive } } });
  const upsert = (id: string, overwrite = false) =>
    call<{ version: number } & Problem>(server, 'POST', '/deltatables/upsert', {
      token: token(),
      json: { data_collection_id: id, overwrite },
    });
  const preview = async (id: string, version?: number) => {
    const query = version === undefined ? '' : `&version=${version}`;
    const answer = await call<Preview>(server, 'GET', `/datacollections/${id}/preview?sort=sample:asc${query}`, {
      token: token(),
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };

  it('captures the first group of each row, null where nothing matches, as text, from text or numbers', async () => {
    const { collectionId: id } = await createProjectWithUpload(server, token(), 'derived', CONTRASTS);
    const saved = await setDerive(id, [HABITAT, { name: 'first_digit', from: 'n', regex: '^(\\d)' }]);
    expect(saved.status, saved.text).toBe(200);
    const built = await upsert(id);
    expect(built.status, built.text).toBe(200);
    const table = await preview(id);
    expect(table.rows.map((row) => [row.sample, row.habitat, row.first_digit])).toEqual([
      ['A', 'Soil', '1'],
      ['B', 'Sediment', '2'],
      ['C', null, '3'],
      ['D', null, '4'],
    ]);
    expect(table.columns.find((column) => column.name === 'habitat')?.type).toBe('string');
    expect(table.columns.find((column) => column.name === 'first_digit')?.type).toBe('string');
  });

  it('rebuilds with a changed expression as a new version, the earlier one still read as it was', async () => {
    const { collectionId: id } = await createProjectWithUpload(server, token(), 'derived-versions', CONTRASTS);
    await setDerive(id, [HABITAT]);
    const first = await upsert(id);
    expect(first.status, first.text).toBe(200);
    await setDerive(id, [{ ...HABITAT, regex: '^habitat(S)' }]);
    const rebuilt = await upsert(id, true);
    expect(rebuilt.status, rebuilt.text).toBe(200);
    expect(rebuilt.body.version).toBe(first.body.version + 1);
    expect((await preview(id)).rows.map((row) => row.habitat)).toEqual(['S', 'S', null, null]);
    expect((await preview(id, first.body.version)).rows.map((row) => row.habitat)).toEqual([
      'Soil',
      'Sediment',
      null,
      null,
    ]);
    // A new file is upserted beside the others, its rows derived alike.
    const added = await uploadFile(server, token(), id, {
      path: 't.csv',
      run: 'second',
      content: 'sample,contrast,n\nE,habitatSand,5\n',
    });
    expect(added).toBe(201);
    expect((await upsert(id)).status).toBe(200);
    expect((await preview(id)).rows.map((row) => row.habitat)).toEqual(['S', 'S', null, null, 'S']);
  });

  it('refuses an expression that is not RE2, one without a group and a name given twice, at their fields', async () => {
    const { collectionId: id } = await createProjectWithUpload(server, token(), 'derived-refused', CONTRASTS);
    const unclosed = await setDerive(id, [{ ...HABITAT, regex: '^habitat(.+$' }]);
    expect([unclosed.status, unclosed.body.code]).toEqual([400, 'validation_failed']);
    expect(unclosed.body.errors).toEqual([
      { path: 'body.read_options.derive[0].regex', message: expect.stringContaining('missing closing )') },
    ]);
    const lookbehind = await setDerive(id, [{ ...HABITAT, regex: '(?<=habitat)(.+)' }]);
    expect(lookbehind.body.errors?.[0]?.path).toBe('body.read_options.derive[0].regex');
    const groupless = await setDerive(id, [{ ...HABITAT, regex: '^habitat' }]);
    expect(groupless.body.errors).toEqual([
      { path: 'body.read_options.derive[0].regex', message: expect.stringContaining('capture group') },
    ]);
    const twice = await setDerive(id, [HABITAT, { ...HABITAT, from: 'sample' }]);
    expect(twice.body.errors?.map((error) => error.path)).toEqual(['body.read_options.derive[1].name']);
  });

  it('refuses, when the table is built, a column the file lacks and a name the table has', async () => {
    const { collectionId: id } = await createProjectWithUpload(server, token(), 'derived-columns', CONTRASTS);
    expect((await setDerive(id, [{ ...HABITAT, from: 'comparison' }])).status).toBe(200);
    const missing = await upsert(id);
    expect([missing.status, missing.body.code]).toEqual([400, 'validation_failed']);
    expect(missing.body.detail).toContain('t.csv: the file has no column "comparison" to derive "habitat" from');
    expect(missing.body.errors?.map((error) => error.path)).toEqual(['read_options.derive[0].from']);
    await setDerive(id, [{ ...HABITAT, name: 'sample' }]);
    const clash = await upsert(id);
    expect(clash.status).toBe(400);
    expect(clash.body.errors?.map((error) => error.path)).toEqual(['read_options.derive[0].name']);
    expect(clash.body.detail).toContain('already has a column "sample"');
  });

  it('comes back in project.yaml, and an import names a bad expression by its place', async () => {
    const yaml = (regex: string) => `name: derived-yaml
workflows:
  - name: wf
    data_collections:
      - tag: ancombc
        pattern: "t\\\\.csv"
        format: csv
        read_options:
          derive: [{ name: habitat, from: contrast, regex: "${regex}" }]
`;
    const refused = await call<Problem>(server, 'POST', '/projects/import', {
      token: token(),
      body: yaml('^habitat'),
      headers: { 'content-type': 'application/yaml' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.map((error) => error.path)).toEqual([
      'workflows[0].data_collections[0].read_options.derive[0].regex',
    ]);
    const made = await call<{ project_id: string }>(server, 'POST', '/projects/import', {
      token: token(),
      body: yaml('^habitat(.+)$'),
      headers: { 'content-type': 'application/yaml' },
    });
    expect(made.status, made.text).toBe(201);
    const exported = await call(server, 'GET', `/projects/${made.body.project_id}/yaml`, { token: token() });
    expect(exported.text).toContain('derive:');
    expect(exported.text).toContain('from: contrast');
    const again = await call<{ changed: boolean }>(server, 'POST', '/projects/import', {
      token: token(),
      body: exported.text,
      headers: { 'content-type': 'application/yaml' },
    });
    expect([again.status, again.body.changed]).toEqual([200, false]);
  });

  it('shows the derived columns in a file preview that asks for them', async () => {
    const { collectionId: id } = await createProjectWithUpload(server, token(), 'derived-preview', CONTRASTS);
    const files = await call<{ items: { file_id: string }[] }>(server, 'GET', `/datacollections/${id}/files`, {
      token: token(),
    });
    const fileId = files.body.items[0]?.file_id;
    const shown = await call<Preview>(server, 'POST', `/files/${fileId}/preview`, {
      token: token(),
      json: { read_options: { derive: [HABITAT] } },
    });
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.rows.map((row) => row.habitat)).toEqual(['Soil', 'Sediment', null, null]);
    expect(shown.body.columns.map((column) => column.name)).toEqual(['sample', 'contrast', 'n', 'habitat']);
  });
});
