import type { Kysely } from 'kysely';

// Scheduled and watched ingestion (docs/data.md "Schedules and watched folders"): a workflow's
// schedule and watch as JSON, who set them (no foreign key: a removed user's schedule stays
// recorded and starts nothing), when each is next due, and the watched listing's fingerprint.
const COLUMNS = ['schedule', 'watch', 'schedule_set_by', 'schedule_next_at', 'watch_next_at', 'watch_fingerprint'];

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement per column: SQLite adds one column per ALTER TABLE.
  for (const column of COLUMNS) await db.schema.alterTable('workflows').addColumn(column, 'text').execute();
  // The scheduler's question, asked by every process every few seconds: what is due?
  await db.schema.createIndex('workflows_schedule_next_at').on('workflows').column('schedule_next_at').execute();
  await db.schema.createIndex('workflows_watch_next_at').on('workflows').column('watch_next_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('workflows_watch_next_at').execute();
  await db.schema.dropIndex('workflows_schedule_next_at').execute();
  for (const column of [...COLUMNS].reverse()) await db.schema.alterTable('workflows').dropColumn(column).execute();
}
