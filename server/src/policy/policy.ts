import { DomainError, notFound } from '../errors.js';
import type { Actor, UserActor } from './actor.js';

/** What projects and dashboards carry: member lists by role and a public switch. */
export interface SharedResource {
  owners: readonly string[];
  editors: readonly string[];
  viewers: readonly string[];
  isPublic: boolean;
}

/**
 * A dashboard as the policy sees it: its own members, plus its project's. Project owners and
 * editors manage the project's dashboards (as owners: edit, share, delete); project viewers read
 * them; a public project's dashboards are public too (their data already is).
 */
export function dashboardResource(dashboard: SharedResource, project: SharedResource): SharedResource {
  const union = (...lists: (readonly string[])[]) => [...new Set(lists.flat())];
  return {
    owners: union(dashboard.owners, project.owners, project.editors),
    editors: dashboard.editors,
    viewers: union(dashboard.viewers, project.viewers),
    isPublic: dashboard.isPublic || project.isPublic,
  };
}

/** The actor's standing on a shared resource, strongest first; `null` means none at all. */
export type ResourceRole = 'admin' | 'owner' | 'editor' | 'viewer' | 'public' | null;

export function roleOn(actor: Actor, resource: SharedResource): ResourceRole {
  if (actor.kind === 'user') {
    if (actor.role === 'admin') return 'admin';
    if (resource.owners.includes(actor.userId)) return 'owner';
    if (resource.editors.includes(actor.userId)) return 'editor';
    if (resource.viewers.includes(actor.userId)) return 'viewer';
    return resource.isPublic ? 'public' : null;
  }
  return resource.isPublic && actor.mayBrowsePublic ? 'public' : null;
}

/** Actions that concern the caller or the whole instance. */
export type GlobalAction =
  | 'session.read_own' // GET /auth/me, POST /auth/logout
  | 'magic_link.create' // a sign-in link for oneself
  | 'resource.create' // create a project or dashboard
  | 'resource.list' // list the projects or dashboards one may see
  | 'users.administer' // list, create, read, change and delete any account
  | 'audit.read'; // the security audit log

/** Actions on one shared resource (project, dashboard). */
export type ResourceAction =
  | 'resource.read' // see it and its data
  | 'resource.edit' // change content, trigger ingestion, upsert data
  | 'resource.share' // change owners/editors/viewers and the public switch
  | 'resource.delete';

export type Action = GlobalAction | ResourceAction;

const minimumRole: Record<ResourceAction, readonly Exclude<ResourceRole, null>[]> = {
  'resource.read': ['admin', 'owner', 'editor', 'viewer', 'public'],
  'resource.edit': ['admin', 'owner', 'editor'],
  'resource.share': ['admin', 'owner'],
  'resource.delete': ['admin', 'owner'],
};

/** The one place that decides who may do what (docs/architecture.md "Permissions"). */
export function can(actor: Actor, action: GlobalAction): boolean;
export function can(actor: Actor, action: ResourceAction, resource: SharedResource): boolean;
export function can(actor: Actor, action: Action, resource?: SharedResource): boolean {
  switch (action) {
    case 'session.read_own':
    case 'magic_link.create':
    case 'resource.create':
      return actor.kind === 'user';
    case 'resource.list':
      return actor.kind === 'user' || actor.mayBrowsePublic;
    case 'users.administer':
    case 'audit.read':
      return actor.kind === 'user' && actor.role === 'admin';
    default: {
      if (resource === undefined) return false;
      const role = roleOn(actor, resource);
      // Anonymous visitors only ever read; writes need a signed-in user whatever the target.
      if (actor.kind === 'anonymous' && action !== 'resource.read') return false;
      return role !== null && minimumRole[action].includes(role);
    }
  }
}

/**
 * `can`, turned into the answer a route must give: 401 when a signed-in user is needed and there
 * is none (in auth mode that is every anonymous request); 404 when the resource is not the
 * caller's to see (indistinguishable from missing); 403 when the caller may see it but not do this.
 */
export function authorize(actor: Actor, action: GlobalAction): asserts actor is UserActor;
export function authorize(actor: Actor, action: ResourceAction, resource: SharedResource): void;
export function authorize(actor: Actor, action: Action, resource?: SharedResource): void {
  if (resource === undefined) {
    if (can(actor, action as GlobalAction)) return;
    if (actor.kind === 'anonymous') throw new DomainError('unauthenticated', 'sign in to do this');
    throw new DomainError('forbidden', 'your role does not allow this');
  }
  const resourceAction = action as ResourceAction;
  if (can(actor, resourceAction, resource)) return;
  const signIn = new DomainError('unauthenticated', 'sign in to do this');
  if (actor.kind === 'anonymous' && (!actor.mayBrowsePublic || resourceAction !== 'resource.read')) throw signIn;
  if (!can(actor, 'resource.read', resource)) throw new DomainError('not_found', 'not found');
  if (actor.kind === 'anonymous') throw new DomainError('unauthenticated', 'sign in to do this');
  throw new DomainError('forbidden', 'your role does not allow this');
}

/**
 * The first check of every route that takes a user's token, made before anything is looked up:
 * anonymous callers never write, and in auth mode never read either. Deciding it before the
 * lookup keeps a 401 from turning into a 404 that would tell which ids exist.
 */
export function admit(actor: Actor, access: 'read' | 'write'): void {
  if (actor.kind === 'user') return;
  if (access === 'write' || !actor.mayBrowsePublic) throw new DomainError('unauthenticated', 'sign in to do this');
}

/**
 * Things that belong to one user (jobs): the owner and admins see them; for anyone else they do
 * not exist (404, the same answer as for a missing one).
 */
export function authorizeOwned(actor: Actor, ownerUserId: string | null, what: string): asserts actor is UserActor {
  if (actor.kind === 'anonymous') throw new DomainError('unauthenticated', 'sign in to do this');
  if (actor.role === 'admin' || (ownerUserId !== null && ownerUserId === actor.userId)) return;
  throw notFound(what);
}
