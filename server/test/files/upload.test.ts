import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
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

interface FileAnswer {
  file_id: string;
  run_id: string;
  path: string;
  size: number;
  sha256: string;
  content_type: string;
  code?: string;
}

const MAX = 64 * 1024;

describeEachDialect('uploads and file content', (dialect) => {
  let server: TestServer;
  let owner: Session;
  let viewer: Session;
  let stranger: Session;
  let collectionId: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_UPLOAD_MAX_BYTES: String(MAX) });
    const admin = await login(server, ADMIN.email, ADMIN.password);
    owner = await createUser(server, admin.access_token, 'owner@example.org');
    viewer = await createUser(server, admin.access_token, 'viewer@example.org');
    stranger = await createUser(server, admin.access_token, 'stranger@example.org');
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token: owner.access_token,
      json: { name: 'p' },
    });
    await call(server, 'PUT', `/projects/${project.body.project_id}/permissions`, {
      token: owner.access_token,
      json: { owners: ['owner@example.org'], viewers: ['viewer@example.org'], is_public: false },
    });
    const workflow = await call<{ workflow_id: string }>(
      server,
      'POST',
      `/projects/${project.body.project_id}/workflows`,
      {
        token: owner.access_token,
        json: { name: 'wf' },
      },
    );
    const collection = await call<{ data_collection_id: string }>(
      server,
      'POST',
      `/workflows/${workflow.body.workflow_id}/datacollections`,
      {
        token: owner.access_token,
        json: { tag: 'measures', pattern: '(?<island>[^/]+)/measures\\.csv', format: 'csv' },
      },
    );
    collectionId = collection.body.data_collection_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  function upload(
    content: string | Buffer,
    fields: Record<string, string>,
    token = owner.access_token,
    filename = 'measures.csv',
  ) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([content]), filename);
    return fetch(`${server.url}/service/api/v1/datacollections/${collectionId}/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as FileAnswer }));
  }

  async function storedObjects(): Promise<string[]> {
    const keys: string[] = [];
    for await (const object of server.context.storage.list('files/')) keys.push(object.key);
    return keys;
  }

  async function leftoverTemporaryFiles(): Promise<string[]> {
    return readdir(join(server.database.dataDir, 'storage', '.tmp')).catch(() => []);
  }

  it('streams a file into storage, hashed, and registers it under its run', async () => {
    const content = 'sample_id,mass\nA1,3750\nA2,3800\n';
    const answer = await upload(content, { run: 'run_1', path: 'Biscoe/measures.csv' });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      path: 'Biscoe/measures.csv',
      size: Buffer.byteLength(content),
      sha256: createHash('sha256').update(content).digest('hex'),
      content_type: 'text/csv',
    });
    const runs = await call<{ items: { tag: string }[] }>(server, 'GET', `/runs/${answer.body.run_id}`, {
      token: viewer.access_token,
    });
    expect(runs.body).toMatchObject({ tag: 'run_1' });

    const listed = await call<{ items: FileAnswer[] }>(server, 'GET', `/datacollections/${collectionId}/files`, {
      token: viewer.access_token,
    });
    expect(listed.body.items.map((file) => file.path)).toEqual(['Biscoe/measures.csv']);

    const whole = await fetch(`${server.url}/service/api/v1/files/${answer.body.file_id}/content`, {
      headers: { authorization: `Bearer ${viewer.access_token}` },
    });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toContain('text/csv');
    expect(await whole.text()).toBe(content);

    const part = await fetch(`${server.url}/service/api/v1/files/${answer.body.file_id}/content`, {
      headers: { authorization: `Bearer ${viewer.access_token}`, range: 'bytes=10-14' },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-14/${Buffer.byteLength(content)}`);
    expect(await part.text()).toBe(content.slice(10, 15));

    const tail = await fetch(`${server.url}/service/api/v1/files/${answer.body.file_id}/content`, {
      headers: { authorization: `Bearer ${viewer.access_token}`, range: 'bytes=-5' },
    });
    expect(await tail.text()).toBe(content.slice(-5));

    const outside = await fetch(`${server.url}/service/api/v1/files/${answer.body.file_id}/content`, {
      headers: { authorization: `Bearer ${viewer.access_token}`, range: 'bytes=9999-' },
    });
    expect(outside.status).toBe(416);

    expect((await call(server, 'GET', `/files/${answer.body.file_id}`, { token: stranger.access_token })).status).toBe(
      404,
    );
    expect((await call(server, 'GET', `/files/${answer.body.file_id}`)).status).toBe(401);
  });

  it('replaces the file at the same run and path, keeping its id and dropping the old bytes', async () => {
    const first = await upload('sample_id\nB1\n', { run: 'run_2', path: 'Dream/measures.csv' });
    const before = await storedObjects();
    const second = await upload('sample_id\nB1\nB2\n', { run: 'run_2', path: 'Dream/measures.csv' });
    expect(second.status).toBe(201);
    expect(second.body.file_id).toBe(first.body.file_id);
    expect(second.body.sha256).not.toBe(first.body.sha256);
    expect((await storedObjects()).length).toBe(before.length);
  });

  it('refuses paths that leave the run folder or miss the pattern, storing nothing', async () => {
    const before = await storedObjects();
    for (const path of ['../escape/measures.csv', '/abs/measures.csv', 'a/../b/measures.csv', 'Biscoe/other.csv']) {
      const answer = await upload('x\n1\n', { path });
      expect(answer.status, path).toBe(400);
      expect(answer.body.code).toBe('validation_failed');
    }
    // The default path is the file name, which must match too.
    expect((await upload('x\n', {}, owner.access_token, 'measures.csv')).status).toBe(400);
    expect(await storedObjects()).toEqual(before);
    expect(await leftoverTemporaryFiles()).toEqual([]);
  });

  it('answers 413 for a file over the limit and keeps nothing of it', async () => {
    const before = await storedObjects();
    const answer = await upload(Buffer.alloc(MAX + 1, 97), { path: 'Torgersen/measures.csv' });
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe('payload_too_large');
    expect(await storedObjects()).toEqual(before);
    expect(await leftoverTemporaryFiles()).toEqual([]);
    const exact = await upload(Buffer.alloc(MAX, 97), { path: 'Torgersen/measures.csv' });
    expect(exact.status).toBe(201);
  });

  it('registers nothing when the upload is cut off midway', async () => {
    const before = await storedObjects();
    const boundary = 'cutoffboundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="path"\r\n\r\nCut/measures.csv\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="measures.csv"\r\nContent-Type: text/csv\r\n\r\n`;
    const req = httpRequest(`${server.url}/service/api/v1/datacollections/${collectionId}/files`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${owner.access_token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + 50_000),
      },
    });
    req.on('error', () => undefined);
    req.write(head);
    req.write('a'.repeat(20_000));
    // The client goes away once the server is writing the file, then the server must clean up.
    await expect.poll(leftoverTemporaryFiles, { timeout: 10_000, interval: 20 }).not.toEqual([]);
    req.destroy();
    await expect.poll(leftoverTemporaryFiles, { timeout: 10_000, interval: 20 }).toEqual([]);
    const files = await server.context.database.db
      .selectFrom('files')
      .select('path')
      .where('path', '=', 'Cut/measures.csv')
      .execute();
    expect(files).toEqual([]);
    expect(await storedObjects()).toEqual(before);
  });

  it('lets only editors upload, and refuses malformed forms', async () => {
    expect((await upload('x\n', { path: 'V/measures.csv' }, viewer.access_token)).status).toBe(403);
    expect((await upload('x\n', { path: 'V/measures.csv' }, stranger.access_token)).status).toBe(404);
    const anonymous = await fetch(`${server.url}/service/api/v1/datacollections/${collectionId}/files`, {
      method: 'POST',
      body: new FormData(),
    });
    expect(anonymous.status).toBe(401);
    expect((await upload('x\n', { path: 'V/measures.csv', colour: 'red' })).status).toBe(400);
    expect((await upload('x\n', { run: '../bad', path: 'V/measures.csv' })).status).toBe(400);
    const notMultipart = await call(server, 'POST', `/datacollections/${collectionId}/files`, {
      token: owner.access_token,
      json: { path: 'x' },
    });
    expect([406, 415]).toContain(notMultipart.status);
    const empty = new FormData();
    empty.append('path', 'V/measures.csv');
    const noFile = await fetch(`${server.url}/service/api/v1/datacollections/${collectionId}/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.access_token}` },
      body: empty,
    });
    expect(noFile.status).toBe(400);
  });
});
