import type { Kysely } from 'kysely';

// Alerts (docs/live-data.md "Alerts"): a rule on a dashboard's card, owned by the user who made it;
// one evaluation per (alert, table version), claimed by its primary key so a version is judged
// once across replicas and workers; the notifications a rule that fired leaves its owner; and one
// webhook delivery per notification when the rule has a webhook. A deleted dashboard or account
// takes its alerts, and an alert its evaluations, notifications and deliveries, with it (cascade).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alerts')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('dashboard_id', 'text', (col) => col.notNull().references('dashboards.id').onDelete('cascade'))
    .addColumn('component_id', 'text', (col) => col.notNull())
    /** The card's collection when the alert was made: which versions it is evaluated after. */
    .addColumn('data_collection_id', 'text', (col) => col.notNull())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    /** `>`, `>=`, `<`, `<=` or `change_pct`. */
    .addColumn('op', 'text', (col) => col.notNull())
    .addColumn('value', 'double precision', (col) => col.notNull())
    .addColumn('webhook_url', 'text')
    /** The HMAC key the server signs each delivery with (it must be able to sign, so it is kept as is). */
    .addColumn('webhook_secret', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('alerts_collection_idx').on('alerts').column('data_collection_id').execute();
  await db.schema.createIndex('alerts_dashboard_user_idx').on('alerts').columns(['dashboard_id', 'user_id']).execute();
  await db.schema
    .createTable('alert_evaluations')
    .addColumn('alert_id', 'text', (col) => col.notNull().references('alerts.id').onDelete('cascade'))
    .addColumn('version', 'integer', (col) => col.notNull())
    /** `fired`, `quiet` or `skipped` (the owner may not read the data, or no number came out). */
    .addColumn('outcome', 'text', (col) => col.notNull())
    .addColumn('value', 'double precision')
    .addColumn('evaluated_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('alert_evaluations_pk', ['alert_id', 'version'])
    .execute();
  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('alert_id', 'text', (col) => col.notNull().references('alerts.id').onDelete('cascade'))
    .addColumn('dashboard_id', 'text', (col) => col.notNull())
    .addColumn('component_id', 'text', (col) => col.notNull())
    .addColumn('data_collection_id', 'text', (col) => col.notNull())
    .addColumn('version', 'integer', (col) => col.notNull())
    .addColumn('value', 'double precision', (col) => col.notNull())
    .addColumn('previous_value', 'double precision')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('read_at', 'text')
    .execute();
  await db.schema
    .createIndex('notifications_user_idx')
    .on('notifications')
    .columns(['user_id', 'created_at'])
    .execute();
  await db.schema
    .createTable('alert_deliveries')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('alert_id', 'text', (col) => col.notNull().references('alerts.id').onDelete('cascade'))
    .addColumn('notification_id', 'text', (col) => col.notNull().references('notifications.id').onDelete('cascade'))
    .addColumn('url', 'text', (col) => col.notNull())
    /** `pending`, `delivered` or `failed`. */
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull())
    /** The receiver's last HTTP status, or null when no answer came. */
    .addColumn('response_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('alert_deliveries_alert_idx')
    .on('alert_deliveries')
    .columns(['alert_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('alert_deliveries').execute();
  await db.schema.dropTable('notifications').execute();
  await db.schema.dropTable('alert_evaluations').execute();
  await db.schema.dropTable('alerts').execute();
}
