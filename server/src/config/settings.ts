import { z } from 'zod';
import {
  envAllowedHosts,
  envBoolean,
  envByteSize,
  envFrameAncestors,
  envHost,
  envHttpUrl,
  envInteger,
  envNonEmpty,
  envNonEmptyList,
  envNonNegativeNumber,
  envPositiveNumber,
  envProxyList,
  envRate,
} from './env-parsers.js';

/** Less than this and DuckDB fails ordinary statements instead of spilling. */
const DUCKDB_MIN_MEMORY = 64 * 1024 ** 2;

/**
 * Every `SERVICE_*` setting, keyed by its variable name so that a failure names the variable.
 * Values stay optional here; defaults that depend on other settings are filled in `buildConfig`.
 */
export const envSchema = z.object({
  SERVICE_HOST: envHost.optional(),
  SERVICE_PORT: envInteger(0, 65535).optional(),
  SERVICE_PUBLIC_URL: envHttpUrl.optional(),
  SERVICE_APP_NAME: z.string().trim().min(1, 'must not be empty').max(60, 'must be at most 60 characters').optional(),
  SERVICE_DATA_DIR: envNonEmpty.optional(),
  SERVICE_DATABASE_URL: envNonEmpty.optional(),
  SERVICE_DATABASE_AUTO_MIGRATE: envBoolean.optional(),
  SERVICE_STORAGE_URL: envNonEmpty.optional(),
  SERVICE_S3_ENDPOINT: envHttpUrl.optional(),
  SERVICE_S3_REGION: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]+$/, 'must be a region name like us-east-1')
    .optional(),
  SERVICE_S3_ACCESS_KEY_ID: envNonEmpty.optional(),
  SERVICE_S3_SECRET_ACCESS_KEY: envNonEmpty.optional(),
  SERVICE_S3_FORCE_PATH_STYLE: envBoolean.optional(),
  SERVICE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  SERVICE_TRUST_PROXY: envProxyList.optional(),
  SERVICE_ALLOWED_HOSTS: envAllowedHosts.optional(),
  SERVICE_JOBS_ENABLED: envBoolean.optional(),
  SERVICE_JOBS_WORKERS: envInteger(0, 64).optional(),
  // Below 3 s a heartbeat (every 0.5 s) delayed by a busy event loop or database could lose the lease.
  SERVICE_JOBS_LEASE_SECONDS: envInteger(3, 3600).optional(),
  SERVICE_SCHEDULES_TICK_SECONDS: envInteger(1, 3600).optional(),
  SERVICE_SHUTDOWN_DELAY_SECONDS: envNonNegativeNumber.optional(),
  SERVICE_SHUTDOWN_TIMEOUT_SECONDS: envPositiveNumber.optional(),
  SERVICE_DATA_STATEMENT_TIMEOUT_SECONDS: envPositiveNumber.optional(),
  SERVICE_DATA_REQUEST_TIMEOUT_SECONDS: envPositiveNumber.optional(),
  SERVICE_DATA_MAX_FILTER_VALUES: envInteger(1, 1_000_000).optional(),
  SERVICE_DATA_MAX_PREVIEW_COMPONENTS: envInteger(1, 1000).optional(),
  SERVICE_DATA_MAX_ANSWER_BYTES: envByteSize(64 * 1024).optional(),
  SERVICE_DATA_MAX_ANSWER_CELLS: envInteger(10_000, 1_000_000_000).optional(),
  SERVICE_DATA_CONCURRENCY_PER_CALLER: envInteger(1, 1000).optional(),
  SERVICE_DATA_RATE_LIMIT: envRate.optional(),
  SERVICE_DELTATABLES_ASYNC_UPSERT_ENABLED: envBoolean.optional(),
  // Vacuum's age threshold is what keeps the files of a write in progress (engine/delta/vacuum.ts):
  // below an hour, a long upsert could outlast it.
  SERVICE_DELTATABLES_VACUUM_RETENTION_HOURS: envPositiveNumber
    .refine((value) => value >= 1, 'must be at least 1 (hour): a write in progress must never look abandoned')
    .optional(),
  SERVICE_INGESTION_BROWSER_TRIGGER_ENABLED: envBoolean.optional(),
  SERVICE_INGESTION_ALLOWED_ROOTS: envNonEmptyList.optional(),
  SERVICE_INGESTION_USER_LOCATIONS: envBoolean.optional(),
  SERVICE_UPLOAD_MAX_BYTES: envInteger(1, Number.MAX_SAFE_INTEGER).optional(),
  SERVICE_DUCKDB_MEMORY_LIMIT: envByteSize(DUCKDB_MIN_MEMORY).optional(),
  SERVICE_DUCKDB_COPIES: envInteger(0, 1000).optional(),
  SERVICE_DUCKDB_COPY_MIN_ROWS: envInteger(0, Number.MAX_SAFE_INTEGER).optional(),
  SERVICE_DASHBOARD_EXACT_QUANTILE_ROWS: envInteger(1, Number.MAX_SAFE_INTEGER).optional(),
  SERVICE_DASHBOARD_EXACT_BOX_VALUES: envInteger(1, Number.MAX_SAFE_INTEGER).optional(),
  SERVICE_DASHBOARD_REVISIONS_KEPT: envInteger(1, 100_000).optional(),
  SERVICE_DASHBOARD_WARM_TABS: envBoolean.optional(),
  SERVICE_EVENTS_MAX_STREAMS_PER_USER: envInteger(1, 10_000).optional(),
  SERVICE_EVENTS_HEARTBEAT_SECONDS: envInteger(1, 300).optional(),
  SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS: envAllowedHosts.optional(),
  SERVICE_EXPORT_FRAME_ANCESTORS: envFrameAncestors.optional(),
  SERVICE_AUTH_SINGLE_USER_MODE: envBoolean.optional(),
  SERVICE_AUTH_PUBLIC_MODE: envBoolean.optional(),
  SERVICE_AUTH_UNAUTHENTICATED_MODE: envBoolean.optional(),
  SERVICE_AUTH_DEMO_MODE: envBoolean.optional(),
  SERVICE_AUTH_REGISTRATION_DISABLED: envBoolean.optional(),
  SERVICE_AUTH_PASSWORD_LOGIN_DISABLED: envBoolean.optional(),
  SERVICE_AUTH_PUBLIC_ACCESS_CODE: envNonEmpty.optional(),
  SERVICE_AUTH_TEMPORARY_USER_EXPIRY_HOURS: envPositiveNumber.optional(),
  SERVICE_AUTH_TEMP_USER_RATE_LIMIT: envRate.optional(),
  SERVICE_AUTH_REGISTRATION_RATE_LIMIT: envRate.optional(),
  SERVICE_AUTH_PROVISIONING_API_KEY: envNonEmpty.optional(),
  SERVICE_AUTH_INTERNAL_API_KEY_ENV: envNonEmpty.optional(),
  SERVICE_AUTH_MAGIC_LINK_EXPIRY_MINUTES: envPositiveNumber.optional(),
  SERVICE_AUTH_ACCESS_TOKEN_TTL_MINUTES: envPositiveNumber.optional(),
  SERVICE_AUTH_REFRESH_TOKEN_TTL_DAYS: envPositiveNumber.optional(),
  SERVICE_AUTH_SESSION_CACHE_SECONDS: envNonNegativeNumber.optional(),
  SERVICE_AUTH_JWT_PRIVATE_KEY: z.string().includes('PRIVATE KEY', { message: 'must be a PEM private key' }).optional(),
  SERVICE_AUTH_IDP_OAUTH_ENABLED: envBoolean.optional(),
  SERVICE_AUTH_IDP_OAUTH_CLIENT_ID: envNonEmpty.optional(),
  SERVICE_AUTH_IDP_OAUTH_CLIENT_SECRET: envNonEmpty.optional(),
  SERVICE_AUTH_IDP_OAUTH_ISSUER: envHttpUrl.optional(),
  SERVICE_BOOTSTRAP_ADMIN_EMAIL: z
    .string()
    .trim()
    .pipe(z.email({ message: 'must be an email address' }))
    .optional(),
  SERVICE_BOOTSTRAP_ADMIN_PASSWORD: z.string().min(12, 'must be at least 12 characters').optional(),
});

export type Env = z.infer<typeof envSchema>;

/** Settings whose values never appear in logs, errors or `service config check`. */
export const SECRET_SETTINGS = new Set<string>([
  'SERVICE_S3_SECRET_ACCESS_KEY',
  'SERVICE_AUTH_PUBLIC_ACCESS_CODE',
  'SERVICE_AUTH_PROVISIONING_API_KEY',
  'SERVICE_AUTH_INTERNAL_API_KEY_ENV',
  'SERVICE_AUTH_JWT_PRIVATE_KEY',
  'SERVICE_AUTH_IDP_OAUTH_CLIENT_SECRET',
  'SERVICE_BOOTSTRAP_ADMIN_PASSWORD',
]);

export const KNOWN_SETTINGS: ReadonlySet<string> = new Set(Object.keys(envSchema.shape));
