import { type Kysely, PostgresAdapter } from 'kysely';

// The events of the live stream (docs/live-data.md): one row per new table version or job change,
// numbered in commit order by the database, kept for an hour so a client that reconnects with
// `Last-Event-ID` is sent what it missed.
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('live_events')
    .addColumn('event_id', postgres ? 'bigserial' : 'integer', (col) =>
      postgres ? col.primaryKey() : col.primaryKey().autoIncrement(),
    )
    /** `version` or `job`. */
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('project_id', 'text')
    .addColumn('data_collection_id', 'text')
    /** A job event's owner (the job's user); null for versions. */
    .addColumn('user_id', 'text')
    /** The event's data as sent (JSON). */
    .addColumn('data', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('live_events_created_idx').on('live_events').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('live_events').execute();
}
