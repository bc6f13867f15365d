/**
 * A path on this site, as the browser will resolve it, or null when it could leave the site:
 * `//host`, `/\host` (browsers read `\` as `/`), control characters, or dot segments that resolve to
 * `//host`. The one check behind the sign-in `next` parameter and the links of Markdown text.
 */
export function sameSitePath(path: string): string | null {
  if (!path.startsWith('/')) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse.
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return null;
  // Resolve dot segments the way the browser will: `/..//evil.example` and `/.%2e//evil.example`
  // become `//evil.example`, which is another host.
  const base = 'http://this.invalid';
  const resolved = new URL(path, base);
  if (resolved.origin !== base || /^\/[/\\]/.test(resolved.pathname)) return null;
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
