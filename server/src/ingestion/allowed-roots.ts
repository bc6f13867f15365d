import { isAbsolute, relative, resolve } from 'node:path';
import { DomainError } from '../errors.js';

/** Whether `location` lies inside one of `roots` (lexically; symlinks are checked again at scan time). */
export function isInsideAllowedRoots(location: string, roots: readonly string[]): boolean {
  if (!isAbsolute(location)) return false;
  const target = resolve(location);
  return roots.some((root) => {
    const rel = relative(resolve(root), target);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  });
}

/** Refuses, where they are declared, workflow locations the server may not scan. */
export function assertLocationsAllowed(
  locations: readonly string[],
  roots: readonly string[],
  pathPrefix: string,
): void {
  const problems = locations.flatMap((location, index) =>
    isInsideAllowedRoots(location, roots)
      ? []
      : [{ path: `${pathPrefix}[${index}]`, message: `${location} is not inside SERVICE_INGESTION_ALLOWED_ROOTS` }],
  );
  if (problems.length > 0) {
    throw new DomainError(
      'location_not_allowed',
      'the server may only read folders inside its allowed roots',
      problems,
    );
  }
}
