import { DomainError } from '../errors.js';

/**
 * A file's path relative to its run folder: `/`-separated, no empty, `.` or `..` segments, not
 * absolute, no backslashes or control characters.
 */
export function assertRelativePath(path: string, field: string): void {
  const segments = path.split('/');
  const bad =
    path.length === 0 ||
    path.length > 1024 ||
    path.startsWith('/') ||
    path.includes('\\') ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse.
    /[\u0000-\u001f\u007f]/.test(path) ||
    segments.some((segment) => segment === '' || segment === '.' || segment === '..');
  if (bad) {
    throw new DomainError(
      'validation_failed',
      'the path must be relative to the run folder: use a path like `island/measures.csv`, without a leading `/` or `..`',
      [{ path: field, message: 'use a relative path like `island/measures.csv`, without `..`' }],
    );
  }
}
