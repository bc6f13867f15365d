import { defineConfig } from 'vitest/config';
export default defineConfig({ test: { root: '/work/main/.scratch-pg', include: ['noop.test.ts'], passWithNoTests: true, globalSetup: ['./timing-setup.ts'] } });
