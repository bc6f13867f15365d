import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { DomainError } from '../errors.js';
import type { ResourceRole, SharedResource } from '../policy/policy.js';
import { normalizeEmail, UsersRepository } from '../users/repository.js';

/** What projects and dashboards share: member lists by role. */
export type MemberRole = 'owner' | 'editor' | 'viewer';

/** A member row joined with the account's email. */
export interface MemberRecord {
  user_id: string;
  role: MemberRole;
  email: string;
}

/** Member lists by role, as the policy wants them. */
export function asSharedResource(
  members: readonly MemberRecord[],
  isPublic: boolean,
  projectId?: string,
): SharedResource {
  const by = (role: MemberRole) => members.filter((m) => m.role === role).map((m) => m.user_id);
  const resource = { owners: by('owner'), editors: by('editor'), viewers: by('viewer'), isPublic };
  return projectId === undefined ? resource : { ...resource, projectId };
}

/**
 * Member lists by role, as answers present them to a caller with `role` on the resource. Emails
 * are for its members and admins; a public resource's other readers (anonymous visitors included)
 * get the lists without them. `null` is the owner who just shared it away: they wrote the list.
 */
export function presentMembers(members: readonly MemberRecord[], role: ResourceRole) {
  const showEmails = role !== 'public';
  const by = (wanted: MemberRole) =>
    members
      .filter((m) => m.role === wanted)
      .map((m) => (showEmails ? { user_id: m.user_id, email: m.email } : { user_id: m.user_id }));
  return { owners: by('owner'), editors: by('editor'), viewers: by('viewer') };
}

/**
 * The accounts a `PUT …/permissions` body names (by user id or email), each with its role; an
 * unknown account or one listed twice is a 400 naming the entry.
 */
export async function resolveMembers(
  db: Kysely<Tables>,
  request: { owners: string[]; editors: string[]; viewers: string[] },
): Promise<Map<string, MemberRole>> {
  const wanted = [
    ...request.owners.map((who, index) => ({ who, role: 'owner' as const, path: `body.owners[${index}]` })),
    ...request.editors.map((who, index) => ({ who, role: 'editor' as const, path: `body.editors[${index}]` })),
    ...request.viewers.map((who, index) => ({ who, role: 'viewer' as const, path: `body.viewers[${index}]` })),
  ];
  const users = await new UsersRepository(db).findByIdsOrEmails(
    wanted.map((w) => w.who),
    wanted.map((w) => normalizeEmail(w.who)),
  );
  const members = new Map<string, MemberRole>();
  const problems: { path: string; message: string }[] = [];
  for (const { who, role, path } of wanted) {
    const user = users.find((u) => u.id === who || u.email_normalized === normalizeEmail(who));
    if (!user) problems.push({ path, message: `no account ${JSON.stringify(who)}` });
    else if (members.has(user.id)) problems.push({ path, message: 'this person is listed twice' });
    else members.set(user.id, role);
  }
  if (problems.length > 0)
    throw new DomainError('validation_failed', 'some members are unknown or listed twice', problems);
  return members;
}
