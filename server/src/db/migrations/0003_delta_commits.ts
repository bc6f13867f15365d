import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Commit claims of Delta tables: the writer that inserts (table_id, version) first may write
  // that version's log file; the primary key makes the insert the serialization point across replicas.
  await db.schema
    .createTable('delta_commits')
    .addColumn('table_id', 'text', (col) => col.notNull())
    .addColumn('version', 'integer', (col) => col.notNull())
    .addColumn('claimed_at', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('delta_commits_pk', ['table_id', 'version'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('delta_commits').execute();
}
