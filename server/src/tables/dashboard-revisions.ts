import type { Kysely } from 'kysely';
import type { DashboardRevisionsTable, Tables } from '../db/tables.js';

/**
 * Every query on `dashboard_revisions` (docs/architecture.md "Table owners"). Each function takes
 * the database or a transaction, so a save and its revision commit together.
 */
export const dashboardRevisionRows = {
  async insert(db: Kysely<Tables>, row: DashboardRevisionsTable): Promise<void> {
    await db.insertInto('dashboard_revisions').values(row).execute();
  },

  /** One revision, with its saver's email (null once the account is gone). */
  find(db: Kysely<Tables>, dashboardId: string, revision: number) {
    return dashboardRevisionRows
      .withSaver(db, dashboardId)
      .selectAll('dashboard_revisions')
      .select('users.email as saved_by_email')
      .where('dashboard_revisions.revision', '=', revision)
      .executeTakeFirst();
  },

  /** The newest revision of a dashboard (the content a save changes). */
  latest(db: Kysely<Tables>, dashboardId: string): Promise<DashboardRevisionsTable | undefined> {
    return db
      .selectFrom('dashboard_revisions')
      .selectAll()
      .where('dashboard_id', '=', dashboardId)
      .orderBy('revision', 'desc')
      .limit(1)
      .executeTakeFirst();
  },

  /** A dashboard's revisions joined with their savers, filtered only: `paginate` orders and pages. */
  withSaver(db: Kysely<Tables>, dashboardId: string) {
    return db
      .selectFrom('dashboard_revisions')
      .leftJoin('users', 'users.id', 'dashboard_revisions.saved_by')
      .where('dashboard_revisions.dashboard_id', '=', dashboardId);
  },

  /** Deletes all but the newest `kept` revisions of the dashboard. */
  async prune(db: Kysely<Tables>, dashboardId: string, kept: number): Promise<void> {
    const oldestKept = await db
      .selectFrom('dashboard_revisions')
      .select('revision')
      .where('dashboard_id', '=', dashboardId)
      .orderBy('revision', 'desc')
      .offset(kept - 1)
      .limit(1)
      .executeTakeFirst();
    if (oldestKept === undefined) return;
    await db
      .deleteFrom('dashboard_revisions')
      .where('dashboard_id', '=', dashboardId)
      .where('revision', '<', oldestKept.revision)
      .execute();
  },
};
