import type { Kysely } from 'kysely';
import type { AlertEvaluationsTable, AlertsTable, Tables } from '../db/tables.js';

/**
 * Every query on `alerts` and `alert_evaluations` (docs/architecture.md "Table owners"). Each
 * function takes the database or a transaction, so callers keep their work atomic.
 */
export const alertRows = {
  async insert(db: Kysely<Tables>, row: AlertsTable): Promise<void> {
    await db.insertInto('alerts').values(row).execute();
  },

  find(db: Kysely<Tables>, id: string): Promise<AlertsTable | undefined> {
    return db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** One user's alerts on one dashboard, newest first. */
  ofDashboardAndUser(db: Kysely<Tables>, dashboardId: string, userId: string): Promise<AlertsTable[]> {
    return db
      .selectFrom('alerts')
      .selectAll()
      .where('dashboard_id', '=', dashboardId)
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  },

  /** The alerts evaluated after a new version of this collection. */
  onCollection(db: Kysely<Tables>, dataCollectionId: string): Promise<AlertsTable[]> {
    return db.selectFrom('alerts').selectAll().where('data_collection_id', '=', dataCollectionId).execute();
  },

  async delete(db: Kysely<Tables>, id: string): Promise<boolean> {
    const result = await db.deleteFrom('alerts').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

  /**
   * Claims the evaluation of one alert at one version: true for the one caller whose insert
   * landed, false for every other (the primary key makes it once across processes).
   */
  async claimEvaluation(db: Kysely<Tables>, row: AlertEvaluationsTable): Promise<boolean> {
    const result = await db
      .insertInto('alert_evaluations')
      .values(row)
      .onConflict((conflict) => conflict.columns(['alert_id', 'version']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  },

  async finishEvaluation(
    db: Kysely<Tables>,
    alertId: string,
    version: number,
    outcome: AlertEvaluationsTable['outcome'],
    value: number | null,
  ): Promise<void> {
    await db
      .updateTable('alert_evaluations')
      .set({ outcome, value })
      .where('alert_id', '=', alertId)
      .where('version', '=', version)
      .execute();
  },
};
