import { emailSchema, type FieldError, type Project, type permissionsRequestSchema } from '@service/common';
import type { z } from 'zod';

export type MemberRole = 'owner' | 'editor' | 'viewer';
export const MEMBER_ROLES: readonly { value: MemberRole; label: string }[] = [
  { value: 'owner', label: 'Owner' },
  { value: 'editor', label: 'Editor' },
  { value: 'viewer', label: 'Viewer' },
];

/** One person in the editor: an existing member (with a user id) or someone added by email. */
export interface DraftMember {
  /** The user id of an existing member; null for someone added by email and not yet saved. */
  userId: string | null;
  email: string;
  role: MemberRole;
}

export interface PermissionsDraft {
  members: DraftMember[];
  isPublic: boolean;
}

export type PermissionsRequest = z.input<typeof permissionsRequestSchema>;

/** The editor's starting point: the project's members as the server has them, owners first. */
export function draftFromProject(project: Pick<Project, 'permissions' | 'is_public'>): PermissionsDraft {
  const { owners, editors, viewers } = project.permissions;
  const members = [
    // Only members (who alone edit sharing) are sent emails; others see the list without them.
    ...owners.map((m) => ({ userId: m.user_id, email: m.email ?? '', role: 'owner' as const })),
    ...editors.map((m) => ({ userId: m.user_id, email: m.email ?? '', role: 'editor' as const })),
    ...viewers.map((m) => ({ userId: m.user_id, email: m.email ?? '', role: 'viewer' as const })),
  ];
  return { members, isPublic: project.is_public };
}

function sameEmail(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * Adds someone by email, or says why not. Only the form of the address is checked here: whether an
 * account has it is the server's answer when the draft is saved (no one can list accounts but admins).
 */
export function addMember(
  draft: PermissionsDraft,
  email: string,
  role: MemberRole,
): { draft: PermissionsDraft } | { error: string } {
  const parsed = emailSchema.safeParse(email);
  if (!parsed.success) return { error: 'Enter an email address, like name@example.org.' };
  const existing = draft.members.find((member) => sameEmail(member.email, parsed.data));
  if (existing) return { error: `${existing.email} is already listed as ${existing.role}.` };
  return { draft: { ...draft, members: [...draft.members, { userId: null, email: parsed.data, role }] } };
}

export function removeMember(draft: PermissionsDraft, index: number): PermissionsDraft {
  return { ...draft, members: draft.members.filter((_, at) => at !== index) };
}

export function changeRole(draft: PermissionsDraft, index: number, role: MemberRole): PermissionsDraft {
  return { ...draft, members: draft.members.map((member, at) => (at === index ? { ...member, role } : member)) };
}

/**
 * The `PUT /projects/{id}/permissions` body, plus where each member landed in it, so field errors
 * (`body.viewers[2]`) can be shown beside the person they are about. Existing members are sent by
 * user id, new ones by the email typed.
 */
export function toRequest(draft: PermissionsDraft): { body: PermissionsRequest; paths: string[] } {
  const lists: Record<MemberRole, string[]> = { owner: [], editor: [], viewer: [] };
  const paths = draft.members.map((member) => {
    const list = lists[member.role];
    list.push(member.userId ?? member.email);
    return `body.${member.role}s[${list.length - 1}]`;
  });
  return {
    body: { owners: lists.owner, editors: lists.editor, viewers: lists.viewer, is_public: draft.isPublic },
    paths,
  };
}

/** Whether the draft differs from what the project has (order within a role does not count). */
export function isDirty(draft: PermissionsDraft, project: Pick<Project, 'permissions' | 'is_public'>): boolean {
  const key = (d: PermissionsDraft) =>
    JSON.stringify([d.isPublic, d.members.map((m) => `${m.role}:${m.userId ?? m.email.toLowerCase()}`).sort()]);
  return key(draft) !== key(draftFromProject(project));
}

const LIST_NAMES: Record<string, string> = {
  'body.owners': 'Owners',
  'body.editors': 'Editors',
  'body.viewers': 'Viewers',
  'body.is_public': 'Public',
};

/**
 * Splits the field errors of a refused save into those about one member (by their index in the
 * draft) and the rest, worded for people (`Owners: a project needs at least one owner`).
 */
export function placeErrors(
  errors: readonly FieldError[],
  paths: readonly string[],
): { byMember: Map<number, string>; general: string[] } {
  const byMember = new Map<number, string>();
  const general: string[] = [];
  for (const error of errors) {
    const index = paths.indexOf(error.path);
    if (index >= 0) byMember.set(index, error.message);
    else general.push(LIST_NAMES[error.path] ? `${LIST_NAMES[error.path]}: ${error.message}` : error.message);
  }
  return { byMember, general };
}
