import { randomUUID } from 'node:crypto';
import type { AuthMode } from '@service/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  type CallOptions,
  call,
  createUser,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

/**
 * Every route × every actor × every mode, with the status each must get. The list of routes comes
 * from the server's own OpenAPI document, so a new route without a row here fails this test.
 */

type ActorName = 'admin' | 'user' | 'temporary' | 'anonymous';
const PROVISIONING_KEY = 'p'.repeat(48);
const INTERNAL_KEY = 'i'.repeat(48);

interface World {
  server: TestServer;
  mode: AuthMode;
  tokens: Partial<Record<ActorName, string>>;
  /** A new session for an actor (for routes that end one). */
  freshToken(actor: ActorName): Promise<string | undefined>;
}

interface Row {
  /** What to send, given who sends it; `token` is filled in from the actor. */
  request(world: World, actor: ActorName): Promise<{ path: string; options?: CallOptions }>;
  expected(mode: AuthMode, actor: ActorName): number;
}

const publicLike = (mode: AuthMode) => mode === 'public' || mode === 'demo';
/** Status for routes that need a signed-in user (single-user mode: everyone is the admin). */
const signedIn = (ok: number) => (mode: AuthMode, actor: ActorName) =>
  mode === 'single_user' || actor !== 'anonymous' ? ok : 401;
const adminOnly = (ok: number) => (mode: AuthMode, actor: ActorName) => {
  if (mode === 'single_user' || actor === 'admin') return ok;
  return actor === 'anonymous' ? 401 : 403;
};
const userAdmin = (ok: number) => (mode: AuthMode, actor: ActorName) =>
  mode === 'auth' ? adminOnly(ok)(mode, actor) : 404;
const anyone = (status: number) => () => status;

/** A session for the probe account without spending the login rate limit. */
async function probeSession(world: World): Promise<Session> {
  const probe = await world.server.context.users.repository.findByEmail('probe@example.org');
  if (!probe) throw new Error('probe account missing');
  return world.server.context.sessions.start(probe);
}

async function throwawayUser(world: World): Promise<string> {
  const admin = world.tokens.admin ?? (await login(world.server, ADMIN.email, ADMIN.password)).access_token;
  const created = await call<{ user_id: string }>(world.server, 'POST', '/users', {
    token: admin,
    json: { email: `victim-${randomUUID()}@example.org`, password: 'victim-password-1' },
  });
  return created.body.user_id;
}

const rows: Record<string, Row> = {
  'GET /health': { request: async () => ({ path: '/health' }), expected: anyone(200) },
  'GET /service/api/v1/utils/capabilities': {
    request: async () => ({ path: '/utils/capabilities' }),
    expected: anyone(200),
  },
  'GET /service/api/v1/auth/jwks.json': { request: async () => ({ path: '/auth/jwks.json' }), expected: anyone(200) },
  'POST /service/api/v1/auth/login': {
    request: async () => ({
      path: '/auth/login',
      options: { json: { email: 'probe@example.org', password: 'probe-password-1' } },
    }),
    expected: anyone(200),
  },
  'POST /service/api/v1/auth/register': {
    request: async () => ({
      path: '/auth/register',
      options: { json: { email: `new-${randomUUID()}@example.org`, password: 'a-new-password' } },
    }),
    expected: (mode) => (mode === 'auth' ? 201 : 403),
  },
  'POST /service/api/v1/auth/refresh': {
    request: async (world) => {
      const session = await probeSession(world);
      return { path: '/auth/refresh', options: { json: { refresh_token: session.refresh_token } } };
    },
    expected: anyone(200),
  },
  'POST /service/api/v1/auth/logout': {
    request: async (world, actor) => ({ path: '/auth/logout', options: { token: await world.freshToken(actor) } }),
    expected: signedIn(204),
  },
  'GET /service/api/v1/auth/me': { request: async () => ({ path: '/auth/me' }), expected: signedIn(200) },
  'POST /service/api/v1/auth/magic_link': {
    request: async () => ({ path: '/auth/magic_link', options: { json: { next: '/projects' } } }),
    expected: signedIn(201),
  },
  'POST /service/api/v1/auth/magic_link/redeem': {
    request: async (world) => {
      const probe = await probeSession(world);
      const link = await call<{ url: string }>(world.server, 'POST', '/auth/magic_link', { token: probe.access_token });
      const ticket = new URLSearchParams(new URL(link.body.url).hash.slice(1)).get('ticket');
      return { path: '/auth/magic_link/redeem', options: { json: { ticket } } };
    },
    expected: anyone(200),
  },
  'POST /service/api/v1/auth/public/create_temporary_user': {
    request: async () => ({ path: '/auth/public/create_temporary_user', options: { json: {} } }),
    expected: (mode) => (publicLike(mode) ? 201 : 404),
  },
  'POST /service/api/v1/auth/provision_user': {
    request: async () => ({
      path: '/auth/provision_user',
      options: {
        json: { email: `provisioned-${randomUUID()}@example.org` },
        headers: { 'x-provisioning-key': PROVISIONING_KEY },
      },
    }),
    expected: anyone(201),
  },
  'GET /service/api/v1/users': { request: async () => ({ path: '/users' }), expected: userAdmin(200) },
  'POST /service/api/v1/users': {
    request: async () => ({
      path: '/users',
      options: { json: { email: `made-${randomUUID()}@example.org`, password: 'made-password-1' } },
    }),
    expected: userAdmin(201),
  },
  'GET /service/api/v1/users/{id}': {
    request: async (world) => ({ path: `/users/${world.mode === 'auth' ? await throwawayUser(world) : randomUUID()}` }),
    expected: userAdmin(200),
  },
  'PATCH /service/api/v1/users/{id}': {
    request: async (world) => ({
      path: `/users/${world.mode === 'auth' ? await throwawayUser(world) : randomUUID()}`,
      options: { json: { role: 'admin' } },
    }),
    expected: userAdmin(200),
  },
  'DELETE /service/api/v1/users/{id}': {
    request: async (world) => ({ path: `/users/${world.mode === 'auth' ? await throwawayUser(world) : randomUUID()}` }),
    expected: userAdmin(204),
  },
  'GET /service/api/v1/audit-events': { request: async () => ({ path: '/audit-events' }), expected: adminOnly(200) },
  // The internal key is the only way in: a user's token, even an admin's, is not.
  'POST /service/api/v1/internal/cleanup': {
    request: async () => ({ path: '/internal/cleanup' }),
    expected: anyone(401),
  },
  'GET /metrics': { request: async () => ({ path: '/metrics' }), expected: anyone(401) },
};

const modes: Record<AuthMode, Record<string, string>> = {
  auth: {},
  single_user: { SERVICE_AUTH_SINGLE_USER_MODE: 'true' },
  public: { SERVICE_AUTH_PUBLIC_MODE: 'true' },
  demo: { SERVICE_AUTH_PUBLIC_MODE: 'true', SERVICE_AUTH_DEMO_MODE: 'true' },
};

function actorsOf(mode: AuthMode): ActorName[] {
  if (mode === 'single_user') return ['anonymous'];
  return publicLike(mode) ? ['admin', 'user', 'temporary', 'anonymous'] : ['admin', 'user', 'anonymous'];
}

for (const mode of Object.keys(modes) as AuthMode[]) {
  describe(`route × actor matrix in ${mode} mode`, () => {
    let world: World;

    beforeAll(async () => {
      const server = await startTestServer('sqlite', {
        ...modes[mode],
        SERVICE_AUTH_PROVISIONING_API_KEY: PROVISIONING_KEY,
        SERVICE_AUTH_INTERNAL_API_KEY_ENV: INTERNAL_KEY,
        SERVICE_AUTH_TEMP_USER_RATE_LIMIT: '1000/minute',
      });
      await server.context.users.createAccount(
        { email: 'probe@example.org', password: 'probe-password-1', role: 'user' },
        { via: 'admin' },
      );
      const tokens: World['tokens'] = {};
      const sessionFor = async (actor: ActorName): Promise<Session | undefined> => {
        if (mode === 'single_user' || actor === 'anonymous') return undefined;
        if (actor === 'admin') return login(server, ADMIN.email, ADMIN.password);
        if (actor === 'temporary') {
          return (await call<Session>(server, 'POST', '/auth/public/create_temporary_user', { json: {} })).body;
        }
        if (mode === 'auth') return createUser(server, tokens.admin as string, `user-${randomUUID()}@example.org`);
        return server.context.provisioning.provision(`user-${randomUUID()}@example.org`, '127.0.0.1');
      };
      for (const actor of actorsOf(mode)) {
        const session = await sessionFor(actor);
        if (session) tokens[actor] = session.access_token;
      }
      world = {
        server,
        mode,
        tokens,
        freshToken: async (actor) => (await sessionFor(actor))?.access_token,
      };
    });
    afterAll(async () => {
      await world.server.stop();
      await world.server.database.drop();
    });

    it('has a row for every route the server documents', async () => {
      const document = await call<{ paths: Record<string, Record<string, unknown>> }>(
        world.server,
        'GET',
        '/openapi.json',
      );
      const documented = Object.entries(document.body.paths).flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
      );
      expect(documented.length).toBeGreaterThan(10);
      for (const route of documented) expect(rows, `no matrix row for ${route}`).toHaveProperty([route]);
    });

    for (const [route, row] of Object.entries(rows)) {
      for (const actor of actorsOf(mode)) {
        const expected = row.expected(mode, actor);
        it(`${route} as ${actor} → ${expected}`, async () => {
          const [method, template] = route.split(' ') as [string, string];
          const { path, options } = await row.request(world, actor);
          const token = options && 'token' in options ? options.token : world.tokens[actor];
          const answer =
            template === '/metrics'
              ? await fetch(
                  `${world.server.url}/metrics`,
                  token ? { headers: { authorization: `Bearer ${token}` } } : {},
                ).then((response) => ({ status: response.status, text: '' }))
              : await call(world.server, method, path, { ...options, ...(token ? { token } : {}) });
          expect(answer.status, answer.text).toBe(expected);
        });
      }
    }
  });
}
