import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * The script of exported figure pages: ECharts (tree-shaken) and the few lines that draw the
 * inlined option, built by server/build/export-page.mjs as part of `npm run build`. The same path
 * from src/export and dist/export: server/dist/export-page/echarts.js.
 */
const BUNDLE = fileURLToPath(new URL('../../dist/export-page/echarts.js', import.meta.url));

export interface PageScript {
  code: string;
  /** The CSP source admitting exactly this code inline (`'sha256-…'`). */
  hash: string;
}

let loaded: Promise<PageScript> | undefined;

/** Read once per process: every figure page inlines the same script. */
export function pageScript(): Promise<PageScript> {
  loaded ??= readFile(BUNDLE, 'utf8').then(
    (code) => ({ code, hash: cspHash(code) }),
    (error: unknown) => {
      loaded = undefined;
      throw new Error(`the export page script is missing (${BUNDLE}): run npm run build`, { cause: error });
    },
  );
  return loaded;
}

/** A CSP hash source for an inline script or style, over its exact text. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}
