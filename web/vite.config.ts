import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The web UI is a static SPA; the server serves `web/dist` and the API
// lives under `/service/api/v1`.
export default defineConfig({
  // Resolve everything relative to this folder, whatever the cwd.
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
});
