import { readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { pageContentSecurityPolicy } from './page-policy.js';

/**
 * How long a browser may keep a file of `assets/`: Vite names each one after a hash of its
 * content, so a file at a given URL never changes and a new build links new URLs.
 */
const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** `index.html` and the other files at the root keep their names across builds: always revalidated (ETag). */
const PAGE_CACHE_CONTROL = 'no-cache';

/**
 * Serves the built web app (`web/dist`) at `/`. The build writes a Brotli and a gzip copy next to
 * each script and stylesheet (web/build/precompress.ts); they are sent to browsers that accept
 * them, so nothing is compressed per request. Hashed assets are cached for good, so a returning
 * visitor asks for no script again (and Chromium may reuse the code it compiled). Pages carry
 * a Content-Security-Policy that admits the inline scripts of `index.html` as it is at start-up.
 */
export async function serveWebApp(app: FastifyInstance, webRoot: string): Promise<void> {
  const assets = `${webRoot.replace(/[\\/]+$/, '')}${sep}assets${sep}`;
  const pagePolicy = pageContentSecurityPolicy(await readIndex(webRoot));
  await app.register(fastifyStatic, {
    root: webRoot,
    wildcard: false,
    preCompressed: true,
    cacheControl: false,
    setHeaders(response, path) {
      response.setHeader('cache-control', path.startsWith(assets) ? ASSET_CACHE_CONTROL : PAGE_CACHE_CONTROL);
      // The same URL answers with a Brotli, gzip or plain body: caches between must keep them apart.
      response.setHeader('vary', 'accept-encoding');
      if (path.endsWith('.html')) {
        response.setHeader('content-security-policy', pagePolicy);
        // Links out of the app must not tell other sites which page (which project id) led there.
        response.setHeader('referrer-policy', 'no-referrer');
      }
    },
  });
}

/** The built `index.html`, or '' when the folder has none (then there is no page to protect). */
async function readIndex(webRoot: string): Promise<string> {
  try {
    return await readFile(join(webRoot, 'index.html'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}
