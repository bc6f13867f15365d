import { randomUUID } from 'node:crypto';
import type { AuthMode } from '@service/common';
import { call } from '../../../test/support/test-server.js';
import {
  type ActorName,
  adminOnly,
  anyone,
  PROVISIONING_KEY,
  probeSession,
  publicLike,
  type Row,
  signedIn,
  throwawayUser,
  userAdmin,
} from './matrix-world.js';

function ownTokens(ok: number) {
  return (mode: AuthMode, actor: ActorName) => {
    if (mode === 'single_user') return 404;
    if (actor === 'anonymous') return 401;
    return actor === 'temporary' ? 403 : ok;
  };
}

/** Health, capabilities, sign-in and sessions, users, audit, internal and metrics. */
export const accountRows: Record<string, Row> = {
  'GET /health': { request: async () => ({ path: '/health' }), expected: anyone(200) },
  'GET /health/ready': { request: async () => ({ path: '/health/ready' }), expected: anyone(200) },
  'GET /health/live': { request: async () => ({ path: '/health/live' }), expected: anyone(200) },
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
    request: async (world) => ({ path: `/users/${await throwawayUser(world)}` }),
    expected: userAdmin(200),
  },
  'PATCH /service/api/v1/users/{id}': {
    request: async (world) => ({ path: `/users/${await throwawayUser(world)}`, options: { json: { role: 'admin' } } }),
    expected: userAdmin(200),
  },
  'GET /service/api/v1/users/{id}/deletion-summary': {
    request: async (world) => ({ path: `/users/${await throwawayUser(world)}/deletion-summary` }),
    expected: userAdmin(200),
  },
  'DELETE /service/api/v1/users/{id}': {
    request: async (world) => ({ path: `/users/${await throwawayUser(world)}` }),
    expected: userAdmin(204),
  },
  // One's own personal access tokens, with a session: temporary users make none; single-user
  // mode ignores bearer tokens, so the routes do not exist there.
  'POST /service/api/v1/auth/tokens': {
    request: async () => ({ path: '/auth/tokens', options: { json: { name: 'pipeline', scope: 'read' } } }),
    expected: ownTokens(201),
  },
  'GET /service/api/v1/auth/tokens': { request: async () => ({ path: '/auth/tokens' }), expected: ownTokens(200) },
  'DELETE /service/api/v1/auth/tokens/{token_id}': {
    request: async (world, actor) => {
      const own = world.tokens[actor];
      const session = own === undefined || actor === 'temporary' ? (await probeSession(world)).access_token : own;
      const created = await call<{ token_id: string }>(world.server, 'POST', '/auth/tokens', {
        token: session,
        json: { name: 'to revoke', scope: 'read' },
      });
      return { path: `/auth/tokens/${created.body.token_id}` };
    },
    expected: ownTokens(204),
  },
  'GET /service/api/v1/audit-events': { request: async () => ({ path: '/audit-events' }), expected: adminOnly(200) },
  // The internal key is the only way in: a user's token, even an admin's, is not.
  'POST /service/api/v1/internal/cleanup': {
    request: async () => ({ path: '/internal/cleanup' }),
    expected: anyone(401),
  },
  'POST /service/api/v1/internal/vacuum': {
    request: async () => ({ path: '/internal/vacuum' }),
    expected: anyone(401),
  },
  'GET /metrics': { request: async () => ({ path: '/metrics' }), expected: anyone(401) },
};
