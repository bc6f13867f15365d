/**
 * The server's allowed roots (SERVICE_INGESTION_ALLOWED_ROOTS): the only folders it reads in place.
 * Declaring locations, scanning them and reading scanned files all check against them here.
 */
import { realpath } from 'node:fs/promises';
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

/** The allowed roots as real paths (a root that is itself a symbolic link counts where it leads). */
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  return Promise.all(roots.map((root) => realpath(resolve(root)).catch(() => resolve(root))));
}

/**
 * The real path of a scanned file if it still lies inside the allowed roots, otherwise null: for
 * readers of `files.source_path`, since a symbolic link may have been swapped in since the scan.
 */
export async function realPathInsideRoots(path: string, allowedRoots: readonly string[]): Promise<string | null> {
  if (!isInsideAllowedRoots(path, allowedRoots)) return null;
  try {
    const real = await realpath(path);
    return isInsideAllowedRoots(real, await realRoots(allowedRoots)) ? real : null;
  } catch {
    return null;
  }
}
