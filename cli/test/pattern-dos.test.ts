import { request } from 'node:http';
import { expect, it, onTestFinished } from 'vitest';
import { ADMIN, call, createTestDatabase, describeEachDialect, login } from '../../test/support/test-server.js';
import { exitOf, startCliServer } from './run-cli.js';

/**
 * The server runs in its own process here, so a blocked event loop shows as a request that never
 * answers instead of freezing the test itself.
 */
describeEachDialect('collection patterns and the event loop', (dialect) => {
  it('keeps /health answering while an upload whose path makes backtracking explode is in flight', async () => {
    const database = await createTestDatabase(dialect);
    const server = await startCliServer({
      SERVICE_DATABASE_URL: database.url,
      SERVICE_DATA_DIR: database.dataDir,
      SERVICE_HOST: '127.0.0.1',
      SERVICE_PORT: '0',
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      SERVICE_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      SERVICE_UPLOAD_MAX_BYTES: String(64 * 1024 * 1024),
    });
    // Also when the test times out: a server stuck in a match would otherwise outlive the run.
    onTestFinished(async () => {
      server.child.kill('SIGKILL');
      await exitOf(server.child);
      await database.drop();
    });

    const { access_token: token } = await login(server, ADMIN.email, ADMIN.password);
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', { token, json: { name: 'p' } });
    const workflow = await call<{ workflow_id: string }>(
      server,
      'POST',
      `/projects/${project.body.project_id}/workflows`,
      { token, json: { name: 'wf' } },
    );
    // Declaring the pattern is fine: RE2 matches it in linear time.
    const collection = await call<{ data_collection_id: string }>(
      server,
      'POST',
      `/workflows/${workflow.body.workflow_id}/datacollections`,
      { token, json: { tag: 't', pattern: '(?<x>a+)+b|a*c', format: 'csv' } },
    );
    expect(collection.status).toBe(201);
    const collectionId = collection.body.data_collection_id;

    // A backtracking engine takes about 2^50 steps on this path before the second branch matches.
    const path = `${'a'.repeat(50)}c`;
    const upload = openUpload(server.url, token, collectionId, path);
    // The server matches the path when the file part begins and only then reads the content: once a
    // chunk larger than every socket buffer on the way has been taken, the match is over.
    await upload.sendChunk(Buffer.alloc(24 * 1024 * 1024, 'x'));
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(upload.answered()).toBe(false);

    const answer = await upload.finish();
    expect(answer.status).toBe(201);
    const files = await call<{ items: { path: string }[] }>(server, 'GET', `/datacollections/${collectionId}/files`, {
      token,
    });
    expect(files.body.items.map((file) => file.path)).toEqual([path]);
  });
});

/** A multipart upload whose body the test sends piece by piece, keeping it open until `finish`. */
function openUpload(baseUrl: string, token: string, collectionId: string, path: string) {
  const boundary = 'pattern-dos-boundary';
  let status: number | null = null;
  let text = '';
  const req = request(`${baseUrl}/service/api/v1/datacollections/${collectionId}/files`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'transfer-encoding': 'chunked',
    },
  });
  const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => {
        status = response.statusCode ?? 0;
        resolve({ status, text });
      });
    });
    req.on('error', reject);
  });
  req.write(
    `--${boundary}\r\nContent-Disposition: form-data; name="path"\r\n\r\n${path}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.csv"\r\n` +
      'Content-Type: text/csv\r\n\r\nx\n',
  );
  return {
    sendChunk: (chunk: Buffer) =>
      new Promise<void>((resolve, reject) => {
        req.write(chunk, (error) => (error ? reject(error) : resolve()));
      }),
    answered: () => status !== null,
    finish: () => {
      req.end(`\r\n--${boundary}--\r\n`);
      return answered;
    },
  };
}
