import { resolve } from 'node:path';
import type { OutputBundle, OutputChunk } from 'rollup';
import { build, type Plugin } from 'vite';
import { PRELOADABLE_MODULES, type PreloadableModule } from '../src/boot/first-screen.js';

const SOURCES = resolve(import.meta.dirname, '../src');
const BOOT_ENTRY = resolve(SOURCES, 'boot/boot.ts');

/** The chunk holding `moduleId` and every chunk it imports statically, less what the entry has loaded. */
function chunksOf(bundle: OutputBundle, moduleId: string): string[] {
  const chunks = Object.values(bundle).filter((output): output is OutputChunk => output.type === 'chunk');
  const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const loaded = new Set<string>();
  const collect = (fileName: string, into: Set<string>) => {
    if (into.has(fileName)) return;
    into.add(fileName);
    for (const imported of byFile.get(fileName)?.imports ?? []) collect(imported, into);
  };
  for (const chunk of chunks) if (chunk.isEntry) collect(chunk.fileName, loaded);
  const own = chunks.find((chunk) => chunk.moduleIds.includes(moduleId));
  if (own === undefined) throw new Error(`boot script: no chunk holds ${moduleId}`);
  if (loaded.has(own.fileName)) throw new Error(`boot script: ${moduleId} is in the entry, not loaded lazily`);
  const needed = new Set<string>();
  collect(own.fileName, needed);
  return [...needed].filter((fileName) => !loaded.has(fileName));
}

/** `src/boot/boot.ts` as one classic script, with the chunk map it preloads from. */
async function buildBootScript(moduleChunks: Record<PreloadableModule, string[]>): Promise<string> {
  const output = await build({
    configFile: false,
    root: resolve(SOURCES, '..'),
    logLevel: 'warn',
    define: { __BOOT_MODULE_CHUNKS__: JSON.stringify(moduleChunks) },
    build: {
      write: false,
      copyPublicDir: false,
      reportCompressedSize: false,
      lib: { entry: BOOT_ENTRY, formats: ['iife'], name: 'serviceBoot' },
    },
  });
  const [result] = Array.isArray(output) ? output : [output];
  const chunk = result && 'output' in result ? result.output[0] : undefined;
  if (chunk?.type !== 'chunk') throw new Error('boot script: the build gave no chunk');
  return chunk.code;
}

/** The app's entry script, as Vite writes it into `index.html`. */
const ENTRY_SCRIPT = /<script type="module"[^>]*><\/script>/;

/**
 * Inlines the boot script (web/src/boot/boot.ts) into `index.html`, right after the app's entry
 * script (requested first) and before the stylesheet: a classic script placed after a stylesheet
 * would wait for it.
 */
export function bootScript(): Plugin {
  let base = '/';
  return {
    name: 'service-boot-script',
    // `vite dev` serves the app without it: it only makes the built app start sooner.
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      async handler(html, context) {
        const { bundle } = context;
        if (bundle === undefined) throw new Error('boot script: transformIndexHtml outside a build');
        const entries = Object.entries(PRELOADABLE_MODULES) as [PreloadableModule, string][];
        const moduleChunks = Object.fromEntries(
          entries.map(([name, path]) => [
            name,
            chunksOf(bundle, resolve(SOURCES, path)).map((file) => `${base}${file}`),
          ]),
        ) as Record<PreloadableModule, string[]>;
        const code = await buildBootScript(moduleChunks);
        const entry = ENTRY_SCRIPT.exec(html);
        if (entry === null) throw new Error('boot script: index.html has no entry script to follow');
        const at = entry.index + entry[0].length;
        return `${html.slice(0, at)}\n\t\t<script>${code.trim()}</script>${html.slice(at)}`;
      },
    },
  };
}
