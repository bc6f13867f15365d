import type { Kysely } from 'kysely';

// Every worker pool (in `serve` or `service worker`) writes here every few seconds, so `/health`
// on any replica can say how many workers are alive, even when none holds a job (a job's lease
// only shows workers that are busy).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('worker_heartbeats')
    .addColumn('worker_id', 'text', (col) => col.primaryKey())
    .addColumn('started_at', 'text', (col) => col.notNull())
    .addColumn('seen_at', 'text', (col) => col.notNull())
    .addColumn('concurrency', 'integer', (col) => col.notNull())
    .addColumn('running', 'integer', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('worker_heartbeats').execute();
}
