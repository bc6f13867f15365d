import { ConfigErrors, describeConfig, loadConfig } from '@service/server';
import { describe, expect, it } from 'vitest';

function failure(env: Record<string, string>): string {
  try {
    loadConfig(env, '/srv');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigErrors);
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('configuration', () => {
  it('runs on embedded defaults with nothing set', () => {
    const config = loadConfig({}, '/srv');
    expect(config.port).toBe(8058);
    expect(config.dataDir).toBe('/srv/data');
    expect(config.database).toEqual({ kind: 'sqlite', path: '/srv/data/service.sqlite' });
    expect(config.storage).toEqual({ kind: 'local', root: '/srv/data/storage' });
    expect(config.auth.mode).toBe('auth');
    expect(config.jobs).toEqual({
      enabled: true,
      workers: 2,
      asyncUpsert: true,
      leaseSeconds: 15,
      scheduleTickSeconds: 15,
    });
    expect(config.autoMigrate).toBe(true);
    expect(config.shutdownDelaySeconds).toBe(0);
    expect(config.ingestion.allowedRoots).toEqual(['/srv/data/imports']);
    expect(config.auth.accessTokenTtlSeconds).toBe(900);
    expect(config.auth.temporaryUserRateLimit).toEqual({ max: 10, windowMs: 60_000 });
    expect(config.auth.magicLinkExpiryMinutes).toBe(10);
    expect(config.auth.temporaryUserExpiryHours).toBe(24);
    expect(config.duckdb).toEqual({ memoryLimitBytes: null, copies: 8, copyMinRows: 1_000_000 });
    expect(config.vacuum).toEqual({ retentionHours: 168 });
  });

  it.each([
    ['512MiB', 512 * 1024 ** 2],
    ['2GB', 2e9],
    [' 1.5 gib ', 1.5 * 1024 ** 3],
    ['70000KB', 70_000_000],
  ])('reads the DuckDB memory limit %s as %d bytes', (raw, bytes) => {
    expect(loadConfig({ SERVICE_DUCKDB_MEMORY_LIMIT: raw }).duckdb.memoryLimitBytes).toBe(bytes);
  });

  it('reads how many native copies to keep, and from how many rows', () => {
    const config = loadConfig({ SERVICE_DUCKDB_COPIES: '0', SERVICE_DUCKDB_COPY_MIN_ROWS: '250000' });
    expect(config.duckdb).toMatchObject({ copies: 0, copyMinRows: 250_000 });
  });

  it.each([
    ['true', true],
    ['FALSE', false],
    ['1', true],
    ['0', false],
    ['Yes', true],
    ['no', false],
  ])('reads the boolean %s as %s', (raw, expected) => {
    expect(loadConfig({ SERVICE_JOBS_ENABLED: raw }).jobs.enabled).toBe(expected);
  });

  it('names the product after SERVICE_APP_NAME (a blank one is unset) and refuses an overlong name', () => {
    expect(loadConfig({}).appName).toBe('Pipeline Dashboards');
    expect(loadConfig({ SERVICE_APP_NAME: '  Soil Lab Data  ' }).appName).toBe('Soil Lab Data');
    expect(loadConfig({ SERVICE_APP_NAME: '   ' }).appName).toBe('Pipeline Dashboards');
    expect(failure({ SERVICE_APP_NAME: 'x'.repeat(61) })).toMatch(/SERVICE_APP_NAME.*at most 60/);
  });

  it('sends alert webhooks only to the hosts listed, none by default', () => {
    expect(loadConfig({}).alerts.webhookAllowedHosts).toEqual([]);
    expect(
      loadConfig({ SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS: 'Hooks.Example.org, 10.0.0.5:8443' }).alerts
        .webhookAllowedHosts,
    ).toEqual(['hooks.example.org', '10.0.0.5:8443']);
    expect(failure({ SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS: 'https://hooks.example.org/' })).toMatch(
      /SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS/,
    );
  });

  it('accepts fractional durations', () => {
    const config = loadConfig({
      SERVICE_AUTH_ACCESS_TOKEN_TTL_MINUTES: '0.5',
      SERVICE_AUTH_TEMPORARY_USER_EXPIRY_HOURS: '1.5',
    });
    expect(config.auth.accessTokenTtlSeconds).toBe(30);
    expect(config.auth.temporaryUserExpiryHours).toBe(1.5);
    expect(loadConfig({ SERVICE_DELTATABLES_VACUUM_RETENTION_HOURS: '36.5' }).vacuum.retentionHours).toBe(36.5);
  });

  it('trusts a session for 2 s by default, never longer than an access token lives, and 0 turns it off', () => {
    expect(loadConfig({}).auth.sessionCacheMs).toBe(2000);
    expect(loadConfig({ SERVICE_AUTH_SESSION_CACHE_SECONDS: '0.5' }).auth.sessionCacheMs).toBe(500);
    expect(loadConfig({ SERVICE_AUTH_SESSION_CACHE_SECONDS: '0' }).auth.sessionCacheMs).toBe(0);
    expect(loadConfig({ SERVICE_AUTH_ACCESS_TOKEN_TTL_MINUTES: '0.01' }).auth.sessionCacheMs).toBe(600);
  });

  it.each([
    [{ SERVICE_PORT: 'eighty' }, 'SERVICE_PORT: must be an integer from 0 to 65535 (got "eighty")'],
    [
      { SERVICE_JOBS_ENABLED: 'maybe' },
      'SERVICE_JOBS_ENABLED: must be one of true, false, 1, 0, yes, no (got "maybe")',
    ],
    [
      { SERVICE_AUTH_TEMPORARY_USER_EXPIRY_HOURS: '-3' },
      'SERVICE_AUTH_TEMPORARY_USER_EXPIRY_HOURS: must be a positive number',
    ],
    [
      { SERVICE_AUTH_TEMP_USER_RATE_LIMIT: '10 per minute' },
      'SERVICE_AUTH_TEMP_USER_RATE_LIMIT: must look like N/second',
    ],
    [{ SERVICE_DATABASE_URL: 'mysql://db/x' }, 'SERVICE_DATABASE_URL: must start with postgres://'],
    [{ SERVICE_STORAGE_URL: 'ftp://host/x' }, 'SERVICE_STORAGE_URL: must be a local path'],
    [{ SERVICE_LOG_LEVEL: 'loud' }, 'SERVICE_LOG_LEVEL:'],
    [{ SERVICE_PUBLIC_URL: 'example.org' }, 'SERVICE_PUBLIC_URL: must be an http(s) URL'],
    [{ SERVICE_AUTH_SESSION_CACHE_SECONDS: '-1' }, 'SERVICE_AUTH_SESSION_CACHE_SECONDS: must be a number, 0 or more'],
    [
      { SERVICE_AUTH_SESSION_CACHE_SECONDS: '61', SERVICE_AUTH_ACCESS_TOKEN_TTL_MINUTES: '1' },
      'SERVICE_AUTH_SESSION_CACHE_SECONDS: must not exceed the access-token lifetime',
    ],
    [{ SERVICE_DUCKDB_MEMORY_LIMIT: '80%' }, 'SERVICE_DUCKDB_MEMORY_LIMIT: must be a size like 512MiB or 2GB'],
    [{ SERVICE_DUCKDB_MEMORY_LIMIT: '1024' }, 'SERVICE_DUCKDB_MEMORY_LIMIT: must be a size like 512MiB or 2GB'],
    [{ SERVICE_DUCKDB_MEMORY_LIMIT: '1 GB per query' }, 'SERVICE_DUCKDB_MEMORY_LIMIT: must be a size'],
    [{ SERVICE_DUCKDB_MEMORY_LIMIT: '10MiB' }, 'at least 64 MiB (got "10MiB")'],
    [
      { SERVICE_DELTATABLES_VACUUM_RETENTION_HOURS: '0.5' },
      'SERVICE_DELTATABLES_VACUUM_RETENTION_HOURS: must be at least 1 (hour)',
    ],
    [
      { SERVICE_DELTATABLES_VACUUM_RETENTION_HOURS: 'a week' },
      'SERVICE_DELTATABLES_VACUUM_RETENTION_HOURS: must be a positive number',
    ],
  ])('refuses %o with one line naming the variable', (env, expected) => {
    const message = failure(env);
    expect(message).toContain(expected);
    expect(message.split('\n')).toHaveLength(1);
  });

  it('refuses contradictory mode switches', () => {
    expect(failure({ SERVICE_AUTH_SINGLE_USER_MODE: 'true', SERVICE_AUTH_PUBLIC_MODE: 'true' })).toMatch(
      /^Invalid configuration: SERVICE_AUTH_SINGLE_USER_MODE: cannot be combined/,
    );
    expect(failure({ SERVICE_AUTH_DEMO_MODE: 'true' })).toContain(
      'SERVICE_AUTH_DEMO_MODE: requires SERVICE_AUTH_PUBLIC_MODE',
    );
    expect(failure({ SERVICE_AUTH_PUBLIC_MODE: 'true', SERVICE_AUTH_UNAUTHENTICATED_MODE: 'false' })).toContain(
      'SERVICE_AUTH_UNAUTHENTICATED_MODE',
    );
  });

  it('derives the mode from the switches, honouring the public-mode alias', () => {
    expect(loadConfig({ SERVICE_AUTH_SINGLE_USER_MODE: 'true' }).auth.mode).toBe('single_user');
    expect(loadConfig({ SERVICE_AUTH_UNAUTHENTICATED_MODE: 'true' }).auth.mode).toBe('public');
    expect(loadConfig({ SERVICE_AUTH_PUBLIC_MODE: 'yes', SERVICE_AUTH_DEMO_MODE: '1' }).auth.mode).toBe('demo');
  });

  it('requires every OAuth piece when OAuth is enabled, and https off loopback', () => {
    expect(failure({ SERVICE_AUTH_IDP_OAUTH_ENABLED: 'true', SERVICE_AUTH_IDP_OAUTH_CLIENT_ID: 'x' })).toContain(
      'SERVICE_AUTH_IDP_OAUTH_ENABLED: is true but SERVICE_AUTH_IDP_OAUTH_CLIENT_SECRET, SERVICE_AUTH_IDP_OAUTH_ISSUER are not set',
    );
    const oauth = {
      SERVICE_AUTH_IDP_OAUTH_ENABLED: 'true',
      SERVICE_AUTH_IDP_OAUTH_CLIENT_ID: 'client',
      SERVICE_AUTH_IDP_OAUTH_CLIENT_SECRET: 'secret',
    };
    expect(failure({ ...oauth, SERVICE_AUTH_IDP_OAUTH_ISSUER: 'http://idp.example.org' })).toContain('must use https');
    expect(loadConfig({ ...oauth, SERVICE_AUTH_IDP_OAUTH_ISSUER: 'http://127.0.0.1:9000/' }).auth.oauth?.issuer).toBe(
      'http://127.0.0.1:9000',
    );
  });

  it('counts the password-login switch only while OAuth is configured', () => {
    expect(loadConfig({ SERVICE_AUTH_PASSWORD_LOGIN_DISABLED: 'true' }).auth.passwordLoginDisabled).toBe(false);
    const withOAuth = loadConfig({
      SERVICE_AUTH_PASSWORD_LOGIN_DISABLED: 'true',
      SERVICE_AUTH_IDP_OAUTH_ENABLED: 'true',
      SERVICE_AUTH_IDP_OAUTH_CLIENT_ID: 'client',
      SERVICE_AUTH_IDP_OAUTH_CLIENT_SECRET: 'secret',
      SERVICE_AUTH_IDP_OAUTH_ISSUER: 'https://idp.example.org',
    });
    expect(withOAuth.auth.passwordLoginDisabled).toBe(true);
  });

  it('refuses equal provisioning and internal keys without printing them', () => {
    const key = 'k'.repeat(40);
    const message = failure({ SERVICE_AUTH_PROVISIONING_API_KEY: key, SERVICE_AUTH_INTERNAL_API_KEY_ENV: key });
    expect(message).toContain('SERVICE_AUTH_INTERNAL_API_KEY_ENV: must differ');
    expect(message).not.toContain(key);
  });

  it('never echoes a secret value in an error', () => {
    const message = failure({
      SERVICE_BOOTSTRAP_ADMIN_EMAIL: 'a@example.org',
      SERVICE_BOOTSTRAP_ADMIN_PASSWORD: 'short-pw',
    });
    expect(message).toContain('SERVICE_BOOTSTRAP_ADMIN_PASSWORD: must be at least 12 characters');
    expect(message).not.toContain('short-pw');
  });

  it('refuses placeholder secrets copied from an example, naming the variable but not the value', () => {
    const message = failure({
      SERVICE_BOOTSTRAP_ADMIN_EMAIL: 'a@example.org',
      SERVICE_BOOTSTRAP_ADMIN_PASSWORD: 'change-this-admin-password',
      SERVICE_AUTH_INTERNAL_API_KEY_ENV: 'change-this-internal-key-of-32-characters-or-more',
      SERVICE_S3_SECRET_ACCESS_KEY: 'service-s3-secret-key',
      SERVICE_AUTH_PUBLIC_ACCESS_CODE: '…',
      SERVICE_DATABASE_URL: 'postgres://service:CHANGE_ME@db/service',
    });
    const lines = message.split('\n');
    for (const variable of [
      'SERVICE_BOOTSTRAP_ADMIN_PASSWORD',
      'SERVICE_AUTH_INTERNAL_API_KEY_ENV',
      'SERVICE_S3_SECRET_ACCESS_KEY',
      'SERVICE_AUTH_PUBLIC_ACCESS_CODE',
      'SERVICE_DATABASE_URL',
    ]) {
      expect(lines.some((line) => line.includes(`${variable}:`) && line.includes('placeholder'))).toBe(true);
    }
    expect(message).not.toMatch(/change-this|CHANGE_ME|service-s3-secret-key/);
    expect(() =>
      loadConfig({
        SERVICE_BOOTSTRAP_ADMIN_EMAIL: 'a@example.org',
        SERVICE_BOOTSTRAP_ADMIN_PASSWORD: 'a long own password',
      }),
    ).not.toThrow();
  });

  it('requires the bootstrap admin password unless OAuth is configured', () => {
    expect(failure({ SERVICE_BOOTSTRAP_ADMIN_EMAIL: 'a@example.org' })).toContain(
      'SERVICE_BOOTSTRAP_ADMIN_PASSWORD: is required',
    );
  });

  it('reports several problems, one line each', () => {
    const message = failure({ SERVICE_PORT: 'x', SERVICE_JOBS_WORKERS: '-1' });
    expect(message.split('\n')).toHaveLength(2);
  });

  it('treats empty variables as unset and lists unknown SERVICE_ settings', () => {
    const config = loadConfig({ SERVICE_PORT: '', SERVICE_PROT: '9000' });
    expect(config.port).toBe(8058);
    expect(config.unknownSettings).toEqual(['SERVICE_PROT']);
  });

  it('parses database and storage URLs', () => {
    expect(loadConfig({ SERVICE_DATABASE_URL: 'postgres://u:p@db:5432/x' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u:p@db:5432/x',
    });
    expect(loadConfig({ SERVICE_DATABASE_URL: 'sqlite:meta.db' }, '/srv').database).toEqual({
      kind: 'sqlite',
      path: '/srv/meta.db',
    });
    expect(
      loadConfig({ SERVICE_STORAGE_URL: 's3://bucket-a/some/prefix', SERVICE_S3_REGION: 'eu-west-1' }).storage,
    ).toEqual({
      kind: 's3',
      bucket: 'bucket-a',
      prefix: 'some/prefix',
    });
  });

  it('redacts every secret in the effective settings', () => {
    const secrets = {
      SERVICE_DATABASE_URL: 'postgres://svc:db-secret-value@db/x',
      SERVICE_S3_SECRET_ACCESS_KEY: 's3-secret-value',
      SERVICE_AUTH_PUBLIC_ACCESS_CODE: 'access-code-value',
      SERVICE_AUTH_PROVISIONING_API_KEY: 'p'.repeat(40),
      SERVICE_AUTH_INTERNAL_API_KEY_ENV: 'i'.repeat(40),
      SERVICE_AUTH_IDP_OAUTH_ENABLED: 'true',
      SERVICE_AUTH_IDP_OAUTH_CLIENT_ID: 'client',
      SERVICE_AUTH_IDP_OAUTH_CLIENT_SECRET: 'oauth-secret-value',
      SERVICE_AUTH_IDP_OAUTH_ISSUER: 'https://idp.example.org',
      SERVICE_BOOTSTRAP_ADMIN_EMAIL: 'a@example.org',
      SERVICE_BOOTSTRAP_ADMIN_PASSWORD: 'admin-secret-value',
    };
    const shown = JSON.stringify(describeConfig(loadConfig(secrets)));
    for (const value of [
      'db-secret-value',
      's3-secret-value',
      'access-code-value',
      'p'.repeat(40),
      'i'.repeat(40),
      'oauth-secret-value',
      'admin-secret-value',
    ]) {
      expect(shown).not.toContain(value);
    }
    expect(shown).toContain('<redacted>');
    expect(shown).toContain('a@example.org');
  });
});
