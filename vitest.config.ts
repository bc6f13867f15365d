import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources (the `source` export condition).
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    include: ['{server,cli,common,web,bench}/test/**/*.test.{ts,tsx}'],
    globalSetup: ['test/support/postgres-global-setup.ts', 'test/support/s3-global-setup.ts'],
    setupFiles: ['test/support/dom-waits.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Argon2 and RSA work is CPU-bound; two cores are what CI has.
    maxWorkers: 2,
  },
});
