import { sameSitePath } from '@service/common';
import { DomainError } from '../errors.js';

/**
 * Where to send the browser after a sign-in: only a path on our own origin. Anything that could
 * leave it (`//evil`, `/\evil`, `/..//evil`, `https://…`, control characters) is refused rather
 * than "fixed", by the same check the web app applies to `next` and to Markdown links.
 */
export function safeNextPath(next: string | undefined): string {
  if (next === undefined || next === '') return '/';
  const path = sameSitePath(next);
  if (path === null) {
    throw new DomainError('validation_failed', '`next` must be a path on this site, like /dashboards/123');
  }
  return path;
}
