import { request } from 'node:http';
import { API_PREFIX } from '@service/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  describeEachDialect,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

interface RawAnswer {
  status: number;
  type: string;
  body: { code?: string } & Record<string, unknown>;
}

/** A request with headers fetch will not send as given (`Host`). */
function raw(
  server: { url: string },
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const target = path.startsWith('/health') ? path : `${API_PREFIX}${path}`;
    const req = request(`${server.url}${target}`, { method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          type: String(response.headers['content-type'] ?? ''),
          body: text.startsWith('{') ? JSON.parse(text) : {},
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'content-type': 'application/json' };

describeEachDialect('single-user mode against other sites', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_AUTH_SINGLE_USER_MODE: 'true' });
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  async function projectNames() {
    const page = await call<{ items: { name: string }[] }>(server, 'GET', '/projects');
    return page.body.items.map((project) => project.name);
  }

  it('refuses a cross-site form or script that would create a project as the admin', async () => {
    const form = await raw(server, 'POST', '/projects', { ...FORM, origin: 'https://evil.example' }, 'name=pwned');
    expect(form).toMatchObject({ status: 403, type: expect.stringContaining('application/problem+json') });
    expect(form.body.code).toBe('cross_origin_request');
    const script = await raw(
      server,
      'POST',
      '/projects',
      { ...JSON_TYPE, origin: 'https://evil.example' },
      JSON.stringify({ name: 'pwned-json' }),
    );
    expect(script.body.code).toBe('cross_origin_request');
    const marked = await raw(
      server,
      'POST',
      '/projects',
      { ...JSON_TYPE, 'sec-fetch-site': 'cross-site' },
      JSON.stringify({ name: 'pwned-marked' }),
    );
    expect(marked.body.code).toBe('cross_origin_request');
    const nullOrigin = await raw(server, 'DELETE', '/projects/x', { origin: 'null' });
    expect(nullOrigin.body.code).toBe('cross_origin_request');
    // Even without an Origin, a form is no body for anything but the sign-in.
    const bareForm = await raw(server, 'POST', '/projects', FORM, 'name=pwned-bare');
    expect(bareForm).toMatchObject({ status: 415, body: { code: 'unsupported_media_type' } });
    expect(await projectNames()).toEqual([]);
  });

  it('accepts the server’s own pages and clients that send no Origin', async () => {
    const own = new URL(server.url).origin;
    for (const [name, origin] of [
      ['from-own-page', own],
      ['from-public-url', 'http://127.0.0.1:8058'],
    ] as const) {
      const answer = await raw(
        server,
        'POST',
        '/projects',
        { ...JSON_TYPE, origin, 'sec-fetch-site': 'same-origin' },
        JSON.stringify({ name }),
      );
      expect(answer.status).toBe(201);
    }
    expect((await call(server, 'POST', '/projects', { json: { name: 'from-cli' } })).status).toBe(201);
    expect((await projectNames()).sort()).toEqual(['from-cli', 'from-own-page', 'from-public-url']);
  });

  it('refuses a host name an attacker points at the server (DNS rebinding), but not loopback or /health', async () => {
    const port = new URL(server.url).port;
    const rebound = await raw(server, 'GET', '/projects', { host: `evil.example:${port}` });
    expect(rebound).toMatchObject({ status: 403, type: expect.stringContaining('application/problem+json') });
    expect(rebound.body.code).toBe('host_not_allowed');
    const write = await raw(
      server,
      'POST',
      '/projects',
      { ...JSON_TYPE, host: `evil.example:${port}`, origin: `http://evil.example:${port}` },
      JSON.stringify({ name: 'rebound' }),
    );
    expect(write.body.code).toBe('host_not_allowed');
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, '127.0.0.1:8058']) {
      expect((await raw(server, 'GET', '/auth/me', { host })).status).toBe(200);
    }
    expect((await raw(server, 'GET', '/health', { host: 'evil.example' })).status).toBe(200);
    expect(await projectNames()).not.toContain('rebound');
  });
});

describe('auth mode against other sites', () => {
  let server: TestServer;
  let checked: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
    checked = await startTestServer('sqlite', {
      SERVICE_PUBLIC_URL: 'https://data.example.org',
      SERVICE_ALLOWED_HOSTS: 'data.internal:8443, 10.0.0.7',
    });
  });
  afterAll(async () => {
    for (const running of [server, checked]) {
      await running.stop();
      await running.database.drop();
    }
  });

  it('keeps the password form on the sign-in only, and refuses it from another site', async () => {
    const form = `username=${encodeURIComponent(ADMIN.email)}&password=${encodeURIComponent(ADMIN.password)}`;
    expect((await raw(server, 'POST', '/auth/login', FORM, form)).status).toBe(200);
    const crossSite = await raw(server, 'POST', '/auth/login', { ...FORM, origin: 'https://evil.example' }, form);
    expect(crossSite).toMatchObject({ status: 403, body: { code: 'cross_origin_request' } });
    const register = await raw(
      server,
      'POST',
      '/auth/register',
      FORM,
      'email=a%40example.org&password=long-password-1',
    );
    expect(register).toMatchObject({ status: 415, body: { code: 'unsupported_media_type' } });
  });

  it('checks Host only when SERVICE_ALLOWED_HOSTS asks for it', async () => {
    expect((await raw(server, 'GET', '/utils/capabilities', { host: 'evil.example' })).status).toBe(200);
    expect((await raw(checked, 'GET', '/utils/capabilities', { host: 'evil.example' })).body.code).toBe(
      'host_not_allowed',
    );
    expect((await raw(checked, 'GET', '/utils/capabilities', { host: 'data.internal:9999' })).status).toBe(403);
    for (const host of ['data.example.org', 'data.internal:8443', '10.0.0.7:8058', 'localhost']) {
      expect((await raw(checked, 'GET', '/utils/capabilities', { host })).status).toBe(200);
    }
  });
});
