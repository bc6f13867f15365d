/** What the `api` benchmark and the server child it starts (`api-target.ts`) agree on. */
export const BENCH_ADMIN_EMAIL = 'bench@example.org';
export const BENCH_ADMIN_PASSWORD = 'bench-password-123';

/**
 * The service's configuration: embedded SQLite in a throw-away directory, an OS-chosen port, and
 * a silent logger so that writing a log line per request does not dominate what is measured.
 */
export function serviceEnvironment(dataDir: string): Record<string, string> {
  return {
    SERVICE_DATA_DIR: dataDir,
    SERVICE_PORT: '0',
    SERVICE_LOG_LEVEL: 'silent',
    SERVICE_BOOTSTRAP_ADMIN_EMAIL: BENCH_ADMIN_EMAIL,
    SERVICE_BOOTSTRAP_ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
    // One client asks hundreds of times a minute: the benchmarks measure the work, not the
    // per-caller limits (docs/configuration.md, "Request limits"), which would answer 429.
    SERVICE_DATA_RATE_LIMIT: '1000000/minute',
  };
}
