import { isAbsolute, relative, resolve } from 'node:path';
import { DomainError, type FieldProblem } from '../errors.js';
import type { UserActor } from './actor.js';
import { can, type SharedResource } from './policy.js';

/**
 * Who may point the server at a folder (docs/auth.md, "Data locations"). The allowed roots say
 * what the server may scan; these rules say what each user may make it read for them.
 */

/** A location being declared or scanned, with the field it came from (for the problem's `errors`). */
export interface LocationAtPath {
  path: string;
  location: string;
}

/** A location another project already uses, with that project as the policy sees it. */
export interface ClaimedLocation {
  location: string;
  project: SharedResource;
}

/**
 * Declaring a new or changed location: never a temporary user (anyone can become one in public
 * mode); with SERVICE_INGESTION_USER_LOCATIONS=false, only admins.
 */
export function authorizeLocationDeclaration(actor: UserActor, userLocations: boolean): void {
  if (actor.isTemporary)
    throw new DomainError('forbidden', 'temporary accounts cannot declare data locations; upload files instead');
  if (!userLocations && actor.role !== 'admin')
    throw new DomainError(
      'forbidden',
      'on this server only administrators declare data locations; upload files instead',
    );
}

/** Whether either folder contains the other (or they are the same), lexically. */
export function locationsOverlap(a: string, b: string): boolean {
  const inside = (inner: string, outer: string) => {
    const rel = relative(resolve(outer), resolve(inner));
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  };
  return inside(a, b) || inside(b, a);
}

/**
 * Reading a location, at declaration and again at every scan: it may not contain, or lie inside,
 * a location of a project the actor cannot edit — otherwise a broad folder would pull another
 * project's private files into one the actor can read. Admins may.
 */
export function authorizeLocationReach(
  actor: UserActor,
  locations: readonly LocationAtPath[],
  claimed: readonly ClaimedLocation[],
): void {
  if (actor.role === 'admin') return;
  const foreign = claimed.filter((claim) => !can(actor, 'resource.edit', claim.project));
  const problems: FieldProblem[] = locations
    .filter(({ location }) => foreign.some((claim) => locationsOverlap(location, claim.location)))
    .map(({ path, location }) => ({
      path,
      message: `${location} overlaps the data location of a project you cannot edit`,
    }));
  if (problems.length > 0)
    throw new DomainError('forbidden', 'a data location may not reach into projects you cannot edit', problems);
}
