import type { Kysely } from 'kysely';

// Where a duplicated dashboard came from (docs/architecture.md "Dashboards", duplicate). `confined` marks a
// copy made by someone who could not edit the project: its own members count only while they
// still read the project or the original (`copy_of`), and it can be neither shared nor embedded.
// `copy_of` is a plain id, not a foreign key: a deleted original leaves the copy confined to the
// project's readers, which a dangling id says as well as a NULL would.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dashboards').addColumn('copy_of', 'text').execute();
  await db.schema
    .alterTable('dashboards')
    .addColumn('confined', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dashboards').dropColumn('confined').execute();
  await db.schema.alterTable('dashboards').dropColumn('copy_of').execute();
}
