import type { Kysely } from 'kysely';
import type { AlertDeliveriesTable, NotificationsTable, Tables } from '../db/tables.js';

/**
 * Every query on `notifications` and `alert_deliveries` (docs/architecture.md "Table owners").
 * Each function takes the database or a transaction, so callers keep their work atomic.
 */
export const notificationRows = {
  async insert(db: Kysely<Tables>, row: NotificationsTable): Promise<void> {
    await db.insertInto('notifications').values(row).execute();
  },

  /** One user's notifications, filtered only: `paginate` adds the order and the page. */
  ofUserFiltered(db: Kysely<Tables>, userId: string) {
    return db.selectFrom('notifications').where('user_id', '=', userId);
  },

  async unreadCount(db: Kysely<Tables>, userId: string): Promise<number> {
    const row = await db
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('user_id', '=', userId)
      .where('read_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  },

  /** Marks one of the user's notifications read (kept as first read); false when it has none such. */
  async markRead(db: Kysely<Tables>, id: string, userId: string, at: string): Promise<boolean> {
    const found = await db
      .selectFrom('notifications')
      .select('id')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!found) return false;
    await db
      .updateTable('notifications')
      .set({ read_at: at })
      .where('id', '=', id)
      .where('read_at', 'is', null)
      .execute();
    return true;
  },

  async insertDelivery(db: Kysely<Tables>, row: AlertDeliveriesTable): Promise<void> {
    await db.insertInto('alert_deliveries').values(row).execute();
  },

  async updateDelivery(
    db: Kysely<Tables>,
    id: string,
    change: Pick<AlertDeliveriesTable, 'status' | 'attempts' | 'response_status' | 'last_error' | 'updated_at'>,
  ): Promise<void> {
    await db.updateTable('alert_deliveries').set(change).where('id', '=', id).execute();
  },

  /** One alert's deliveries, filtered only: `paginate` adds the order and the page. */
  deliveriesOfAlertFiltered(db: Kysely<Tables>, alertId: string) {
    return db.selectFrom('alert_deliveries').where('alert_id', '=', alertId);
  },
};
