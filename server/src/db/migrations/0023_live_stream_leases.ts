import type { Kysely } from 'kysely';

// The open event streams of every replica (docs/live-data.md "Limits"), so the per-user limit
// counts them all: one row per open stream, renewed by its replica every heartbeat; a replica that
// died stops renewing and its rows lapse at `expires_at`.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('live_stream_leases')
    .addColumn('lease_id', 'text', (col) => col.primaryKey())
    /** Whose streams count together: `user:<id>`, or `address:<ip>` for anonymous callers. */
    .addColumn('caller_key', 'text', (col) => col.notNull())
    /** The replica holding the stream (a random id per process). */
    .addColumn('replica_id', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('live_stream_leases_caller_idx')
    .on('live_stream_leases')
    .columns(['caller_key', 'expires_at'])
    .execute();
  await db.schema.createIndex('live_stream_leases_replica_idx').on('live_stream_leases').column('replica_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('live_stream_leases').execute();
}
