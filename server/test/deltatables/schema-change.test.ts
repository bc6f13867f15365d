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

interface Problem {
  status: number;
  code?: string;
  detail?: string;
  errors?: { path: string; message: string }[];
}
interface Schema {
  version: number;
  columns: { name: string; type: string }[];
}

describeEachDialect('fixing a table: types, null markers, ragged lines', (dialect) => {
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

  const upsert = (id: string, overwrite = false) =>
    call<{ version: number } & Problem>(server, 'POST', '/deltatables/upsert', {
      token: admin.access_token,
      json: { data_collection_id: id, overwrite },
    });
  const typeOf = async (id: string, column: string, version?: number) => {
    const query = version === undefined ? '' : `?version=${version}`;
    const schema = await call<Schema>(server, 'GET', `/datacollections/${id}/schema${query}`, {
      token: admin.access_token,
    });
    return schema.body.columns.find((c) => c.name === column)?.type;
  };

  it('rebuilds a table with a changed type and null markers as a new version, the old one still readable', async () => {
    const { collectionId: id } = await createProjectWithUpload(
      server,
      admin.access_token,
      'ph',
      'sample,ph\nA,7.1\nB,NA\nC,6.5\n',
    );
    const first = await upsert(id);
    expect(first.status).toBe(200);
    expect(await typeOf(id, 'ph')).toBe('string');

    const patched = await call(server, 'PATCH', `/datacollections/${id}`, {
      token: admin.access_token,
      json: { read_options: { null_values: ['NA', ''], columns: { ph: 'double', sample: 'string' } } },
    });
    expect(patched.status).toBe(200);
    // An ordinary upsert keeps the table's schema: the new type does not fit the old one.
    const kept = await upsert(id);
    expect(kept.status).toBe(200);
    expect(kept.body.version).toBe(first.body.version);

    const rebuilt = await upsert(id, true);
    expect(rebuilt.status, JSON.stringify(rebuilt.body)).toBe(200);
    expect(rebuilt.body.version).toBe(first.body.version + 1);
    expect(await typeOf(id, 'ph')).toBe('double');
    expect(await typeOf(id, 'ph', first.body.version)).toBe('string');
    const preview = await call<{ rows: { sample: string; ph: number | null }[] }>(
      server,
      'GET',
      `/datacollections/${id}/preview?sort=sample:asc`,
      { token: admin.access_token },
    );
    expect(preview.body.rows.map((row) => row.ph)).toEqual([7.1, null, 6.5]);
  });

  it('refuses a changed file whose column no longer fits, and an overwrite then changes the schema', async () => {
    const { collectionId: id } = await createProjectWithUpload(server, admin.access_token, 'drift', 'k,ph\na,x\n');
    expect((await upsert(id)).status).toBe(200);
    expect(await uploadFile(server, admin.access_token, id, { path: 't.csv', content: 'k,ph\na,7.5\n' })).toBe(201);
    // An ordinary upsert merges into the table's schema, where text never turns into numbers.
    const before = (await upsert(id, false)).body;
    expect(before.status).toBe(400);
    expect(before.detail).toContain('column ph holds DOUBLE where the table holds VARCHAR');
    const overwritten = await upsert(id, true);
    expect(overwritten.status).toBe(200);
    expect(await typeOf(id, 'ph')).toBe('double');
  });

  it('names the first ragged line and its field counts once, in its own words', async () => {
    const header = Array.from({ length: 10 }, (_, i) => `c${i}`).join(',');
    const good = Array.from({ length: 10 }, (_, i) => `${i}`).join(',');
    const lines = [header, ...Array.from({ length: 50 }, () => good)];
    lines.push(Array.from({ length: 13 }, (_, i) => `${i}`).join(','), good, '1,2');
    const { collectionId: id } = await createProjectWithUpload(
      server,
      admin.access_token,
      'ragged',
      `${lines.join('\n')}\n`,
    );
    const refused = await upsert(id);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('validation_failed');
    const detail = refused.body.detail ?? '';
    expect(detail).toContain('t.csv, line 52: 13 fields, expected 10');
    expect(detail.split('line 52').length).toBe(2);
    expect(detail).not.toMatch(/sniff|strict_mode|DuckDB|Invalid Input/i);
    expect(detail).toMatch(/fix that line/);
    expect(refused.body.errors).toEqual([{ path: 't.csv', message: 'line 52: 13 fields, expected 10' }]);
  });

  it('names a ragged line found past the type sample, while the table is written', async () => {
    const rows = Array.from({ length: 30_000 }, (_, i) => `${i},${i}`);
    const { collectionId: id } = await createProjectWithUpload(
      server,
      admin.access_token,
      'late-ragged',
      `a,b\n${rows.join('\n')}\n7\n`,
    );
    const refused = await upsert(id);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain('t.csv, line 30002: 1 fields, expected 2');
    expect(refused.body.detail).not.toContain(server.database.dataDir);
  });

  it('refuses an unknown column type by naming the types to choose from', async () => {
    const { collectionId: id } = await createProjectWithUpload(server, admin.access_token, 'badtype');
    await call(server, 'PATCH', `/datacollections/${id}`, {
      token: admin.access_token,
      json: { read_options: { columns: { a: 'number!' } } },
    });
    const refused = await upsert(id);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain('string, integer, double, boolean, date, timestamp');
  });

  it('names the column, the value and what to do when a value does not fit the chosen type', async () => {
    const { collectionId: id } = await createProjectWithUpload(
      server,
      admin.access_token,
      'misfit',
      'sample,count\nA,1\nB,12x\n',
    );
    await call(server, 'PATCH', `/datacollections/${id}`, {
      token: admin.access_token,
      json: { read_options: { columns: { count: 'integer' } } },
    });
    const refused = await upsert(id, true);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain('t.csv, line 3: column count holds "12x", which is not an integer');
    expect(refused.body.detail).toMatch(/Choose another type for count .*null markers/);
    expect(refused.body.detail).not.toMatch(/DuckDB|sniffer|BIGINT|Conversion Error/);
    expect(refused.body.errors).toEqual([
      { path: 't.csv', message: 'line 3: column count holds "12x", which is not an integer' },
    ]);
  });
});
