import type { Kysely } from 'kysely';
import type { AlertDeliveriesTable, AlertsTable, NotificationsTable, Tables } from '../db/tables.js';
import { dashboardRows } from './dashboards.js';

/** A delivery left pending, with what its next try needs: the notification and the alert's rule and secret. */
export interface StaleDelivery {
  delivery: Pick<AlertDeliveriesTable, 'id' | 'url' | 'attempts' | 'updated_at'>;
  notification: NotificationsTable;
  alert: Pick<AlertsTable, 'op' | 'value' | 'webhook_secret'>;
}

/**
 * Every query on `notifications` and `alert_deliveries` (docs/architecture.md "Table owners").
 * Each function takes the database or a transaction, so callers keep their work atomic.
 */
export const notificationRows = {
  async insert(db: Kysely<Tables>, row: NotificationsTable): Promise<void> {
    await db.insertInto('notifications').values(row).execute();
  },

  /**
   * One user's notifications, filtered only: `paginate` adds the order and the page. With
   * `projectIds` (a project-limited access token's), only those about these projects' dashboards.
   */
  ofUserFiltered(db: Kysely<Tables>, userId: string, projectIds: readonly string[] | null) {
    const own = db.selectFrom('notifications').where('user_id', '=', userId);
    return projectIds === null
      ? own
      : own.where('dashboard_id', 'in', dashboardRows.idsInProjectsQuery(db, projectIds));
  },

  async unreadCount(db: Kysely<Tables>, userId: string, projectIds: readonly string[] | null): Promise<number> {
    const row = await notificationRows
      .ofUserFiltered(db, userId, projectIds)
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('read_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  },

  /** Marks one of the user's notifications read (kept as first read); false when it has none such. */
  async markRead(
    db: Kysely<Tables>,
    id: string,
    owner: { userId: string; projectIds: readonly string[] | null },
    at: string,
  ): Promise<boolean> {
    const found = await notificationRows
      .ofUserFiltered(db, owner.userId, owner.projectIds)
      .select('id')
      .where('id', '=', id)
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

  /**
   * Deliveries still `pending` whose row was last written before `before`, oldest first: a live
   * delivery writes its row after every try, so these belong to a process that stopped between tries.
   */
  async stalePendingDeliveries(db: Kysely<Tables>, before: string, limit: number): Promise<StaleDelivery[]> {
    const rows = await db
      .selectFrom('alert_deliveries as d')
      .innerJoin('notifications as n', 'n.id', 'd.notification_id')
      .innerJoin('alerts as a', 'a.id', 'd.alert_id')
      .selectAll('n')
      .select([
        'd.id as delivery_id',
        'd.url as delivery_url',
        'd.attempts as delivery_attempts',
        'd.updated_at as delivery_updated_at',
        'a.op as alert_op',
        'a.value as alert_value',
        'a.webhook_secret as alert_webhook_secret',
      ])
      .where('d.status', '=', 'pending')
      .where('d.updated_at', '<', before)
      .orderBy('d.created_at')
      .limit(limit)
      .execute();
    return rows.map(
      ({
        delivery_id,
        delivery_url,
        delivery_attempts,
        delivery_updated_at,
        alert_op,
        alert_value,
        alert_webhook_secret,
        ...notification
      }) => ({
        delivery: { id: delivery_id, url: delivery_url, attempts: delivery_attempts, updated_at: delivery_updated_at },
        notification,
        alert: { op: alert_op, value: alert_value, webhook_secret: alert_webhook_secret },
      }),
    );
  },

  /**
   * Takes a stale delivery over: true for the one process whose write found the row as it read it
   * (still pending, not written since), so each is resumed once however many processes look.
   */
  async claimDelivery(db: Kysely<Tables>, id: string, seenUpdatedAt: string, at: string): Promise<boolean> {
    const result = await db
      .updateTable('alert_deliveries')
      .set({ updated_at: at })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('updated_at', '=', seenUpdatedAt)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** One alert's deliveries, filtered only: `paginate` adds the order and the page. */
  deliveriesOfAlertFiltered(db: Kysely<Tables>, alertId: string) {
    return db.selectFrom('alert_deliveries').where('alert_id', '=', alertId);
  },
};
