import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../../../test/support/test-server.js';
import { ConfigErrors, KNOWN_SETTINGS, loadConfig, SECRET_SETTINGS } from '../../src/config/config.js';

/**
 * A wrong value for every variable, with what it needs beside it to be read at all. The walk below
 * goes over the config module's own list, so a variable added there without a line here fails.
 */
const WRONG: Record<string, { value: string; with?: Record<string, string> }> = {
  SERVICE_HOST: { value: 'not a host' },
  SERVICE_PORT: { value: '70000' },
  SERVICE_PUBLIC_URL: { value: 'ftp://example.org' },
  SERVICE_APP_NAME: { value: 'x'.repeat(61) },
  SERVICE_DATA_DIR: { value: '/srv/da\nta' },
  SERVICE_DATABASE_URL: { value: 'mysql://db/service' },
  SERVICE_DATABASE_AUTO_MIGRATE: { value: 'maybe' },
  SERVICE_SHUTDOWN_DELAY_SECONDS: { value: '-1' },
  SERVICE_SHUTDOWN_TIMEOUT_SECONDS: { value: '0' },
  SERVICE_DATA_STATEMENT_TIMEOUT_SECONDS: { value: '0' },
  SERVICE_DATA_REQUEST_TIMEOUT_SECONDS: { value: 'a minute' },
  SERVICE_DATA_MAX_FILTER_VALUES: { value: '0' },
  SERVICE_DATA_MAX_PREVIEW_COMPONENTS: { value: '1001' },
  SERVICE_DATA_MAX_ANSWER_BYTES: { value: '1KiB' },
  SERVICE_DATA_MAX_ANSWER_CELLS: { value: '100' },
  SERVICE_DATA_CONCURRENCY_PER_CALLER: { value: '0' },
  SERVICE_DATA_RATE_LIMIT: { value: '120 per minute' },
  SERVICE_STORAGE_URL: { value: 'ftp://example.org/bucket' },
  SERVICE_S3_ENDPOINT: { value: 'not a url' },
  SERVICE_S3_REGION: { value: 'us east 1' },
  SERVICE_S3_ACCESS_KEY_ID: { value: 'key\nid' },
  SERVICE_S3_SECRET_ACCESS_KEY: { value: 'secret\tkey' },
  SERVICE_S3_FORCE_PATH_STYLE: { value: 'maybe' },
  SERVICE_LOG_LEVEL: { value: 'loud' },
  SERVICE_TRUST_PROXY: { value: '10.0.0.1, not-an-address' },
  SERVICE_ALLOWED_HOSTS: { value: 'data.example.org, http://evil.example/' },
  SERVICE_JOBS_ENABLED: { value: 'maybe' },
  SERVICE_EVENTS_MAX_STREAMS_PER_USER: { value: '0' },
  SERVICE_EVENTS_HEARTBEAT_SECONDS: { value: '301' },
  SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS: { value: 'hooks.example.org, http://10.0.0.1/' },
  SERVICE_JOBS_WORKERS: { value: '65' },
  SERVICE_JOBS_LEASE_SECONDS: { value: '2' },
  SERVICE_SCHEDULES_TICK_SECONDS: { value: '0' },
  SERVICE_DELTATABLES_ASYNC_UPSERT_ENABLED: { value: 'maybe' },
  SERVICE_DELTATABLES_VACUUM_RETENTION_HOURS: { value: '0.5' },
  SERVICE_INGESTION_BROWSER_TRIGGER_ENABLED: { value: 'maybe' },
  SERVICE_INGESTION_ALLOWED_ROOTS: { value: ' , ' },
  SERVICE_INGESTION_USER_LOCATIONS: { value: 'maybe' },
  SERVICE_UPLOAD_MAX_BYTES: { value: '0' },
  SERVICE_DUCKDB_MEMORY_LIMIT: { value: '1MB' },
  SERVICE_DUCKDB_COPIES: { value: '-1' },
  SERVICE_DASHBOARD_EXACT_BOX_VALUES: { value: '0' },
  SERVICE_DUCKDB_COPY_MIN_ROWS: { value: 'many' },
  SERVICE_DASHBOARD_EXACT_QUANTILE_ROWS: { value: '0' },
  SERVICE_DASHBOARD_REVISIONS_KEPT: { value: '0' },
  SERVICE_DASHBOARD_WARM_TABS: { value: 'maybe' },
  SERVICE_EXPORT_FRAME_ANCESTORS: { value: "https://a.example; script-src 'unsafe-inline'" },
  SERVICE_AUTH_SINGLE_USER_MODE: { value: 'maybe' },
  SERVICE_AUTH_PUBLIC_MODE: { value: 'maybe' },
  SERVICE_AUTH_UNAUTHENTICATED_MODE: { value: 'maybe' },
  SERVICE_AUTH_DEMO_MODE: { value: 'true' },
  SERVICE_AUTH_REGISTRATION_DISABLED: { value: 'maybe' },
  SERVICE_AUTH_PASSWORD_LOGIN_DISABLED: { value: 'maybe' },
  SERVICE_AUTH_PUBLIC_ACCESS_CODE: { value: 'open\nsesame' },
  SERVICE_AUTH_TEMPORARY_USER_EXPIRY_HOURS: { value: '0' },
  SERVICE_AUTH_TEMP_USER_RATE_LIMIT: { value: '10 per minute' },
  SERVICE_AUTH_REGISTRATION_RATE_LIMIT: { value: '0/hour' },
  SERVICE_AUTH_PROVISIONING_API_KEY: { value: 'too-short' },
  SERVICE_AUTH_INTERNAL_API_KEY_ENV: { value: 'too-short' },
  SERVICE_AUTH_MAGIC_LINK_EXPIRY_MINUTES: { value: '-1' },
  SERVICE_AUTH_ACCESS_TOKEN_TTL_MINUTES: { value: 'fifteen' },
  SERVICE_AUTH_REFRESH_TOKEN_TTL_DAYS: { value: '0' },
  SERVICE_AUTH_SESSION_CACHE_SECONDS: { value: 'soon' },
  SERVICE_AUTH_JWT_PRIVATE_KEY: { value: 'not a key' },
  SERVICE_AUTH_IDP_OAUTH_ENABLED: { value: 'true' },
  SERVICE_AUTH_IDP_OAUTH_CLIENT_ID: { value: 'client\nid' },
  SERVICE_AUTH_IDP_OAUTH_CLIENT_SECRET: { value: 'client\nsecret' },
  SERVICE_AUTH_IDP_OAUTH_ISSUER: {
    value: 'http://idp.example.org',
    with: {
      SERVICE_AUTH_IDP_OAUTH_ENABLED: 'true',
      SERVICE_AUTH_IDP_OAUTH_CLIENT_ID: 'service',
      SERVICE_AUTH_IDP_OAUTH_CLIENT_SECRET: 'secret',
    },
  },
  SERVICE_BOOTSTRAP_ADMIN_EMAIL: { value: 'admin at example.org' },
  SERVICE_BOOTSTRAP_ADMIN_PASSWORD: { value: 'short', with: { SERVICE_BOOTSTRAP_ADMIN_EMAIL: 'a@example.org' } },
};

function errorLines(env: Record<string, string>): string[] {
  try {
    loadConfig(env, '/srv');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigErrors);
    return (error as Error).message.split('\n');
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('every configuration error names its variable', () => {
  it('has a wrong value for each variable the config module knows, and for no other', () => {
    expect(Object.keys(WRONG).sort()).toEqual([...KNOWN_SETTINGS].sort());
  });

  it.each([...KNOWN_SETTINGS])('%s', (variable) => {
    const wrong = WRONG[variable];
    if (wrong === undefined) throw new Error(`no wrong value for ${variable} in this test`);
    const lines = errorLines({ ...wrong.with, [variable]: wrong.value });
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^Invalid configuration: ${variable}: \\S`)));
    // Every line is one variable's: no library message leaks through without its name.
    for (const line of lines) expect(line).toMatch(/^Invalid configuration: SERVICE_[A-Z0-9_]+: /);
    if (SECRET_SETTINGS.has(variable)) expect(lines.join('\n')).not.toContain(wrong.value);
  });

  it('names SERVICE_TRUST_PROXY for an entry that is not an address, and keeps the ones that are', () => {
    expect(errorLines({ SERVICE_TRUST_PROXY: 'not-an-address' })).toEqual([
      expect.stringMatching(/^Invalid configuration: SERVICE_TRUST_PROXY: not-an-address: each entry must be/),
    ]);
    for (const list of [
      '127.0.0.1',
      '10.0.0.0/8, ::1',
      'fd00::/8,loopback',
      '192.168.0.0/255.255.0.0',
      'uniquelocal',
    ]) {
      expect(loadConfig({ SERVICE_TRUST_PROXY: list }).trustProxy.length).toBeGreaterThan(0);
    }
    for (const entry of ['10.0.0.0/33', '::1/129', '10.0.0.1/8/8', '::1/255.0.0.0', 'example.org']) {
      expect(errorLines({ SERVICE_TRUST_PROXY: entry })[0]).toMatch(/^Invalid configuration: SERVICE_TRUST_PROXY: /);
    }
  });
});

describe('a server that cannot listen names the variable to fix', () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it('SERVICE_PORT when the port is taken', async () => {
    await expect(startTestServer('sqlite', { SERVICE_PORT: String(port) })).rejects.toThrow(
      /^Invalid configuration: SERVICE_PORT: 127\.0\.0\.1:\d+ is already in use/,
    );
  });

  it('SERVICE_HOST when the address is not this machine’s', async () => {
    await expect(startTestServer('sqlite', { SERVICE_HOST: '192.0.2.1' })).rejects.toThrow(
      /^Invalid configuration: SERVICE_HOST: is not an address of this machine/,
    );
  });
});
