import type { UserDeletionSummary } from '@service/common';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { dashboardMemberRows, dashboardRows } from '../tables/dashboards.js';
import { embedTokenRows } from '../tables/embed-tokens.js';
import { projectMemberRows, projectRows } from '../tables/projects.js';
import { sessionRows } from '../tables/sessions.js';

/** What a user owns with no other owner: deleting the user without a decision would orphan it. */
export interface SolelyOwned {
  projectIds: string[];
  /** Dashboards with no other dashboard owner, wherever their project. */
  dashboardIds: string[];
}

/**
 * PostgreSQL only: locks the owner rows of every project and dashboard the user owns, theirs and
 * their co-owners', until the transaction ends. A co-owner stepping down meanwhile waits, so what
 * "owned alone" counts is still true when the user's rows go.
 */
export async function lockOwnerships(db: Kysely<Tables>, userId: string): Promise<void> {
  await projectMemberRows.lockOwnersAlongside(db, userId);
  await dashboardMemberRows.lockOwnersAlongside(db, userId);
}

export async function solelyOwnedBy(db: Kysely<Tables>, userId: string): Promise<SolelyOwned> {
  return {
    projectIds: await projectMemberRows.solelyOwnedBy(db, userId),
    dashboardIds: await dashboardMemberRows.solelyOwnedBy(db, userId),
  };
}

/** Dashboards inside the user's projects that are not the user's alone (other people's). */
async function otherDashboardsIn(db: Kysely<Tables>, owned: SolelyOwned): Promise<number> {
  const except = new Set(owned.dashboardIds);
  const inProjects = await dashboardRows.idsInProjects(db, owned.projectIds);
  return inProjects.filter((id) => !except.has(id)).length;
}

/** What deleting the user would hand over or delete, counted in the database. */
export async function deletionSummary(
  db: Kysely<Tables>,
  userId: string,
  owned?: SolelyOwned,
): Promise<UserDeletionSummary> {
  const mine = owned ?? (await solelyOwnedBy(db, userId));
  return {
    projects: mine.projectIds.length,
    dashboards: mine.dashboardIds.length,
    project_dashboards: await otherDashboardsIn(db, mine),
    active_embed_tokens: await embedTokenRows.countActiveBy(db, userId, isoNow()),
    active_sessions: await sessionRows.countActive(db, userId, isoNow()),
  };
}

/**
 * Makes `toUserId` an owner of everything `fromUserId` owns alone (promoting them where they were
 * editor or viewer), and its creator where that breaks nothing: a project keeps no creator when
 * the new owner already created one of the same name (names are unique per creator).
 */
export async function transferOwned(
  db: Kysely<Tables>,
  owned: SolelyOwned,
  fromUserId: string,
  toUserId: string,
): Promise<void> {
  await projectMemberRows.makeOwner(db, owned.projectIds, toUserId);
  await projectRows.handCreatorOver(db, owned.projectIds, fromUserId, toUserId);
  await dashboardMemberRows.makeOwner(db, owned.dashboardIds, toUserId);
  await dashboardRows.handCreatorOver(db, owned.dashboardIds, fromUserId, toUserId);
}

/** Deletes the dashboards the user owns alone (their projects are deleted by their own service). */
export async function deleteOwnedDashboards(db: Kysely<Tables>, owned: SolelyOwned): Promise<void> {
  await dashboardRows.deleteMany(db, owned.dashboardIds);
}

/**
 * Revokes the embed tokens the user made: each carries its creator's right to publish, so none
 * may outlive them (they would stop working anyway; revoked, their lists say so).
 */
export async function revokeEmbedTokens(db: Kysely<Tables>, userId: string): Promise<void> {
  await embedTokenRows.revokeAllBy(db, userId, isoNow());
}
