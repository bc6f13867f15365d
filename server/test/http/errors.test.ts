import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  describeEachDialect,
  login,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

describeEachDialect('HTTP errors', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('answers unknown routes with a 404 problem', async () => {
    const answer = await call(server, 'GET', '/no/such/route');
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect(answer.body).toMatchObject({ status: 404, code: 'not_found', title: 'Not Found', type: expect.any(String) });
  });

  it('answers malformed JSON with 400 malformed_body', async () => {
    const answer = await call(server, 'POST', '/auth/login', {
      body: '{"email": "a@example.org", ',
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'malformed_body' });
  });

  it('answers wrong types, missing and unknown fields with 400 validation_failed, field by field', async () => {
    const answer = await call(server, 'POST', '/auth/register', { json: { email: 42, surprise: true } });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('validation_failed');
    const paths = (answer.body.errors as { path: string; message: string }[]).map((error) => error.path).sort();
    expect(paths).toEqual(['body.email', 'body.password', 'body.surprise']);
  });

  it('answers an oversized body with 413 before reading it all', async () => {
    const answer = await call(server, 'POST', '/auth/login', {
      json: { email: 'a@example.org', password: 'x'.repeat(2 * 1024 * 1024) },
    });
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe('payload_too_large');
  });

  it('answers an unsupported body type with 415', async () => {
    const answer = await call(server, 'POST', '/auth/login', {
      body: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expect(answer.status).toBe(415);
    expect(answer.body.code).toBe('unsupported_media_type');
  });

  it('tags every answer with a request id', async () => {
    const answer = await call(server, 'GET', '/utils/capabilities');
    expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the OpenAPI document and the docs UI', async () => {
    const document = await call(server, 'GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toBe('3.1.0');
    const paths = Object.keys(document.body.paths as object);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/service/api/v1/auth/login',
        '/service/api/v1/users/{id}',
        '/service/api/v1/utils/capabilities',
      ]),
    );
    const ui = await fetch(`${server.url}/service/api/v1/docs/`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
  });

  it('reports health with the database state', async () => {
    const answer = await call(server, 'GET', '/health');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      status: 'ok',
      version: server.context.config.version,
      database: 'ok',
      live: true,
      ready: true,
      draining: false,
      storage: 'ok',
      workers: expect.objectContaining({ in_process: server.context.config.jobs.workers }),
    });
  });
});

describeEachDialect('HTTP failures inside the server', (dialect) => {
  it('answers 503 on /health and a 500 with only a request id when the database is gone', async () => {
    const server = await startTestServer(dialect);
    try {
      const { access_token } = await login(server, ADMIN.email, ADMIN.password);
      await server.context.database.close();
      const health = await call(server, 'GET', '/health');
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({ status: 'unavailable', database: 'unreachable', ready: false, live: true });
      expect(health.headers.get('retry-after')).toBe('1');
      expect((await call(server, 'GET', '/health/live')).status).toBe(200);

      const answer = await call(server, 'GET', '/auth/me', { token: access_token });
      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({
        type: 'urn:service:problem:internal_error',
        title: 'Internal Server Error',
        status: 500,
        detail: expect.stringContaining('request id'),
        code: 'internal_error',
        request_id: answer.headers.get('x-request-id'),
      });
      expect(answer.text).not.toMatch(/at .*\.(ts|js):\d+/);
    } finally {
      await server.app.close();
      await server.database.drop();
    }
  });
});

describe('capabilities', () => {
  it('needs no token and reflects the switches', async () => {
    const server = await startTestServer('sqlite', {
      SERVICE_JOBS_ENABLED: 'false',
      SERVICE_AUTH_REGISTRATION_DISABLED: 'true',
    });
    try {
      const answer = await call(server, 'GET', '/utils/capabilities', { token: 'stale.token.value' });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        version: server.context.config.version,
        app_name: 'Pipeline Dashboards',
        auth_mode: 'auth',
        features: [],
        auth: {
          registration: false,
          password_login: true,
          oauth: false,
          temporary_users: false,
          access_code_required: false,
          temporary_user_expiry_hours: null,
        },
      });
      const withJobs = await startTestServer('sqlite');
      try {
        expect((await call(withJobs, 'GET', '/utils/capabilities')).body.features).toEqual([
          'jobs',
          'deltatables.async_upsert',
          'ingestion.browser_trigger',
        ]);
      } finally {
        await withJobs.stop();
        await withJobs.database.drop();
      }
    } finally {
      await server.stop();
      await server.database.drop();
    }
  });
});
