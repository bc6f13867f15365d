import { resolve } from 'node:path';
import { DEFAULT_APP_NAME } from '@service/common';
import { serviceVersion } from '../version.js';
import { type AuthConfig, authConfigOf, type Fail } from './auth-config.js';
import { type DatabaseConfig, parseDatabaseUrl, parseStorageUrl, type StorageConfig } from './connections.js';
import { type DataLimits, dataLimitsOf } from './data-limits.js';
import { checkPlaceholderSecrets } from './placeholder-secrets.js';
import { type Env, envSchema, KNOWN_SETTINGS, SECRET_SETTINGS } from './settings.js';

export type { AuthConfig, OAuthConfig } from './auth-config.js';
export type { DatabaseConfig, StorageConfig } from './connections.js';
export { KNOWN_SETTINGS, SECRET_SETTINGS } from './settings.js';

export interface Config {
  version: string;
  /** The product's name in the web app (`SERVICE_APP_NAME`). */
  appName: string;
  host: string;
  port: number;
  publicUrl: string;
  dataDir: string;
  logLevel: NonNullable<Env['SERVICE_LOG_LEVEL']>;
  trustProxy: string[];
  /**
   * `Host` values (`name` or `name:port`) requests may carry besides the public URL's and loopback
   * names; null: any. Single-user mode always checks (DNS rebinding would otherwise reach its admin).
   */
  allowedHosts: string[] | null;
  database: DatabaseConfig;
  /** Whether `serve` and `worker` bring the schema up to date at startup; false: `service migrate` does, and they refuse an older schema. */
  autoMigrate: boolean;
  /**
   * Seconds between SIGTERM and closing the listener, during which `/health` already answers
   * not ready (load balancers stop sending) while requests are still served.
   */
  shutdownDelaySeconds: number;
  /** Bounds on one data request, and how long shutdown lets running work finish. */
  dataLimits: DataLimits;
  storage: StorageConfig;
  s3: {
    endpoint: string | null;
    region: string;
    accessKeyId: string | null;
    secretAccessKey: string | null;
    forcePathStyle: boolean;
  };
  /** `leaseSeconds`: how long a claim holds without a heartbeat; a dead worker's job is taken over after it. */
  /** `scheduleTickSeconds`: how often a process with workers looks for due schedules and watches. */
  jobs: { enabled: boolean; workers: number; asyncUpsert: boolean; leaseSeconds: number; scheduleTickSeconds: number };
  /** `POST /internal/vacuum`: how long removed table files (time travel) and unreferenced files stay. */
  vacuum: { retentionHours: number };
  /** `userLocations`: whether non-admin users may declare data locations (admins always may). */
  ingestion: { browserTrigger: boolean; allowedRoots: string[]; userLocations: boolean };
  uploadMaxBytes: number;
  /**
   * `memoryLimitBytes`: DuckDB's `memory_limit`; beyond it, statements spill to `<dataDir>/tmp/duckdb`. Null: DuckDB's default, 80% of RAM.
   * `copies`, `copyMinRows`: how many table versions of at least `copyMinRows` rows get a DuckDB-native
   * copy in `<dataDir>/tmp/copies`, read in place of their Parquet files (0 copies: none).
   */
  duckdb: { memoryLimitBytes: number | null; copies: number; copyMinRows: number };
  /**
   * `exactQuantileRows`: dashboards compute medians, quartiles and whiskers exactly up to this many
   * rows (they hold every value in memory) and with DuckDB's bounded `approx_quantile` beyond.
   * `exactBoxValues`: box plots' quartiles are exact up to this many rows under the filters, and
   * from a sample of each box's values beyond (the figure says `sampled`).
   */
  dashboards: {
    exactQuantileRows: number;
    exactBoxValues: number;
    /** How many revisions of each dashboard its history keeps (the newest; older ones are deleted). */
    revisionsKept: number;
    /** Whether a tab opened unfiltered has the dashboard's other tabs computed ahead, in idle time. */
    warmTabs: boolean;
  };
  /**
   * The live event stream (docs/live-data.md): how many streams one user (an anonymous caller: one
   * address) may hold open on one replica, and how often each gets a heartbeat comment, when the
   * caller's session and rights are checked again too.
   */
  events: { maxStreamsPerUser: number; heartbeatSeconds: number };
  /**
   * Alerts (docs/live-data.md "Alerts"): the hosts (`name` or `name:port`) webhooks may be sent
   * to; empty (the default) turns webhooks off.
   */
  alerts: { webhookAllowedHosts: string[] };
  /** `frameAncestors`: the CSP `frame-ancestors` sources of exported pages (the app's own refuse framing). */
  export: { frameAncestors: string[] };
  auth: AuthConfig;
  /** `SERVICE_*` variables that were set but mean nothing to us (likely typos). */
  unknownSettings: string[];
}

/** A setting that stops startup; the message is one line and names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`${variable}: ${reason}`);
    this.name = 'ConfigError';
  }
}

/** Collects every problem so the operator fixes them in one go. */
export class ConfigErrors extends Error {
  constructor(readonly errors: ConfigError[]) {
    super(errors.map((error) => `Invalid configuration: ${error.message}`).join('\n'));
    this.name = 'ConfigErrors';
  }
}

function describeValue(variable: string, raw: string | undefined): string {
  if (raw === undefined || SECRET_SETTINGS.has(variable)) return '';
  const shown = raw.length > 60 ? `${raw.slice(0, 57)}...` : raw;
  // JSON quoting escapes line breaks, so each error stays on its own line.
  return ` (got ${JSON.stringify(shown)})`;
}

/** Reads and validates the configuration from an environment; throws ConfigErrors. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const present: Record<string, string> = {};
  const unknownSettings: string[] = [];
  for (const [name, value] of Object.entries(environment)) {
    if (!name.startsWith('SERVICE_') || value === undefined) continue;
    if (name.startsWith('SERVICE_TEST_')) continue;
    if (KNOWN_SETTINGS.has(name)) {
      // An empty variable means "not set", as in most shells' `VAR=` idiom.
      if (value.trim() !== '') present[name] = value;
    } else {
      unknownSettings.push(name);
    }
  }

  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigErrors(
      parsed.error.issues.map((issue) => {
        const variable = String(issue.path[0] ?? 'configuration');
        return new ConfigError(variable, `${issue.message}${describeValue(variable, present[variable])}`);
      }),
    );
  }
  return buildConfig(parsed.data, unknownSettings.sort(), cwd);
}

function buildConfig(env: Env, unknownSettings: string[], cwd: string): Config {
  const errors: ConfigError[] = [];
  const fail = (variable: string, reason: string) => errors.push(new ConfigError(variable, reason));
  const listener = listenerOf(env, cwd);
  const database = parseDatabaseUrl(env.SERVICE_DATABASE_URL, listener.dataDir, cwd, fail);
  const storage = parseStorageUrl(env.SERVICE_STORAGE_URL, listener.dataDir, cwd, fail);
  const auth = authConfigOf(env, fail);
  checkPlaceholderSecrets(env, fail);
  const s3 = s3Of(env, storage, fail);
  if (errors.length > 0) throw new ConfigErrors(errors);
  return {
    version: serviceVersion,
    appName: env.SERVICE_APP_NAME ?? DEFAULT_APP_NAME,
    ...listener,
    logLevel: env.SERVICE_LOG_LEVEL ?? 'info',
    trustProxy: env.SERVICE_TRUST_PROXY ?? [],
    allowedHosts: env.SERVICE_ALLOWED_HOSTS ?? (auth.mode === 'single_user' ? [] : null),
    database,
    autoMigrate: env.SERVICE_DATABASE_AUTO_MIGRATE ?? true,
    shutdownDelaySeconds: env.SERVICE_SHUTDOWN_DELAY_SECONDS ?? 0,
    dataLimits: dataLimitsOf(env),
    storage,
    s3,
    ...workOf(env, listener.dataDir, cwd),
    auth,
    unknownSettings,
  };
}

/** Where the server listens, the address it is reached at, and its data directory. */
function listenerOf(env: Env, cwd: string): Pick<Config, 'host' | 'port' | 'publicUrl' | 'dataDir'> {
  const dataDir = resolve(cwd, env.SERVICE_DATA_DIR ?? 'data');
  const host = env.SERVICE_HOST ?? '127.0.0.1';
  const port = env.SERVICE_PORT ?? 8058;
  const linkHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const publicUrl = (env.SERVICE_PUBLIC_URL ?? `http://${linkHost}:${port}`).replace(/\/+$/, '');
  return { host, port, publicUrl, dataDir };
}

/** The S3 client's settings; an s3:// storage needs a region or an endpoint. */
function s3Of(env: Env, storage: StorageConfig, fail: Fail): Config['s3'] {
  if (storage.kind === 's3' && env.SERVICE_S3_ENDPOINT === undefined && env.SERVICE_S3_REGION === undefined) {
    fail('SERVICE_S3_REGION', 'or SERVICE_S3_ENDPOINT must be set when SERVICE_STORAGE_URL is s3://');
  }
  return {
    endpoint: env.SERVICE_S3_ENDPOINT ?? null,
    region: env.SERVICE_S3_REGION ?? 'us-east-1',
    accessKeyId: env.SERVICE_S3_ACCESS_KEY_ID ?? null,
    secretAccessKey: env.SERVICE_S3_SECRET_ACCESS_KEY ?? null,
    forcePathStyle: env.SERVICE_S3_FORCE_PATH_STYLE ?? env.SERVICE_S3_ENDPOINT !== undefined,
  };
}

/** The settings of the work the server does: jobs, vacuum, ingestion, uploads, DuckDB, dashboards, exports. */
function workOf(
  env: Env,
  dataDir: string,
  cwd: string,
): Pick<
  Config,
  'jobs' | 'vacuum' | 'ingestion' | 'uploadMaxBytes' | 'duckdb' | 'dashboards' | 'export' | 'events' | 'alerts'
> {
  const jobsEnabled = env.SERVICE_JOBS_ENABLED ?? true;
  return {
    jobs: {
      enabled: jobsEnabled,
      workers: env.SERVICE_JOBS_WORKERS ?? 2,
      asyncUpsert: jobsEnabled && (env.SERVICE_DELTATABLES_ASYNC_UPSERT_ENABLED ?? true),
      leaseSeconds: env.SERVICE_JOBS_LEASE_SECONDS ?? 15,
      scheduleTickSeconds: env.SERVICE_SCHEDULES_TICK_SECONDS ?? 15,
    },
    vacuum: { retentionHours: env.SERVICE_DELTATABLES_VACUUM_RETENTION_HOURS ?? 168 },
    ingestion: {
      browserTrigger: jobsEnabled && (env.SERVICE_INGESTION_BROWSER_TRIGGER_ENABLED ?? true),
      allowedRoots: (env.SERVICE_INGESTION_ALLOWED_ROOTS ?? [resolve(dataDir, 'imports')]).map((root) =>
        resolve(cwd, root),
      ),
      userLocations: env.SERVICE_INGESTION_USER_LOCATIONS ?? true,
    },
    uploadMaxBytes: env.SERVICE_UPLOAD_MAX_BYTES ?? 1024 * 1024 * 1024,
    duckdb: {
      memoryLimitBytes: env.SERVICE_DUCKDB_MEMORY_LIMIT ?? null,
      copies: env.SERVICE_DUCKDB_COPIES ?? 8,
      copyMinRows: env.SERVICE_DUCKDB_COPY_MIN_ROWS ?? 1_000_000,
    },
    dashboards: {
      exactQuantileRows: env.SERVICE_DASHBOARD_EXACT_QUANTILE_ROWS ?? 20_000_000,
      exactBoxValues: env.SERVICE_DASHBOARD_EXACT_BOX_VALUES ?? 1_000_000,
      revisionsKept: env.SERVICE_DASHBOARD_REVISIONS_KEPT ?? 100,
      warmTabs: env.SERVICE_DASHBOARD_WARM_TABS ?? true,
    },
    events: {
      maxStreamsPerUser: env.SERVICE_EVENTS_MAX_STREAMS_PER_USER ?? 10,
      heartbeatSeconds: env.SERVICE_EVENTS_HEARTBEAT_SECONDS ?? 15,
    },
    export: { frameAncestors: env.SERVICE_EXPORT_FRAME_ANCESTORS ?? ['*'] },
    alerts: { webhookAllowedHosts: env.SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS ?? [] },
  };
}
