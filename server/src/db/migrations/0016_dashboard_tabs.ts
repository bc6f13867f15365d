import type { Kysely } from 'kysely';

// A dashboard's tabs (docs/dashboards.md "Tabs"): a JSON array of `DashboardTab`, ordered. Each
// component names its tab inside `components`; existing dashboards have none (one implicit tab).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('dashboards')
    .addColumn('tabs', 'text', (col) => col.notNull().defaultTo('[]'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dashboards').dropColumn('tabs').execute();
}
