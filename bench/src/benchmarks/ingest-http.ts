/**
 * HTTP for the `ingest` benchmark, on `node:http` rather than `fetch`: fetch gives up waiting for
 * response headers after 300 s, and a synchronous upsert of a large file may legitimately take
 * longer. One keep-alive agent, so the aggregate latencies don't include connection set-up.
 */
import { createReadStream } from 'node:fs';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

export interface Answer {
  status: number;
  body: string;
}

async function readAnswer(response: IncomingMessage): Promise<Answer> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return { status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') };
}

/** Sends `body` (text, or chunks from a generator) and reads the whole answer. */
function send(
  method: string,
  url: string,
  headers: Record<string, string | number>,
  body: string | (() => AsyncGenerator<Buffer | string>) | null,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const outgoing = httpRequest(url, { method, headers, agent }, (response) => {
      readAnswer(response).then(resolve, reject);
    });
    outgoing.once('error', reject);
    if (body === null) outgoing.end();
    else if (typeof body === 'string') outgoing.end(body);
    else pipeline(body(), outgoing).catch(reject);
  });
}

/** The parsed JSON answer; throws with the status and the start of the body unless it is 2xx. */
export async function requestJson(
  method: string,
  url: string,
  options: { token?: string; body?: unknown } = {},
): Promise<unknown> {
  const headers: Record<string, string | number> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | null = null;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(body);
  }
  const answer = await send(method, url, headers, body);
  return parseAnswer(answer, `${method} ${new URL(url).pathname}`);
}

function parseAnswer(answer: Answer, what: string): unknown {
  if (answer.status < 200 || answer.status > 299) {
    throw new Error(`${what}: HTTP ${answer.status}: ${answer.body.slice(0, 500)}`);
  }
  return answer.body === '' ? null : (JSON.parse(answer.body) as unknown);
}

/**
 * Uploads a file as multipart/form-data (fields `run` and `path`, then the part `file`), streaming
 * it from disk with a known Content-Length, as a browser or `curl -F` would.
 */
export async function uploadFile(
  url: string,
  token: string,
  file: { localPath: string; size: number; run: string; path: string; contentType: string },
): Promise<unknown> {
  const boundary = `----bench${Date.now().toString(16)}${Math.random().toString(16).slice(2)}`;
  const field = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = Buffer.from(
    field('run', file.run) +
      field('path', file.path) +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.path}"\r\n` +
      `Content-Type: ${file.contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* body(): AsyncGenerator<Buffer> {
    yield head;
    for await (const chunk of createReadStream(file.localPath, { highWaterMark: 1024 * 1024 })) yield chunk as Buffer;
    yield tail;
  }
  const answer = await send(
    'POST',
    url,
    {
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': head.length + file.size + tail.length,
    },
    body,
  );
  return parseAnswer(answer, `POST ${new URL(url).pathname}`);
}

export function closeConnections(): void {
  agent.destroy();
}
