import { createHash } from 'node:crypto';

/** The `<script>` elements of a page that carry their code inline (no `src`). */
const INLINE_SCRIPT = /<script\b(?![^>]*\ssrc\s*=)[^>]*>([\s\S]*?)<\/script\s*>/gi;

/** CSP source expressions (`'sha256-…'`) for each non-empty inline script of `html`. */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const match of html.matchAll(INLINE_SCRIPT)) {
    const code = match[1] ?? '';
    if (code.trim() === '') continue;
    hashes.add(`'sha256-${createHash('sha256').update(code, 'utf8').digest('base64')}'`);
  }
  return [...hashes];
}

/**
 * The Content-Security-Policy of the web app's pages. Scripts only from this origin, plus the
 * inline boot script by its hash (web/build/boot-script.ts): an injected `<script>` or event
 * handler does not run. Styles may be inline (Mantine sets CSS variables in `style` attributes and
 * `<style>` elements). The API is the only thing the app connects to, and no other site may frame
 * its pages (clickjacking); charts for other sites are exported by the API, outside this policy.
 */
export function pageContentSecurityPolicy(html: string): string {
  return [
    "default-src 'self'",
    `script-src ${["'self'", ...inlineScriptHashes(html)].join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}
