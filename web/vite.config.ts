import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';
import { bootScript } from './build/boot-script.js';
import { compileHints } from './build/compile-hints.js';

// The web UI is a static SPA; the server serves `web/dist` and the API
// lives under `/service/api/v1`.
export default defineConfig({
  // Resolve everything relative to this folder, whatever the cwd.
  root: import.meta.dirname,
  base: '/',
  plugins: [react(), bootScript(), compileHints()],
  // Workspace packages (`@service/common`) resolve to their TypeScript sources.
  resolve: { conditions: ['source', ...defaultClientConditions] },
  server: {
    // `npm run dev -w web` against a server started with `npm run service -- serve`.
    proxy: { '/service': 'http://127.0.0.1:8058' },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      onwarn(warning, warn) {
        // zod's sources carry `@__PURE__` comments Rollup cannot place; harmless noise.
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('node_modules')) return;
        warn(warning);
      },
    },
  },
});
