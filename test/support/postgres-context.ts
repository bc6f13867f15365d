import type {} from 'vitest';

// Shared between the global setup (which provides the value) and the test
// helpers (which inject it), so both see the same typed key.
declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * Superuser connection URL of a PostgreSQL server to create test databases
     * on, or '' when none is available and PostgreSQL suites must skip.
     */
    postgresAdminUrl: string;
  }
}
