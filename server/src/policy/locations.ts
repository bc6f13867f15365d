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

/** The accounts behind a scan as they are now; null when the account is gone or disabled. */
export interface ScanAccounts {
  /** Who started the ingestion. */
  triggeredBy: UserActor | null;
  /** Who declared (or last changed) the location. */
  declaredBy: UserActor | null;
}

/**
 * Before every scan, the declaration and reach rules again, as things are now: the declarer chose
 * the folder and the user who started the ingestion has it read into a project they can read, so
 * both must still be allowed — the stricter of the two decides. A location whose declarer is gone,
 * temporary, or (with SERVICE_INGESTION_USER_LOCATIONS=false) not an admin scans nothing until
 * someone allowed declares it again.
 */
export function authorizeLocationScan(
  accounts: ScanAccounts,
  userLocations: boolean,
  locations: readonly LocationAtPath[],
  claimed: readonly ClaimedLocation[],
): void {
  const { triggeredBy, declaredBy } = accounts;
  if (!triggeredBy)
    throw new DomainError('forbidden', 'the account that started this ingestion can no longer scan locations');
  if (triggeredBy.isTemporary)
    throw new DomainError('forbidden', 'temporary accounts cannot have the server scan data locations');
  if (!declaredBy)
    throw new DomainError(
      'forbidden',
      'the account that declared this data location no longer exists; declare it again to scan it',
    );
  if (declaredBy.isTemporary)
    throw new DomainError('forbidden', 'this data location was declared by a temporary account; declare it again');
  if (!userLocations && declaredBy.role !== 'admin')
    throw new DomainError(
      'forbidden',
      'on this server only locations an administrator declared are scanned; an administrator declares it again',
    );
  authorizeLocationReach(declaredBy, locations, claimed);
  if (triggeredBy.userId !== declaredBy.userId) authorizeLocationReach(triggeredBy, locations, claimed);
}
