import type { UserDeletionSummary } from '@service/common';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { embedTokenRows } from '../tables/embed-tokens.js';
import { projectMemberRows, projectRows } from '../tables/projects.js';
import { sessionRows } from '../tables/sessions.js';

/** Ids per query's `in` list, well under any database's parameter limit. */
const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += CHUNK) result.push(items.slice(start, start + CHUNK));
  return result;
}

/** What a user owns with no other owner: deleting the user without a decision would orphan it. */
export interface SolelyOwned {
  projectIds: string[];
  /** Dashboards with no other dashboard owner, wherever their project. */
  dashboardIds: string[];
}

/** The dashboards whose only owner member is `userId` (their project's owners aside). */
async function solelyOwnedDashboards(db: Kysely<Tables>, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('dashboard_members as mine')
    .select('mine.dashboard_id as id')
    .where('mine.user_id', '=', userId)
    .where('mine.role', '=', 'owner')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('dashboard_members as others')
            .select('others.user_id')
            .whereRef('others.dashboard_id', '=', 'mine.dashboard_id')
            .where('others.role', '=', 'owner')
            .where('others.user_id', '!=', userId),
        ),
      ),
    )
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/**
 * PostgreSQL only: locks the owner rows of every project and dashboard the user owns, theirs and
 * their co-owners', until the transaction ends. A co-owner stepping down meanwhile waits, so what
 * "owned alone" counts is still true when the user's rows go.
 */
export async function lockOwnerships(db: Kysely<Tables>, userId: string): Promise<void> {
  await projectMemberRows.lockOwnersAlongside(db, userId);
  await db
    .selectFrom('dashboard_members')
    .select(['dashboard_id', 'user_id'])
    .where('role', '=', 'owner')
    .where('dashboard_id', 'in', (eb) =>
      eb
        .selectFrom('dashboard_members')
        .select('dashboard_id')
        .where('user_id', '=', userId)
        .where('role', '=', 'owner'),
    )
    .orderBy('dashboard_id')
    .orderBy('user_id')
    .forUpdate()
    .execute();
}

export async function solelyOwnedBy(db: Kysely<Tables>, userId: string): Promise<SolelyOwned> {
  return {
    projectIds: await projectMemberRows.solelyOwnedBy(db, userId),
    dashboardIds: await solelyOwnedDashboards(db, userId),
  };
}

/** Dashboards inside the user's projects that are not the user's alone (other people's). */
async function otherDashboardsIn(db: Kysely<Tables>, owned: SolelyOwned): Promise<number> {
  const except = new Set(owned.dashboardIds);
  let total = 0;
  for (const ids of chunks(owned.projectIds)) {
    const rows = await db.selectFrom('dashboards').select('id').where('project_id', 'in', ids).execute();
    total += rows.filter((row) => !except.has(row.id)).length;
  }
  return total;
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
  for (const ids of chunks(owned.dashboardIds)) {
    await db
      .insertInto('dashboard_members')
      .values(ids.map((dashboard_id) => ({ dashboard_id, user_id: toUserId, role: 'owner' as const })))
      .onConflict((oc) => oc.columns(['dashboard_id', 'user_id']).doUpdateSet({ role: 'owner' }))
      .execute();
    await db
      .updateTable('dashboards')
      .set({ created_by: toUserId })
      .where('id', 'in', ids)
      .where('created_by', '=', fromUserId)
      .execute();
  }
}

/** Deletes the dashboards the user owns alone (their projects are deleted by their own service). */
export async function deleteOwnedDashboards(db: Kysely<Tables>, owned: SolelyOwned): Promise<void> {
  for (const ids of chunks(owned.dashboardIds)) await db.deleteFrom('dashboards').where('id', 'in', ids).execute();
}

/**
 * Revokes the embed tokens the user made: each carries its creator's right to publish, so none
 * may outlive them (they would stop working anyway; revoked, their lists say so).
 */
export async function revokeEmbedTokens(db: Kysely<Tables>, userId: string): Promise<void> {
  await embedTokenRows.revokeAllBy(db, userId, isoNow());
}
