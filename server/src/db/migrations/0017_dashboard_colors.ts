import type { Kysely } from 'kysely';

// A dashboard's palette (docs/dashboards.md "Colours"): a JSON array of category values, the n-th
// taking the n-th series colour. Existing dashboards start with none; the first read assigns it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('dashboards')
    .addColumn('colors', 'text', (col) => col.notNull().defaultTo('[]'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dashboards').dropColumn('colors').execute();
}
