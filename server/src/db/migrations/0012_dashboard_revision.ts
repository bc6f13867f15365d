import type { Kysely } from 'kysely';

// A counter bumped by every save of a dashboard's content: its ETag, and the value a save
// compares-and-sets in its UPDATE so that two saves from the same version cannot both win
// (docs/architecture.md "Dashboards", `If-Match`). A timestamp would not do: two saves may share a millisecond.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('dashboards')
    .addColumn('revision', 'integer', (col) => col.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dashboards').dropColumn('revision').execute();
}
