import { connect } from 'node:net';
import { API_PREFIX } from '@service/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  describeEachDialect,
  login,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/** Sends bytes as they are (no client fixes them up) and reads the whole answer. */
function rawExchange(server: { url: string }, request: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body });
    });
    // Not end(): a client that half-closes has its request aborted before any answer.
    socket.write(request);
  });
}

function expectProblem(answer: RawAnswer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers).toContain('content-type: application/problem+json');
  expect(JSON.parse(answer.body.slice(answer.body.indexOf('{'), answer.body.lastIndexOf('}') + 1))).toMatchObject({
    status,
    code,
  });
}

describeEachDialect('malformed requests', (dialect) => {
  let server: TestServer;
  let token: string;
  let collectionId: string;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    token = (await login(server, ADMIN.email, ADMIN.password)).access_token;
    ({ collectionId } = await createProjectWithUpload(server, token, 'malformed'));
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const host = () => new URL(server.url).host;
  const uploadHead = (contentType: string, length: number) =>
    `POST ${API_PREFIX}/datacollections/${collectionId}/files HTTP/1.1\r\nHost: ${host()}\r\n` +
    `Authorization: Bearer ${token}\r\nContent-Type: ${contentType}\r\nContent-Length: ${length}\r\n` +
    'Connection: close\r\n\r\n';

  async function registeredPaths() {
    const files = await call<{ items: { path: string }[] }>(server, 'GET', `/datacollections/${collectionId}/files`, {
      token,
    });
    return files.body.items.map((file) => file.path);
  }

  it('answers an upload without a multipart boundary with 400, not 500', async () => {
    const body = 'a,b\n1,2\n';
    const answer = await rawExchange(server, uploadHead('multipart/form-data', body.length) + body);
    expectProblem(answer, 400, 'malformed_body');
    // What to do about it, not only what went wrong.
    expect(answer.body).toMatch(/send the upload again as multipart\/form-data/);
    expect(await registeredPaths()).toEqual(['t.csv']);
  });

  it('answers a multipart body that stops before its closing boundary with 400 and keeps nothing', async () => {
    const body =
      '--b0undary\r\nContent-Disposition: form-data; name="path"\r\n\r\nt.csv\r\n' +
      '--b0undary\r\nContent-Disposition: form-data; name="file"; filename="t.csv"\r\n' +
      'Content-Type: text/csv\r\n\r\na,b\n9,9\n';
    const answer = await rawExchange(server, uploadHead('multipart/form-data; boundary=b0undary', body.length) + body);
    expectProblem(answer, 400, 'malformed_body');
    const content = await call(server, 'GET', `/datacollections/${collectionId}/files`, { token });
    const file = (content.body.items as { file_id: string }[])[0];
    const stored = await fetch(`${server.url}${API_PREFIX}/files/${file?.file_id}/content`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await stored.text()).toBe('a,b\n1,2\n3,4\n');
  });

  it('answers a YAML alias bomb (billion laughs) with 400 and imports nothing', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const previous = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`);
    }
    const bomb = `${levels.join('\n')}\nname: laughs\n`;
    const answer = await call(server, 'POST', '/projects/import', {
      token,
      body: bomb,
      headers: { 'content-type': 'application/yaml' },
    });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect(answer.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ message: expect.stringContaining('alias'), line: 2, column: 8 }],
    });
    const projects = await call<{ items: { name: string }[] }>(server, 'GET', '/projects', { token });
    expect(projects.body.items.map((project) => project.name)).not.toContain('laughs');
  });

  it('answers a path with broken percent-encoding with a 400 problem', async () => {
    const answer = await rawExchange(
      server,
      `GET ${API_PREFIX}/projects/%E0%A4%A HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
    );
    expectProblem(answer, 400, 'malformed_request');
  });

  it('answers headers over the size limit with a 431 problem', async () => {
    const answer = await rawExchange(
      server,
      `GET ${API_PREFIX}/projects HTTP/1.1\r\nHost: ${host()}\r\nX-Padding: ${'x'.repeat(20_000)}\r\nConnection: close\r\n\r\n`,
    );
    expectProblem(answer, 431, 'headers_too_large');
  });
});
