import { DomainError, notFound } from '../errors.js';
import type { Actor, UserActor } from './actor.js';

/** What projects and dashboards carry: member lists by role and a public switch. */
export interface SharedResource {
  owners: readonly string[];
  editors: readonly string[];
  viewers: readonly string[];
  isPublic: boolean;
  /** The project it is (or lies in); what a project-limited access token is judged by. */
  projectId?: string;
}

/**
 * Where a dashboard came from, when it is a copy made by someone who could not edit its project
 * (docs/architecture.md "Dashboards", duplicate): `original` is the original as the policy sees it now, `null`
 * once it is gone.
 */
export interface ConfinedCopy {
  original: SharedResource | null;
}

/** Whether a user reads a resource through its member lists or its public switch (roles aside). */
export function readsThrough(userId: string, resource: SharedResource): boolean {
  return (
    resource.isPublic ||
    resource.owners.includes(userId) ||
    resource.editors.includes(userId) ||
    resource.viewers.includes(userId)
  );
}

/**
 * A dashboard as the policy sees it: its own members, plus its project's. Project owners and
 * editors manage the project's dashboards (as owners: edit, share, delete); project viewers read
 * them; a public project's dashboards are public too (their data already is). A confined copy's
 * own members count only while they still read the project or the original, so removing someone
 * from either ends their copies at once.
 */
export function dashboardResource(
  dashboard: SharedResource,
  project: SharedResource,
  confined?: ConfinedCopy,
): SharedResource {
  const union = (...lists: (readonly string[])[]) => [...new Set(lists.flat())];
  const stillReads = (userId: string) =>
    readsThrough(userId, project) || (confined?.original != null && readsThrough(userId, confined.original));
  const own = (list: readonly string[]) => (confined === undefined ? list : list.filter(stillReads));
  return {
    owners: union(own(dashboard.owners), project.owners, project.editors),
    editors: own(dashboard.editors),
    viewers: union(own(dashboard.viewers), project.viewers),
    isPublic: dashboard.isPublic || project.isPublic,
    ...(project.projectId === undefined ? {} : { projectId: project.projectId }),
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
  | 'project.create' // create a new project (not with a project-limited access token)
  | 'tokens.manage' // create, list and revoke one's personal access tokens (a session only)
  | 'resource.list' // list the projects or dashboards one may see
  | 'templates.read' // list the pipeline templates and read one (signed-in users)
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
    case 'resource.create':
    case 'templates.read':
      return actor.kind === 'user';
    case 'project.create':
      return actor.kind === 'user' && (actor.token?.projectIds ?? null) === null;
    // What turns a credential into another or changes accounts needs a session: an access token
    // mints no tokens or sign-in links and administers no accounts, so a leaked one stays bounded.
    case 'magic_link.create':
      return actor.kind === 'user' && actor.token === undefined;
    case 'tokens.manage':
      return actor.kind === 'user' && actor.token === undefined && !actor.isTemporary;
    case 'resource.list':
      return actor.kind === 'user' || actor.mayBrowsePublic;
    case 'users.administer':
      return actor.kind === 'user' && actor.role === 'admin' && actor.token === undefined;
    case 'audit.read':
      return actor.kind === 'user' && actor.role === 'admin';
    default: {
      if (resource === undefined) return false;
      if (!tokenAllows(actor, action, resource)) return false;
      const role = roleOn(actor, resource);
      // Anonymous visitors only ever read; writes need a signed-in user whatever the target.
      if (actor.kind === 'anonymous' && action !== 'resource.read') return false;
      return role !== null && minimumRole[action].includes(role);
    }
  }
}

/**
 * An access token's limits on a resource: a project-limited token sees only its projects (others
 * are absent to it: 404), a read token does nothing but read (403). Sessions have no limits here.
 */
function tokenAllows(actor: Actor, action: ResourceAction, resource: SharedResource): boolean {
  if (actor.kind !== 'user' || actor.token === undefined) return true;
  const { projectIds, scope } = actor.token;
  if (projectIds !== null && (resource.projectId === undefined || !projectIds.includes(resource.projectId)))
    return false;
  return scope === 'write' || action === 'resource.read';
}

/** The projects an access token is limited to, for list queries; null: no limit. */
export function tokenProjects(actor: Actor): readonly string[] | null {
  return actor.kind === 'user' ? (actor.token?.projectIds ?? null) : null;
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
  if (actor.kind === 'user') {
    if (access === 'write' && actor.token?.scope === 'read')
      throw new DomainError('forbidden', 'this access token is read-only');
    return;
  }
  if (access === 'write' || !actor.mayBrowsePublic) throw new DomainError('unauthenticated', 'sign in to do this');
}

/**
 * Things that belong to one user (jobs): the owner and admins see them; for anyone else they do
 * not exist (404, the same answer as for a missing one).
 */
export function authorizeOwned(
  actor: Actor,
  ownerUserId: string | null,
  what: string,
  projectId?: string | null,
): asserts actor is UserActor {
  if (actor.kind === 'anonymous') throw new DomainError('unauthenticated', 'sign in to do this');
  const limit = tokenProjects(actor);
  if (limit !== null && (projectId == null || !limit.includes(projectId))) throw notFound(what);
  if (actor.role === 'admin' || (ownerUserId !== null && ownerUserId === actor.userId)) return;
  throw notFound(what);
}

/**
 * Publishing a dashboard — making it public, sharing it beyond its project's readers, minting
 * embed tokens for it — opens the project's data to people the project never admitted: besides
 * the right on the dashboard, it needs the right to share the project itself (docs/architecture.md "Dashboards").
 */
export function canPublish(actor: Actor, dashboard: SharedResource, project: SharedResource): boolean {
  return can(actor, 'resource.edit', dashboard) && can(actor, 'resource.share', project);
}

/** `canPublish` as a route's answer: 401/404/403 as `authorize` gives them, then 403 naming `what`. */
export function authorizePublish(actor: Actor, dashboard: SharedResource, project: SharedResource, what: string): void {
  authorize(actor, 'resource.edit', dashboard);
  if (!can(actor, 'resource.share', project))
    throw new DomainError('forbidden', `${what} needs the right to share the dashboard's project`);
}

/** A change of a dashboard's sharing, as `authorizeSharing` judges it. */
export interface SharingChange {
  dashboard: SharedResource;
  project: SharedResource;
  /** A copy made by someone who could not edit the project. */
  confined: boolean;
  /** Users given a role on the dashboard they did not have before (new, or another role). */
  granted: readonly string[];
  makesPublic: boolean;
}

/**
 * Setting a dashboard's members and public switch: its owners may, within its project's readers;
 * going beyond them (or making it public, or sharing a confined copy at all) is publishing.
 */
export function authorizeSharing(actor: Actor, change: SharingChange): void {
  authorize(actor, 'resource.share', change.dashboard);
  if (can(actor, 'resource.share', change.project)) return;
  const forbidden = (why: string) => new DomainError('forbidden', `${why} needs the right to share its project`);
  if (change.makesPublic) throw forbidden('making a dashboard public');
  if (change.confined && change.granted.length > 0)
    throw forbidden('a copy made by someone who cannot edit the project stays private to them: sharing it');
  if (change.granted.some((userId) => !readsThrough(userId, change.project)))
    throw forbidden("sharing a dashboard with people outside its project's readers");
}
