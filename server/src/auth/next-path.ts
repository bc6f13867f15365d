import { DomainError } from '../errors.js';

/**
 * Where to send the browser after a sign-in: only a path on our own origin. Anything that could
 * leave it (`//evil`, `/\evil`, `https://…`, control characters) is refused rather than "fixed".
 */
export function safeNextPath(next: string | undefined, publicUrl: string): string {
  if (next === undefined || next === '') return '/';
  const refused = new DomainError('validation_failed', '`next` must be a path on this site, like /dashboards/123');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what we refuse.
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\') || /[\u0000-\u001f\u007f]/.test(next)) {
    throw refused;
  }
  const origin = new URL(publicUrl).origin;
  const resolved = new URL(next, origin);
  // Dot segments can turn a harmless-looking path into a protocol-relative one: `/..//evil.example`
  // and `/.%2e//evil.example` resolve to `//evil.example`, which a browser reads as another host.
  if (resolved.origin !== origin || /^\/[/\\]/.test(resolved.pathname)) throw refused;
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
