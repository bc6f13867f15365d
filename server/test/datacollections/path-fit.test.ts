import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createUser,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';

interface Fit {
  path: string;
  matches: boolean;
  pattern: string;
  pattern_with_path: string | null;
  rename_to: string | null;
}
interface Problem {
  detail?: string;
  code?: string;
  errors?: { path: string; message: string }[];
}

describeEachDialect('an upload whose name the pattern does not take', (dialect) => {
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

  const fit = (id: string, path: string, token = admin.access_token) =>
    call<Fit & Problem>(server, 'GET', `/datacollections/${id}/path-fit?path=${encodeURIComponent(path)}`, { token });
  const patternOf = async (id: string) =>
    (await call<{ pattern: string }>(server, 'GET', `/datacollections/${id}`, { token: admin.access_token })).body
      .pattern;

  it('offers a rename into the folder of the collection’s files, and a wider pattern that takes it', async () => {
    const { workflowId } = await createProjectWithUpload(server, admin.access_token, 'fit');
    const made = await call<{ data_collection_id: string }>(
      server,
      'POST',
      `/workflows/${workflowId}/datacollections`,
      {
        token: admin.access_token,
        json: { tag: 'ph', pattern: 'ph/[^/]+\\.csv', format: 'csv' },
      },
    );
    const id = made.body.data_collection_id;
    expect(await uploadFile(server, admin.access_token, id, { path: 'ph/a.csv', content: 'x\n1\n' })).toBe(201);

    expect((await fit(id, 'ph/b.csv')).body).toMatchObject({ matches: true, rename_to: null, pattern_with_path: null });
    const offered = await fit(id, 'ph (2).csv');
    expect(offered.status).toBe(200);
    expect(offered.body).toEqual({
      path: 'ph (2).csv',
      matches: false,
      pattern: 'ph/[^/]+\\.csv',
      pattern_with_path: '(?:ph/[^/]+\\.csv)|ph \\(2\\)\\.csv',
      rename_to: 'ph/ph (2).csv',
    });

    // The refusal of the upload itself says both ways out.
    const form = new FormData();
    form.append('path', 'ph (2).csv');
    form.append('file', new Blob(['x\n2\n']), 'ph (2).csv');
    const refused = await call<Problem>(server, 'POST', `/datacollections/${id}/files`, {
      token: admin.access_token,
      form,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain('upload it as ph/ph (2).csv');
    expect(refused.body.detail).toContain('add it to the pattern');

    // Adding it to the pattern takes exactly that file, and the files the pattern took before.
    const widened = offered.body.pattern_with_path as string;
    const patched = await call(server, 'PATCH', `/datacollections/${id}`, {
      token: admin.access_token,
      json: { pattern: widened },
    });
    expect(patched.status).toBe(200);
    expect(await uploadFile(server, admin.access_token, id, { path: 'ph (2).csv', content: 'x\n2\n' })).toBe(201);
    expect((await fit(id, 'ph (3).csv')).body.matches).toBe(false);
    const upsert = await call<{ rows: number }>(server, 'POST', '/deltatables/upsert', {
      token: admin.access_token,
      json: { data_collection_id: id },
    });
    expect(upsert.body.rows).toBe(2);
  });

  it('has no rename when no folder the pattern takes fits the name, and no wider pattern past its length', async () => {
    const { collectionId: id } = await createProjectWithUpload(server, admin.access_token, 'nofit');
    // The pattern is `t\.csv`: no other name fits it.
    expect((await fit(id, 'u.csv')).body).toMatchObject({ matches: false, rename_to: null });
    const long = `${'d/'.repeat(500)}u.csv`;
    const answer = await fit(id, long);
    expect(answer.status).toBe(200);
    expect(answer.body.pattern_with_path).toBeNull();
    expect(await patternOf(id)).toBe('t\\.csv');
  });

  it('refuses a missing, absolute or too long path, an unknown collection, and those who may not upload', async () => {
    const { collectionId: id } = await createProjectWithUpload(server, admin.access_token, 'refusals');
    const missing = await call<Problem>(server, 'GET', `/datacollections/${id}/path-fit`, {
      token: admin.access_token,
    });
    expect(missing.status).toBe(400);
    const absolute = await fit(id, '/etc/passwd');
    expect(absolute.status).toBe(400);
    expect(absolute.body.detail).toMatch(/relative to the run folder: use a path like/);
    expect((await fit(id, '../t.csv')).status).toBe(400);
    expect((await fit(id, 'x'.repeat(1025))).status).toBe(400);
    expect((await fit('0190f0a0-0000-7000-8000-000000000000', 't.csv')).status).toBe(404);
    const stranger = await createUser(server, admin.access_token, `fit-${dialect}@example.org`);
    expect((await fit(id, 't.csv', stranger.access_token)).status).toBe(404);
    const anonymous = await call(server, 'GET', `/datacollections/${id}/path-fit?path=t.csv`);
    expect(anonymous.status).toBe(401);
  });

  it('answers the same to concurrent questions while the pattern changes', async () => {
    const { collectionId: id } = await createProjectWithUpload(server, admin.access_token, 'concurrent');
    const widened = (await fit(id, 'u.csv')).body.pattern_with_path as string;
    const [patched, ...answers] = await Promise.all([
      call(server, 'PATCH', `/datacollections/${id}`, { token: admin.access_token, json: { pattern: widened } }),
      ...Array.from({ length: 4 }, () => fit(id, 'u.csv')),
    ]);
    expect(patched?.status).toBe(200);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      // Before the change the pattern did not take it, after it does: never anything else.
      expect([
        { matches: false, pattern: 't\\.csv' },
        { matches: true, pattern: widened },
      ]).toContainEqual({ matches: answer.body.matches, pattern: answer.body.pattern });
    }
    expect((await fit(id, 'u.csv')).body.matches).toBe(true);
  });
});
