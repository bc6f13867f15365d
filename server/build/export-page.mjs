// Builds the script inlined into exported figure pages (server/export-page/page-script.ts) into one
// minified IIFE at server/dist/export-page/echarts.js, where server/src/export/page-script.ts reads it.
// Part of `npm run build`; esbuild tree-shakes ECharts down to what the script registers.
import { mkdir, readFile } from 'node:fs/promises';
import { build } from 'esbuild';

const entry = new URL('../export-page/page-script.ts', import.meta.url);
const outfile = new URL('../dist/export-page/echarts.js', import.meta.url);
await mkdir(new URL('.', outfile), { recursive: true });
await build({
  entryPoints: [entry.pathname],
  outfile: outfile.pathname,
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  platform: 'browser',
  // Workspace packages by their TypeScript sources, as the web app's Vite build reads them.
  conditions: ['source'],
  legalComments: 'none',
  define: { 'process.env.NODE_ENV': '"production"', __DEV__: 'false' },
  logLevel: 'warning',
});
// The page inlines the script; a `</script` inside it would end the element early.
if (/<\/script/i.test(await readFile(outfile, 'utf8'))) throw new Error('the export page script contains </script');
