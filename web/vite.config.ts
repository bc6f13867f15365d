import react from '@vitejs/plugin-react';
import type { ManualChunkMeta } from 'rollup';
import { defaultClientConditions, defineConfig } from 'vite';
import { bootScript } from './build/boot-script.js';
import { compileHints } from './build/compile-hints.js';
import { precompress } from './build/precompress.js';
import { uiChunks } from './build/ui-chunks.js';

/**
 * Mantine and the libraries only its components use in two chunks: the first screen's, the rest.
 * No other group: a manual chunk takes its modules' dependencies along, and one of the formatters
 * (re-exported from common/) pulled common and zod into the first screen's scripts (+39 kB gzip).
 */
function chunkGroups(): (id: string, meta: ManualChunkMeta) => string | undefined {
  const ui = uiChunks();
  return (id, meta) => ui(id, meta);
}

// The web UI is a static SPA; the server serves `web/dist` and the API
// lives under `/service/api/v1`.
export default defineConfig({
  // Resolve everything relative to this folder, whatever the cwd.
  root: import.meta.dirname,
  base: '/',
  plugins: [react(), bootScript(), compileHints(), precompress()],
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
      // Fewer, larger chunks: left to itself Rollup gave every Mantine component the app loads
      // lazily a chunk of its own, and the deep link to a collection fetched 26 scripts; Mantine
      // comes in two chunks instead, the first screen's and the rest (docs/performance.md, `web`).
      output: { manualChunks: chunkGroups() },
      onwarn(warning, warn) {
        // zod's sources carry `@__PURE__` comments Rollup cannot place; harmless noise.
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('node_modules')) return;
        warn(warning);
      },
    },
  },
});
