import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_PREFIX } from '@service/server';
// @ts-expect-error oidc-provider v8 ships no type declarations; the little used here is typed below.
import Provider from 'oidc-provider';

/**
 * A real OpenID Connect provider (`oidc-provider`) on loopback, in process, for sign-in tests.
 * It has one confidential client, requires PKCE, and logs users in without a browser: its
 * interaction page signs in whichever account the test names in the query string.
 */

/** The slice of oidc-provider's API this harness uses. */
interface OidcGrant {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}
interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ uid: string; params: Record<string, unknown> }>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: new (properties: { accountId: string; clientId: string }) => OidcGrant;
  on(event: string, listener: (...args: unknown[]) => void): void;
}
type OidcProviderClass = new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;

export interface IdpAccount {
  sub: string;
  email: string;
  /** Left out of the claims when undefined. */
  emailVerified: boolean | undefined;
}

export interface OidcProviderHandle {
  /** The issuer URL, `http://127.0.0.1:<port>`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The settings that point the server at this provider. */
  serverEnv: Record<string, string>;
  /** Adds (or replaces) an account the provider can sign in; answers it. */
  addAccount(email: string, options?: { emailVerified?: boolean | undefined }): IdpAccount;
  /** Errors the provider reported while handling requests (should stay empty). */
  errors: unknown[];
  /** Every request the provider received, as `METHOD /path`. */
  requests: string[];
  /** While true, the userinfo endpoint answers 503, as a provider having trouble. */
  userinfoDown: boolean;
  stop(): Promise<void>;
}

export interface OidcProviderOptions {
  /** Where the client may be sent back: the callback URL of each server under test. */
  redirectUris: string[];
  /** Listen on this port (default: any free one). */
  port?: number;
  /**
   * `true` (the library's default, the conforming behaviour): the ID token of a code flow carries
   * only `sub`, so the email comes from the userinfo endpoint. `false`: the email is in the ID token.
   */
  conformIdTokenClaims?: boolean;
  /** The client's secret (default: a random one). */
  clientSecret?: string;
}

/** The callback URL of a server whose SERVICE_PUBLIC_URL is `publicUrl`. */
export function callbackUrlFor(publicUrl: string): string {
  return `${publicUrl}${API_PREFIX}/auth/oauth/callback`;
}

/** A port that was free a moment ago (the OS picks it; the listener is closed again). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A minimal storage adapter, one per provider, so nothing leaks between tests or warns on startup. */
function memoryAdapter() {
  const store = new Map<string, { payload: Record<string, unknown>; expiresAt: number }>();
  const live = (key: string) => {
    const entry = store.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= Date.now()) {
      store.delete(key);
      return undefined;
    }
    return entry.payload;
  };
  return class MemoryAdapter {
    constructor(private readonly model: string) {}
    private key(id: string) {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: Record<string, unknown>, expiresIn: number) {
      store.set(this.key(id), { payload, expiresAt: Date.now() + expiresIn * 1000 });
      if (this.model === 'Session' && typeof payload.uid === 'string') {
        store.set(`SessionUid:${payload.uid}`, { payload: { id }, expiresAt: Date.now() + expiresIn * 1000 });
      }
    }
    async find(id: string) {
      return live(this.key(id));
    }
    async findByUid(uid: string) {
      const ref = live(`SessionUid:${uid}`);
      return typeof ref?.id === 'string' ? this.find(ref.id) : undefined;
    }
    async findByUserCode() {
      return undefined;
    }
    async consume(id: string) {
      const payload = live(this.key(id));
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      store.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string) {
      for (const [key, entry] of store) if (entry.payload.grantId === grantId) store.delete(key);
    }
  };
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<OidcProviderHandle> {
  const clientId = 'service-test-client';
  const clientSecret = options.clientSecret ?? randomBytes(24).toString('base64url');
  const accounts = new Map<string, IdpAccount>();
  const errors: unknown[] = [];
  const requests: string[] = [];
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  let provider: OidcProvider | undefined;

  /**
   * The login page, driven by the query string: `?login=<email>` signs that account in and grants
   * `openid email`; `?deny=<error>` ends the interaction with that OAuth error (the provider then
   * redirects to the client with `?error=…&state=…`).
   */
  async function interaction(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (provider === undefined) throw new Error('provider not started');
    const details = await provider.interactionDetails(req, res);
    const deny = url.searchParams.get('deny');
    if (deny !== null) {
      await provider.interactionFinished(
        req,
        res,
        { error: deny, error_description: 'the user declined the sign-in' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const email = url.searchParams.get('login');
    const account = email === null ? undefined : accounts.get(email);
    if (account === undefined) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`no test account ${String(email)}`);
      return;
    }
    const grant = new provider.Grant({ accountId: account.sub, clientId: String(details.params.client_id) });
    grant.addOIDCScope('openid email');
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: account.sub }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(`${req.method} ${url.pathname}`);
    if (handle.userinfoDown && url.pathname === '/me') {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"temporarily_unavailable"}');
      return;
    }
    if (url.pathname.startsWith('/interaction/')) {
      interaction(req, res, url).catch((error: unknown) => {
        errors.push(error);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(error));
      });
      return;
    }
    if (handler === undefined) {
      res.writeHead(503).end();
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', use: 'sig', alg: 'RS256' };
  provider = new (Provider as OidcProviderClass)(issuer, {
    adapter: memoryAdapter(),
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        // What openid-client uses when given a client secret string.
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    pkce: { methods: ['S256'], required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    conformIdTokenClaims: options.conformIdTokenClaims ?? true,
    async findAccount(_ctx: unknown, sub: string) {
      const account = [...accounts.values()].find((candidate) => candidate.sub === sub);
      if (account === undefined) return undefined;
      return {
        accountId: sub,
        async claims() {
          return {
            sub,
            email: account.email,
            ...(account.emailVerified === undefined ? {} : { email_verified: account.emailVerified }),
          };
        },
      };
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    jwks: { keys: [signingKey] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
    renderError(ctx: { type: string; body: unknown }, out: Record<string, unknown>) {
      ctx.type = 'json';
      ctx.body = out;
    },
  });
  provider.on('server_error', (_ctx, error) => errors.push(error));
  handler = provider.callback();

  let nextSub = 1;
  const handle: OidcProviderHandle = {
    issuer,
    clientId,
    clientSecret,
    serverEnv: {
      SERVICE_AUTH_IDP_OAUTH_ENABLED: 'true',
      SERVICE_AUTH_IDP_OAUTH_CLIENT_ID: clientId,
      SERVICE_AUTH_IDP_OAUTH_CLIENT_SECRET: clientSecret,
      SERVICE_AUTH_IDP_OAUTH_ISSUER: issuer,
    },
    addAccount(email, accountOptions = {}) {
      const account: IdpAccount = {
        sub: `idp-user-${nextSub++}`,
        email,
        emailVerified: 'emailVerified' in accountOptions ? accountOptions.emailVerified : true,
      };
      accounts.set(email, account);
      return account;
    },
    errors,
    requests,
    userinfoDown: false,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return handle;
}

/** A browser's cookies for one origin; path and expiry are ignored (one short flow per jar). */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';', 1)[0] ?? '';
      const at = pair.indexOf('=');
      if (at <= 0) continue;
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/**
 * The provider's redirect back to our callback, with the cookies our login route set in the
 * browser that started the sign-in (which the callback requires).
 */
export class ProviderCallback extends URL {
  constructor(
    url: URL,
    readonly cookie: string,
  ) {
    super(url.href);
  }
}

export interface ProviderSignInOptions {
  /** The `next` path handed to the login route. */
  next?: string;
  /** End the login with this OAuth error instead of signing in (e.g. `access_denied`). */
  deny?: string;
  /** Lets a test tamper with the authorization request before the browser takes it to the provider. */
  rewriteAuthorizationUrl?: (url: URL) => void;
}

/**
 * Plays the browser up to the provider's redirect back to us: starts the sign-in on the server,
 * follows the provider's redirects (keeping its cookies), logs in as `email` on the interaction
 * page and answers the callback URL the provider sends the browser to, without visiting it.
 */
export async function authorizeThroughProvider(
  serverUrl: string,
  idp: OidcProviderHandle,
  email: string,
  options: ProviderSignInOptions = {},
): Promise<ProviderCallback> {
  const query = options.next === undefined ? '' : `?${new URLSearchParams({ next: options.next })}`;
  const start = await fetch(`${serverUrl}${API_PREFIX}/auth/oauth/login${query}`, { redirect: 'manual' });
  const ours = new CookieJar();
  ours.store(start);
  const authorization = start.headers.get('location');
  if (start.status !== 302 || authorization === null || !authorization.startsWith(`${idp.issuer}/`)) {
    throw new Error(`sign-in did not start: ${start.status} ${authorization ?? (await start.text())}`);
  }
  let url = new URL(authorization);
  options.rewriteAuthorizationUrl?.(url);
  const jar = new CookieJar();
  for (let hop = 0; hop < 10; hop++) {
    if (url.origin !== idp.issuer) return new ProviderCallback(url, ours.header());
    if (url.pathname.startsWith('/interaction/')) {
      if (options.deny !== undefined) url.searchParams.set('deny', options.deny);
      else url.searchParams.set('login', email);
    }
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.store(response);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) {
      throw new Error(`the provider stopped at ${url.pathname}: ${response.status} ${await response.text()}`);
    }
    url = new URL(location, url);
  }
  throw new Error('too many redirects at the provider');
}

/**
 * Delivers the provider's redirect to a server's callback route, from the browser that started the
 * sign-in (its cookies) unless `cookie` says otherwise; answers where the server sends the browser.
 */
export async function deliverCallback(serverUrl: string, callbackUrl: URL, cookie?: string): Promise<string> {
  const sent = cookie ?? (callbackUrl instanceof ProviderCallback ? callbackUrl.cookie : '');
  const response = await fetch(`${serverUrl}${API_PREFIX}/auth/oauth/callback${callbackUrl.search}`, {
    redirect: 'manual',
    headers: sent === '' ? {} : { cookie: sent },
  });
  const location = response.headers.get('location');
  if (response.status !== 302 || location === null) {
    throw new Error(`the callback answered ${response.status} ${await response.text()}`);
  }
  // The hand-off carries a sign-in ticket: no cache may keep it (RFC 6749 §5.1).
  if (response.headers.get('cache-control') !== 'no-store') {
    throw new Error(`the callback's redirect may be cached: Cache-Control ${response.headers.get('cache-control')}`);
  }
  return location;
}

/**
 * The whole browser dance of a sign-in through the identity provider; answers the Location of our
 * callback's redirect (`…/auth/magic#ticket=…&next=…` or `…/auth/sign-in?error=…`).
 */
export async function signInThroughProvider(
  serverUrl: string,
  idp: OidcProviderHandle,
  email: string,
  options: ProviderSignInOptions = {},
): Promise<string> {
  const callback = await authorizeThroughProvider(serverUrl, idp, email, options);
  if (callback.href.split('?')[0] !== `${serverUrl}${API_PREFIX}/auth/oauth/callback`) {
    throw new Error(`the provider redirected to ${callback.href}, not to this server's callback`);
  }
  return deliverCallback(serverUrl, callback);
}
