import { DomainError } from '../errors.js';

/**
 * A dashboard's ETag is its content revision, a counter every save bumps (migration 0012).
 * `If-Match` on a save names the revisions the client last saw; the save compares-and-sets in
 * its UPDATE, so two saves made from the same revision cannot both win.
 */
export type IfMatch =
  /** `If-Match: *`: any current revision (the dashboard must exist). */
  | { any: true }
  /** The entity tags listed, as sent. */
  | { any: false; tags: readonly string[] };

export const etagOf = (revision: number) => `"${revision}"`;

/** The `If-Match` header, or `undefined` when absent (the save then works as without one). */
export function parseIfMatch(header: string | string[] | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  const tags = (Array.isArray(header) ? header : [header])
    .flatMap((value) => value.split(','))
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  if (tags.includes('*')) return { any: true };
  return { any: false, tags };
}

/** Strong comparison (RFC 9110 §13.1.1): a weak tag (`W/"3"`) never matches. */
export function matchesRevision(ifMatch: IfMatch | undefined, revision: number): boolean {
  return ifMatch === undefined || ifMatch.any || ifMatch.tags.includes(etagOf(revision));
}

export const preconditionFailed = () =>
  new DomainError(
    'precondition_failed',
    'the dashboard was saved by someone else since you loaded it (its ETag changed): reload it, or save again without If-Match to overwrite',
  );
