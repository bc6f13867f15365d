import type { AuthMode } from '@service/common';
import type { Env } from './settings.js';

export interface OAuthConfig {
  clientId: string;
  clientSecret: string;
  issuer: string;
}

/** How people sign in and how long what they are given lasts (`SERVICE_AUTH_*`, `SERVICE_BOOTSTRAP_ADMIN_*`). */
export interface AuthConfig {
  mode: AuthMode;
  registrationDisabled: boolean;
  /** Effective value: the switch counts only while OAuth is configured. */
  passwordLoginDisabled: boolean;
  oauth: OAuthConfig | null;
  publicAccessCode: string | null;
  temporaryUserExpiryHours: number;
  temporaryUserRateLimit: { max: number; windowMs: number };
  /** Registrations per client address; shared by replicas through the database. */
  registrationRateLimit: { max: number; windowMs: number };
  provisioningKey: string | null;
  internalKey: string | null;
  magicLinkExpiryMinutes: number;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** How long a session found valid may be trusted without reading it again (0: always read). */
  sessionCacheMs: number;
  jwtPrivateKey: string | null;
  bootstrapAdmin: { email: string; password: string | null } | null;
}

/** Records a setting that stops startup (config.ts collects them all). */
export type Fail = (variable: string, reason: string) => void;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', '[::1]', 'localhost']);

/** The auth settings, each problem reported through `fail` (the value returned then does not count). */
export function authConfigOf(env: Env, fail: Fail): AuthConfig {
  const mode = authModeOf(env, fail);
  const oauth = oauthOf(env, fail);
  const { provisioningKey, internalKey } = apiKeysOf(env, fail);
  // A revoked session must stop working within one access-token lifetime (docs/architecture.md "Sessions").
  const accessTokenTtlMinutes = env.SERVICE_AUTH_ACCESS_TOKEN_TTL_MINUTES ?? 15;
  if ((env.SERVICE_AUTH_SESSION_CACHE_SECONDS ?? 0) > accessTokenTtlMinutes * 60) {
    fail(
      'SERVICE_AUTH_SESSION_CACHE_SECONDS',
      'must not exceed the access-token lifetime (SERVICE_AUTH_ACCESS_TOKEN_TTL_MINUTES)',
    );
  }
  const bootstrapAdmin = bootstrapAdminOf(env, oauth, fail);
  return {
    mode,
    registrationDisabled: env.SERVICE_AUTH_REGISTRATION_DISABLED ?? false,
    passwordLoginDisabled: (env.SERVICE_AUTH_PASSWORD_LOGIN_DISABLED ?? false) && oauth !== null,
    oauth,
    publicAccessCode: env.SERVICE_AUTH_PUBLIC_ACCESS_CODE ?? null,
    temporaryUserExpiryHours: env.SERVICE_AUTH_TEMPORARY_USER_EXPIRY_HOURS ?? 24,
    temporaryUserRateLimit: env.SERVICE_AUTH_TEMP_USER_RATE_LIMIT ?? { max: 10, windowMs: 60_000 },
    registrationRateLimit: env.SERVICE_AUTH_REGISTRATION_RATE_LIMIT ?? { max: 10, windowMs: 3_600_000 },
    provisioningKey,
    internalKey,
    magicLinkExpiryMinutes: env.SERVICE_AUTH_MAGIC_LINK_EXPIRY_MINUTES ?? 10,
    accessTokenTtlSeconds: Math.round(accessTokenTtlMinutes * 60),
    refreshTokenTtlSeconds: Math.round((env.SERVICE_AUTH_REFRESH_TOKEN_TTL_DAYS ?? 30) * 86_400),
    sessionCacheMs: Math.round(
      Math.min(env.SERVICE_AUTH_SESSION_CACHE_SECONDS ?? 2, accessTokenTtlMinutes * 60) * 1000,
    ),
    jwtPrivateKey: env.SERVICE_AUTH_JWT_PRIVATE_KEY ?? null,
    bootstrapAdmin,
  };
}

/** One mode of single-user, public (demo: public plus a tour) and signed-in; some do not combine. */
function authModeOf(env: Env, fail: Fail): AuthMode {
  const singleUser = env.SERVICE_AUTH_SINGLE_USER_MODE ?? false;
  const publicMode = env.SERVICE_AUTH_PUBLIC_MODE ?? env.SERVICE_AUTH_UNAUTHENTICATED_MODE ?? false;
  if (
    env.SERVICE_AUTH_PUBLIC_MODE !== undefined &&
    env.SERVICE_AUTH_UNAUTHENTICATED_MODE !== undefined &&
    env.SERVICE_AUTH_PUBLIC_MODE !== env.SERVICE_AUTH_UNAUTHENTICATED_MODE
  ) {
    fail('SERVICE_AUTH_UNAUTHENTICATED_MODE', 'is an alias of SERVICE_AUTH_PUBLIC_MODE and contradicts it');
  }
  const demo = env.SERVICE_AUTH_DEMO_MODE ?? false;
  if (singleUser && publicMode) {
    fail('SERVICE_AUTH_SINGLE_USER_MODE', 'cannot be combined with SERVICE_AUTH_PUBLIC_MODE; choose one mode');
  }
  if (demo && !publicMode) {
    fail('SERVICE_AUTH_DEMO_MODE', 'requires SERVICE_AUTH_PUBLIC_MODE=true (demo mode is public mode plus a tour)');
  }
  return singleUser ? 'single_user' : publicMode ? (demo ? 'demo' : 'public') : 'auth';
}

/** Identity-provider sign-in, when enabled: every setting it needs, and an issuer over https. */
function oauthOf(env: Env, fail: Fail): OAuthConfig | null {
  if (!env.SERVICE_AUTH_IDP_OAUTH_ENABLED) return null;
  const missing = (
    [
      'SERVICE_AUTH_IDP_OAUTH_CLIENT_ID',
      'SERVICE_AUTH_IDP_OAUTH_CLIENT_SECRET',
      'SERVICE_AUTH_IDP_OAUTH_ISSUER',
    ] as const
  ).filter((name) => env[name] === undefined);
  if (missing.length > 0) {
    fail(
      'SERVICE_AUTH_IDP_OAUTH_ENABLED',
      `is true but ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set`,
    );
    return null;
  }
  const issuer = env.SERVICE_AUTH_IDP_OAUTH_ISSUER as string;
  const issuerUrl = new URL(issuer);
  if (issuerUrl.protocol !== 'https:' && !LOOPBACK_HOSTS.has(issuerUrl.hostname)) {
    fail('SERVICE_AUTH_IDP_OAUTH_ISSUER', 'must use https (plain http is allowed only on a loopback host)');
  }
  return {
    clientId: env.SERVICE_AUTH_IDP_OAUTH_CLIENT_ID as string,
    clientSecret: env.SERVICE_AUTH_IDP_OAUTH_CLIENT_SECRET as string,
    issuer: issuer.replace(/\/+$/, ''),
  };
}

/** The provisioning and internal API keys: long, and not the same (they have different scopes). */
function apiKeysOf(env: Env, fail: Fail): { provisioningKey: string | null; internalKey: string | null } {
  const provisioningKey = env.SERVICE_AUTH_PROVISIONING_API_KEY ?? null;
  const internalKey = env.SERVICE_AUTH_INTERNAL_API_KEY_ENV ?? null;
  if (provisioningKey !== null && provisioningKey === internalKey) {
    fail(
      'SERVICE_AUTH_INTERNAL_API_KEY_ENV',
      'must differ from SERVICE_AUTH_PROVISIONING_API_KEY (the keys have different scopes)',
    );
  }
  for (const [variable, key] of [
    ['SERVICE_AUTH_PROVISIONING_API_KEY', provisioningKey],
    ['SERVICE_AUTH_INTERNAL_API_KEY_ENV', internalKey],
  ] as const) {
    if (key !== null && key.length < 32) fail(variable, 'must be at least 32 characters (it is used like a password)');
  }
  return { provisioningKey, internalKey };
}

/** The admin created at startup: an email, with a password unless the identity provider signs them in. */
function bootstrapAdminOf(env: Env, oauth: OAuthConfig | null, fail: Fail): AuthConfig['bootstrapAdmin'] {
  const adminEmail = env.SERVICE_BOOTSTRAP_ADMIN_EMAIL;
  const adminPassword = env.SERVICE_BOOTSTRAP_ADMIN_PASSWORD ?? null;
  if (adminEmail === undefined) {
    if (adminPassword !== null)
      fail('SERVICE_BOOTSTRAP_ADMIN_PASSWORD', 'is set but SERVICE_BOOTSTRAP_ADMIN_EMAIL is not');
    return null;
  }
  if (adminPassword === null && oauth === null) {
    fail(
      'SERVICE_BOOTSTRAP_ADMIN_PASSWORD',
      'is required with SERVICE_BOOTSTRAP_ADMIN_EMAIL unless identity-provider OAuth is configured',
    );
  }
  return { email: adminEmail, password: adminPassword };
}
