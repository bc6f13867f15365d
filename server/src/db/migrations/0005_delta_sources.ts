import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Which version (content hash) of each source file a data collection's table holds. Written
  // after the Delta commit; if it ever lags, the next upsert only redoes work, never loses rows.
  await db.schema
    .createTable('delta_sources')
    .addColumn('data_collection_id', 'text', (col) =>
      col.notNull().references('data_collections.id').onDelete('cascade'),
    )
    .addColumn('file_id', 'text', (col) => col.notNull())
    .addColumn('sha256', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('delta_sources_pk', ['data_collection_id', 'file_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('delta_sources').execute();
}
