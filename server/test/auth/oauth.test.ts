import { API_PREFIX, hashSecret } from '@service/server';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  authorizeThroughProvider,
  callbackUrlFor,
  deliverCallback,
  freePort,
  type OidcProviderHandle,
  type OidcProviderOptions,
  signInThroughProvider,
  startOidcProvider,
} from '../../../test/support/oidc-provider.js';
import {
  call,
  createTestDatabase,
  type Dialect,
  describeEachDialect,
  type Session,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from '../../../test/support/test-server.js';

interface OAuthSetup {
  server: TestServer;
  idp: OidcProviderHandle;
  /** SERVICE_PUBLIC_URL, which is also where the server listens. */
  publicUrl: string;
}

/**
 * A server with identity-provider sign-in against a real provider. SERVICE_PUBLIC_URL must be the
 * address the server listens on, because the provider sends the browser to `{public URL}/…/callback`.
 */
async function startWithProvider(
  target: Dialect | TestDatabase,
  env: Record<string, string> = {},
  providerOptions: Partial<OidcProviderOptions> = {},
): Promise<OAuthSetup> {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const idp = await startOidcProvider({ redirectUris: [callbackUrlFor(publicUrl)], ...providerOptions });
  try {
    const server = await startTestServer(target, {
      SERVICE_PORT: String(port),
      SERVICE_PUBLIC_URL: publicUrl,
      ...idp.serverEnv,
      ...env,
    });
    expect(server.url).toBe(publicUrl);
    return { server, idp, publicUrl };
  } catch (error) {
    await idp.stop();
    throw error;
  }
}

async function stopSetup(setup: OAuthSetup | undefined) {
  if (setup === undefined) return;
  await setup.server.stop();
  await setup.server.database.drop();
  await setup.idp.stop();
}

/** The ticket and next path of a successful hand-off redirect (`{public URL}/auth/magic#ticket=…&next=…`). */
function handOff(location: string, publicUrl: string): { ticket: string; next: string } {
  const url = new URL(location);
  expect(`${url.origin}${url.pathname}`).toBe(`${publicUrl}/auth/magic`);
  // Nothing secret in the query string: the ticket travels in the fragment only.
  expect(url.search).toBe('');
  const fragment = new URLSearchParams(url.hash.slice(1));
  const ticket = fragment.get('ticket');
  const next = fragment.get('next');
  expect(ticket).toMatch(/^[A-Za-z0-9_-]{32,}$/);
  expect(next).not.toBeNull();
  return { ticket: ticket as string, next: next as string };
}

/** Spends the hand-off ticket like the web app does and answers the session. */
async function redeem(server: TestServer, location: string, publicUrl: string): Promise<Session> {
  const { ticket } = handOff(location, publicUrl);
  const answer = await call<Session>(server, 'POST', '/auth/magic_link/redeem', { json: { ticket } });
  expect(answer.status).toBe(200);
  return answer.body;
}

async function auditEvents(server: TestServer, type: string) {
  const rows = await server.context.database.db
    .selectFrom('audit_events')
    .selectAll()
    .where('type', '=', type)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...row, details: JSON.parse(row.details) as Record<string, unknown> }));
}

function findUser(server: TestServer, email: string) {
  return server.context.database.db
    .selectFrom('users')
    .selectAll()
    .where('email_normalized', '=', email.toLowerCase())
    .executeTakeFirst();
}

async function countRows(server: TestServer, table: 'users' | 'oauth_states' | 'login_tickets') {
  const row = await server.context.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Runs a sign-in that must be refused: the browser lands on `/auth/sign-in?error=<reason>`, one
 * `oauth.refused` audit row names the reason, and no hand-off ticket was issued.
 */
async function expectRefused(setup: OAuthSetup, reason: string, attempt: () => Promise<string>) {
  const refusedBefore = (await auditEvents(setup.server, 'oauth.refused')).length;
  const succeededBefore = (await auditEvents(setup.server, 'oauth.succeeded')).length;
  const ticketsBefore = await countRows(setup.server, 'login_tickets');
  const location = await attempt();
  expect(location).toBe(`${setup.publicUrl}/auth/sign-in?error=${reason}`);
  const refused = (await auditEvents(setup.server, 'oauth.refused')).slice(refusedBefore);
  expect(refused.map((row) => row.details)).toEqual([{ reason }]);
  expect((await auditEvents(setup.server, 'oauth.succeeded')).length).toBe(succeededBefore);
  expect(await countRows(setup.server, 'login_tickets')).toBe(ticketsBefore);
}

describeEachDialect('identity-provider sign-in', (dialect) => {
  let setup: OAuthSetup;
  beforeAll(async () => {
    setup = await startWithProvider(dialect);
  });
  afterEach(() => {
    expect(setup.idp.errors).toEqual([]);
  });
  afterAll(async () => {
    await stopSetup(setup);
  });

  it('sends a PKCE (S256) authorization request with state and nonce, remembered hashed for 10 minutes', async () => {
    const start = await fetch(`${setup.server.url}${API_PREFIX}/auth/oauth/login?next=/collections`, {
      redirect: 'manual',
    });
    expect(start.status).toBe(302);
    const authorization = new URL(start.headers.get('location') as string);
    expect(`${authorization.origin}${authorization.pathname}`).toBe(`${setup.idp.issuer}/auth`);
    const params = authorization.searchParams;
    expect(params.get('response_type')).toBe('code');
    expect(params.get('client_id')).toBe(setup.idp.clientId);
    expect(params.get('redirect_uri')).toBe(`${setup.publicUrl}${API_PREFIX}/auth/oauth/callback`);
    expect(params.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['openid', 'email']));
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const state = params.get('state') as string;
    const nonce = params.get('nonce') as string;
    expect(state).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(nonce).not.toBe(state);

    const row = await setup.server.context.database.db
      .selectFrom('oauth_states')
      .selectAll()
      .where('state_hash', '=', hashSecret(state))
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ nonce, next_path: '/collections', used_at: null });
    expect(row.code_verifier).not.toBe(params.get('code_challenge'));
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(10 * 60 * 1000);
  });

  it('signs a new verified identity in: hand-off ticket, session, and a new user account', async () => {
    setup.idp.addAccount('ada@example.org');
    expect(await findUser(setup.server, 'ada@example.org')).toBeUndefined();
    const requestsBefore = setup.idp.requests.length;

    const location = await signInThroughProvider(setup.server.url, setup.idp, 'ada@example.org');
    expect(handOff(location, setup.publicUrl).next).toBe('/');
    // The server exchanged the code at the token endpoint and, the ID token carrying only `sub`,
    // read the email from the userinfo endpoint.
    const seen = setup.idp.requests.slice(requestsBefore);
    expect(seen).toContain('POST /token');
    expect(seen).toContain('GET /me');

    const session = await redeem(setup.server, location, setup.publicUrl);
    expect(session.user).toMatchObject({ email: 'ada@example.org', role: 'user' });
    const me = await call(setup.server, 'GET', '/auth/me', { token: session.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: 'ada@example.org', role: 'user' });

    const user = await findUser(setup.server, 'ada@example.org');
    expect(user).toMatchObject({ id: session.user.user_id, role: 'user', password_hash: null, disabled: 0 });
    const created = (await auditEvents(setup.server, 'user.created')).filter((row) => row.subject_user_id === user?.id);
    expect(created.map((row) => row.details)).toEqual([{ via: 'oauth', role: 'user' }]);
    const succeeded = (await auditEvents(setup.server, 'oauth.succeeded')).filter(
      (row) => row.subject_user_id === user?.id,
    );
    expect(succeeded).toHaveLength(1);
    expect(succeeded[0]).toMatchObject({ subject_email: 'ada@example.org', details: { issuer: setup.idp.issuer } });

    // The hand-off ticket is single use.
    const again = await call(setup.server, 'POST', '/auth/magic_link/redeem', {
      json: { ticket: handOff(location, setup.publicUrl).ticket },
    });
    expect(again.status).toBe(401);

    // Signing in again finds the same account rather than creating another.
    const second = await redeem(
      setup.server,
      await signInThroughProvider(setup.server.url, setup.idp, 'ada@example.org'),
      setup.publicUrl,
    );
    expect(second.user.user_id).toBe(session.user.user_id);
    const accounts = await setup.server.context.database.db
      .selectFrom('users')
      .select('id')
      .where('email_normalized', '=', 'ada@example.org')
      .execute();
    expect(accounts).toHaveLength(1);
  });

  it('carries `next` through the provider to the hand-off', async () => {
    setup.idp.addAccount('next@example.org');
    const next = '/dashboards/42?tab=charts&range=7d';
    const location = await signInThroughProvider(setup.server.url, setup.idp, 'next@example.org', { next });
    expect(handOff(location, setup.publicUrl).next).toBe(next);
    expect((await redeem(setup.server, location, setup.publicUrl)).user.email).toBe('next@example.org');
  });

  it('refuses a `next` that would leave the site, before going to the provider', async () => {
    const statesBefore = await countRows(setup.server, 'oauth_states');
    for (const next of ['//evil.example', 'https://evil.example', '/\\evil.example', 'evil.example/path']) {
      const answer = await fetch(`${setup.server.url}${API_PREFIX}/auth/oauth/login?${new URLSearchParams({ next })}`, {
        redirect: 'manual',
      });
      expect(answer.status, next).toBe(400);
      expect(answer.headers.get('location'), next).toBeNull();
      expect(((await answer.json()) as { code: string }).code).toBe('validation_failed');
    }
    expect(await countRows(setup.server, 'oauth_states')).toBe(statesBefore);
  });

  it('refuses a forged state without spending the real one', async () => {
    setup.idp.addAccount('forged@example.org');
    const callback = await authorizeThroughProvider(setup.server.url, setup.idp, 'forged@example.org');
    const forged = new URL(callback);
    forged.searchParams.set('state', 'an-attacker-chosen-state-value');
    await expectRefused(setup, 'oauth_state_invalid', () => deliverCallback(setup.server.url, forged, callback.cookie));
    const missing = new URL(callback);
    missing.searchParams.delete('state');
    await expectRefused(setup, 'oauth_state_invalid', () =>
      deliverCallback(setup.server.url, missing, callback.cookie),
    );
    expect(await findUser(setup.server, 'forged@example.org')).toBeUndefined();

    // The genuine redirect still completes.
    const location = await deliverCallback(setup.server.url, callback);
    expect((await redeem(setup.server, location, setup.publicUrl)).user.email).toBe('forged@example.org');
  });

  it('lets only the browser that started a sign-in finish it, by a cookie bound to its state', async () => {
    const start = await fetch(`${setup.server.url}${API_PREFIX}/auth/oauth/login`, { redirect: 'manual' });
    const state = new URL(start.headers.get('location') as string).searchParams.get('state') as string;
    const cookie = start.headers.get('set-cookie') ?? '';
    expect(cookie).toBe(
      `service_oauth_state=${hashSecret(state)}; Max-Age=600; Path=${API_PREFIX}/auth/oauth; HttpOnly; SameSite=Lax`,
    );

    setup.idp.addAccount('victim@example.org');
    const attackers = await authorizeThroughProvider(setup.server.url, setup.idp, 'victim@example.org');
    const victims = await authorizeThroughProvider(setup.server.url, setup.idp, 'victim@example.org');
    // The attacker's redirect, opened in another browser: with no cookie, or with that browser's own.
    await expectRefused(setup, 'oauth_state_invalid', () => deliverCallback(setup.server.url, attackers, ''));
    await expectRefused(setup, 'oauth_state_invalid', () =>
      deliverCallback(setup.server.url, attackers, victims.cookie),
    );
    expect(await findUser(setup.server, 'victim@example.org')).toBeUndefined();
    // Neither spent the state: the browser that started the sign-in still finishes it.
    const location = await deliverCallback(setup.server.url, attackers);
    expect((await redeem(setup.server, location, setup.publicUrl)).user.email).toBe('victim@example.org');
  });

  it('refuses a replayed callback: the state is single use', async () => {
    setup.idp.addAccount('replay@example.org');
    const callback = await authorizeThroughProvider(setup.server.url, setup.idp, 'replay@example.org');
    const first = await deliverCallback(setup.server.url, callback);
    handOff(first, setup.publicUrl);
    await expectRefused(setup, 'oauth_state_invalid', () => deliverCallback(setup.server.url, callback));
    const row = await setup.server.context.database.db
      .selectFrom('oauth_states')
      .select('used_at')
      .where('state_hash', '=', hashSecret(callback.searchParams.get('state') as string))
      .executeTakeFirstOrThrow();
    expect(row.used_at).not.toBeNull();
  });

  it('refuses an expired state', async () => {
    setup.idp.addAccount('late@example.org');
    const callback = await authorizeThroughProvider(setup.server.url, setup.idp, 'late@example.org');
    await setup.server.context.database.db
      .updateTable('oauth_states')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('state_hash', '=', hashSecret(callback.searchParams.get('state') as string))
      .execute();
    await expectRefused(setup, 'oauth_state_invalid', () => deliverCallback(setup.server.url, callback));
    expect(await findUser(setup.server, 'late@example.org')).toBeUndefined();
  });

  it('refuses an ID token whose nonce is not the one the sign-in sent', async () => {
    setup.idp.addAccount('nonce@example.org');
    await expectRefused(setup, 'oauth_failed', () =>
      signInThroughProvider(setup.server.url, setup.idp, 'nonce@example.org', {
        // The provider then signs an ID token for another nonce, as for a token injected from
        // another sign-in.
        rewriteAuthorizationUrl: (url) => url.searchParams.set('nonce', 'a-nonce-from-another-sign-in'),
      }),
    );
    expect(await findUser(setup.server, 'nonce@example.org')).toBeUndefined();
  });

  it('refuses an email the provider does not vouch for, creating no account', async () => {
    setup.idp.addAccount('unverified@example.org', { emailVerified: false });
    await expectRefused(setup, 'email_not_verified', () =>
      signInThroughProvider(setup.server.url, setup.idp, 'unverified@example.org'),
    );
    expect(await findUser(setup.server, 'unverified@example.org')).toBeUndefined();

    setup.idp.addAccount('unstated@example.org', { emailVerified: undefined });
    await expectRefused(setup, 'email_not_verified', () =>
      signInThroughProvider(setup.server.url, setup.idp, 'unstated@example.org'),
    );
    expect(await findUser(setup.server, 'unstated@example.org')).toBeUndefined();
  });

  it('refuses the sign-in as oauth_failed when the userinfo endpoint fails, creating no account', async () => {
    setup.idp.addAccount('userinfo@example.org');
    setup.idp.userinfoDown = true;
    try {
      await expectRefused(setup, 'oauth_failed', () =>
        signInThroughProvider(setup.server.url, setup.idp, 'userinfo@example.org'),
      );
    } finally {
      setup.idp.userinfoDown = false;
    }
    expect(setup.idp.requests).toContain('GET /me');
    expect(await findUser(setup.server, 'userinfo@example.org')).toBeUndefined();
  });

  it('reports a provider error callback as idp_error and spends the state', async () => {
    setup.idp.addAccount('declines@example.org');
    const callback = await authorizeThroughProvider(setup.server.url, setup.idp, 'declines@example.org', {
      deny: 'access_denied',
    });
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('code')).toBeNull();
    const state = callback.searchParams.get('state') as string;
    expect(state).not.toBeNull();
    await expectRefused(setup, 'idp_error', () => deliverCallback(setup.server.url, callback));
    const row = await setup.server.context.database.db
      .selectFrom('oauth_states')
      .select('used_at')
      .where('state_hash', '=', hashSecret(state))
      .executeTakeFirstOrThrow();
    expect(row.used_at).not.toBeNull();
    expect(await findUser(setup.server, 'declines@example.org')).toBeUndefined();
  });

  it('refuses a disabled account', async () => {
    const user = await setup.server.context.users.createAccount(
      { email: 'disabled@example.org', password: null, role: 'user' },
      { via: 'admin' },
    );
    await setup.server.context.database.db
      .updateTable('users')
      .set({ disabled: 1 })
      .where('id', '=', user.id)
      .execute();
    setup.idp.addAccount('disabled@example.org');
    await expectRefused(setup, 'account_disabled', () =>
      signInThroughProvider(setup.server.url, setup.idp, 'disabled@example.org'),
    );
  });
});

describeEachDialect('identity-provider sign-in with registration disabled', (dialect) => {
  let setup: OAuthSetup;
  beforeAll(async () => {
    // This provider puts the email claims in the ID token itself (no userinfo call).
    setup = await startWithProvider(
      dialect,
      { SERVICE_AUTH_REGISTRATION_DISABLED: 'true' },
      { conformIdTokenClaims: false },
    );
  });
  afterEach(() => {
    expect(setup.idp.errors).toEqual([]);
  });
  afterAll(async () => {
    await stopSetup(setup);
  });

  it('signs a known email in, whatever its letter case', async () => {
    const known = await setup.server.context.users.createAccount(
      { email: 'Known.Person@Example.org', password: 'known-person-password', role: 'user' },
      { via: 'admin' },
    );
    setup.idp.addAccount('known.person@example.org');
    const requestsBefore = setup.idp.requests.length;
    const location = await signInThroughProvider(setup.server.url, setup.idp, 'known.person@example.org');
    expect(setup.idp.requests.slice(requestsBefore)).not.toContain('GET /me');
    const session = await redeem(setup.server, location, setup.publicUrl);
    expect(session.user).toMatchObject({ user_id: known.id, email: 'Known.Person@Example.org', role: 'user' });
    expect(await countRows(setup.server, 'users')).toBe(2); // the bootstrap admin and this one
  });

  it('refuses an unknown email and creates no account', async () => {
    const usersBefore = await countRows(setup.server, 'users');
    setup.idp.addAccount('stranger@example.org');
    await expectRefused(setup, 'registration_disabled', () =>
      signInThroughProvider(setup.server.url, setup.idp, 'stranger@example.org'),
    );
    expect(await findUser(setup.server, 'stranger@example.org')).toBeUndefined();
    expect(await countRows(setup.server, 'users')).toBe(usersBefore);
  });
});

describeEachDialect('identity-provider sign-in of the bootstrap admin', (dialect) => {
  let setup: OAuthSetup;
  beforeAll(async () => {
    setup = await startWithProvider(dialect, {
      SERVICE_BOOTSTRAP_ADMIN_EMAIL: 'boss@example.org',
      // No bootstrap password: with OAuth configured the admin signs in through the provider.
      SERVICE_BOOTSTRAP_ADMIN_PASSWORD: '',
      SERVICE_AUTH_REGISTRATION_DISABLED: 'true',
    });
  });
  afterAll(async () => {
    await stopSetup(setup);
  });

  it('creates the admin without a password at startup and signs it in as admin through the provider', async () => {
    const admin = await findUser(setup.server, 'boss@example.org');
    expect(admin).toMatchObject({ role: 'admin', password_hash: null, disabled: 0 });
    const password = await call(setup.server, 'POST', '/auth/login', {
      json: { email: 'boss@example.org', password: 'any-password-at-all' },
    });
    expect(password.status).toBe(401);

    setup.idp.addAccount('boss@example.org');
    const location = await signInThroughProvider(setup.server.url, setup.idp, 'boss@example.org');
    const session = await redeem(setup.server, location, setup.publicUrl);
    expect(session.user).toMatchObject({ user_id: admin?.id, email: 'boss@example.org', role: 'admin' });
    const me = await call(setup.server, 'GET', '/auth/me', { token: session.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: 'boss@example.org', role: 'admin' });
    expect(await countRows(setup.server, 'users')).toBe(1);
    expect(setup.idp.errors).toEqual([]);
  });
});

describeEachDialect('identity-provider sign-in while the provider is down', (dialect) => {
  const CLIENT_SECRET = 'client-secret-known-before-the-provider-starts';
  let server: TestServer;
  let idp: OidcProviderHandle | undefined;
  let providerPort: number;
  let publicUrl: string;
  beforeAll(async () => {
    providerPort = await freePort(); // nothing listens there
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    server = await startTestServer(dialect, {
      SERVICE_PORT: String(port),
      SERVICE_PUBLIC_URL: publicUrl,
      SERVICE_AUTH_IDP_OAUTH_ENABLED: 'true',
      SERVICE_AUTH_IDP_OAUTH_CLIENT_ID: 'service-test-client',
      SERVICE_AUTH_IDP_OAUTH_CLIENT_SECRET: CLIENT_SECRET,
      SERVICE_AUTH_IDP_OAUTH_ISSUER: `http://127.0.0.1:${providerPort}`,
    });
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
    await idp?.stop();
  });

  it('sends the browser back with idp_unavailable, then works once the provider is up', async () => {
    const start = await fetch(`${server.url}${API_PREFIX}/auth/oauth/login?next=/x`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    expect(start.headers.get('location')).toBe(`${publicUrl}/auth/sign-in?error=idp_unavailable`);
    expect(await countRows(server, 'oauth_states')).toBe(0);

    // The failed discovery is not remembered: once the provider answers, sign-in works.
    idp = await startOidcProvider({
      redirectUris: [callbackUrlFor(publicUrl)],
      port: providerPort,
      clientSecret: CLIENT_SECRET,
    });
    expect(idp.serverEnv).toMatchObject({
      SERVICE_AUTH_IDP_OAUTH_CLIENT_ID: 'service-test-client',
      SERVICE_AUTH_IDP_OAUTH_ISSUER: `http://127.0.0.1:${providerPort}`,
    });
    idp.addAccount('patient@example.org');
    const location = await signInThroughProvider(server.url, idp, 'patient@example.org');
    const session = await redeem(server, location, publicUrl);
    expect(session.user.email).toBe('patient@example.org');
  });
});

describeEachDialect('identity-provider sign-in across replicas', (dialect) => {
  let database: TestDatabase;
  let replicaA: OAuthSetup;
  let replicaB: TestServer;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    replicaA = await startWithProvider(database);
    // Behind one load balancer both replicas share the public URL; B listens elsewhere.
    replicaB = await startTestServer(database, {
      ...replicaA.idp.serverEnv,
      SERVICE_PORT: '0',
      SERVICE_PUBLIC_URL: replicaA.publicUrl,
    });
  });
  afterAll(async () => {
    await replicaB?.stop();
    await replicaA?.server.stop();
    await replicaA?.idp.stop();
    await database?.drop();
  });

  it('finishes on one replica a sign-in started on another, once', async () => {
    expect(replicaB.url).not.toBe(replicaA.server.url);
    replicaA.idp.addAccount('roaming@example.org');
    const callback = await authorizeThroughProvider(replicaA.server.url, replicaA.idp, 'roaming@example.org', {
      next: '/shared',
    });
    expect(callback.href.startsWith(callbackUrlFor(replicaA.publicUrl))).toBe(true);

    const location = await deliverCallback(replicaB.url, callback);
    expect(handOff(location, replicaA.publicUrl).next).toBe('/shared');
    const session = await redeem(replicaB, location, replicaA.publicUrl);
    expect(session.user).toMatchObject({ email: 'roaming@example.org', role: 'user' });
    const me = await call(replicaA.server, 'GET', '/auth/me', { token: session.access_token });
    expect(me.status).toBe(200);

    // The state was spent on B, so A refuses the same redirect.
    expect(await deliverCallback(replicaA.server.url, callback)).toBe(
      `${replicaA.publicUrl}/auth/sign-in?error=oauth_state_invalid`,
    );
    expect(replicaA.idp.errors).toEqual([]);
  });
});

describeEachDialect('identity-provider sign-in upkeep', (dialect) => {
  const INTERNAL_KEY = 'internal-key-0123456789-abcdefghijklmnopq';
  let setup: OAuthSetup;
  beforeAll(async () => {
    setup = await startWithProvider(dialect, { SERVICE_AUTH_INTERNAL_API_KEY_ENV: INTERNAL_KEY });
  });
  afterAll(async () => {
    await stopSetup(setup);
  });

  it('purges expired states, tickets and ended sessions on cleanup, keeping what still works', async () => {
    setup.idp.addAccount('kept@example.org');
    const db = setup.server.context.database.db;
    const past = new Date(Date.now() - 1000).toISOString();
    // Two sign-ins finished (two sessions, two spent tickets), one left waiting at the provider.
    const ended = await redeem(
      setup.server,
      await signInThroughProvider(setup.server.url, setup.idp, 'kept@example.org'),
      setup.publicUrl,
    );
    const live = await redeem(
      setup.server,
      await signInThroughProvider(setup.server.url, setup.idp, 'kept@example.org'),
      setup.publicUrl,
    );
    const waiting = await authorizeThroughProvider(setup.server.url, setup.idp, 'kept@example.org');
    await db.updateTable('login_tickets').set({ expires_at: past }).execute();
    await db
      .updateTable('oauth_states')
      .set({ expires_at: past })
      .where('state_hash', '!=', hashSecret(waiting.searchParams.get('state') as string))
      .execute();
    expect((await call(setup.server, 'POST', '/auth/logout', { token: ended.access_token })).status).toBe(204);

    const cleanup = await call(setup.server, 'POST', '/internal/cleanup', {
      headers: { 'x-internal-key': INTERNAL_KEY },
    });
    expect(cleanup.status).toBe(200);
    expect(cleanup.body.purged).toEqual({
      oauth_states: 2,
      login_tickets: 2,
      sessions: 1,
      refresh_tokens: 1,
      access_tokens: 0,
    });
    expect(await countRows(setup.server, 'oauth_states')).toBe(1);
    expect(await countRows(setup.server, 'login_tickets')).toBe(0);
    // What was not expired still works: the live session refreshes, the waiting sign-in finishes.
    const refreshed = await call(setup.server, 'POST', '/auth/refresh', {
      json: { refresh_token: live.refresh_token },
    });
    expect(refreshed.status).toBe(200);
    handOff(await deliverCallback(setup.server.url, waiting), setup.publicUrl);
  });

  it('marks the binding cookie Secure when the public URL is https', async () => {
    const behindTls = await startTestServer(setup.server.database, {
      ...setup.idp.serverEnv,
      SERVICE_PUBLIC_URL: 'https://data.example.org/analytics',
    });
    try {
      const start = await fetch(`${behindTls.url}${API_PREFIX}/auth/oauth/login`, { redirect: 'manual' });
      expect(start.status).toBe(302);
      expect(start.headers.get('set-cookie')).toMatch(
        new RegExp(`; Path=/analytics${API_PREFIX}/auth/oauth; HttpOnly; SameSite=Lax; Secure$`),
      );
    } finally {
      await behindTls.stop();
    }
  });

  it('rate-limits starting sign-ins per client address, in the database', async () => {
    const start = () => fetch(`${setup.server.url}${API_PREFIX}/auth/oauth/login`, { redirect: 'manual' });
    let status = 302;
    let started = 0;
    while (status === 302 && started < 50) {
      status = (await start()).status;
      if (status === 302) started++;
    }
    expect(status).toBe(429);
    expect(started).toBeLessThanOrEqual(20);
    const counters = await setup.server.context.database.db.selectFrom('rate_limit_counters').selectAll().execute();
    expect(counters.some((row) => row.key.startsWith('oauth-login:'))).toBe(true);
  });
});
