import { defineConfig } from 'vitest/config';
export default defineConfig({
  test: {
    root: '/work/main/.scratch-pg',
    include: ['*.test.ts'],
    globalSetup: ['/work/main/test/support/postgres-global-setup.ts'],
  },
});
