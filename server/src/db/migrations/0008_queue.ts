import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The claim takes the oldest pending job in (created_at, job_id) order. An index of just the
  // pending rows in that order makes it one index probe however many jobs have ended, and a job
  // leaves it when claimed; (status, created_at) made the database sort every pending job that
  // shares a millisecond on each claim (thousands when a batch is enqueued in one transaction).
  await db.schema
    .createIndex('jobs_pending_idx')
    .on('jobs')
    .columns(['created_at', 'job_id'])
    .where(sql.ref('status'), '=', sql.lit('pending'))
    .execute();
  // Each run of a `queue.probe` job that asked to be recorded: one row per execution, with no
  // unique key, so a job that ran twice shows up twice (the queue's exactly-once fault test).
  await db.schema
    .createTable('queue_probe_runs')
    .addColumn('job_id', 'text', (col) => col.notNull().references('jobs.job_id').onDelete('cascade'))
    .addColumn('worker', 'text', (col) => col.notNull())
    .addColumn('attempt', 'integer', (col) => col.notNull())
    .addColumn('ran_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('queue_probe_runs_job_idx').on('queue_probe_runs').column('job_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('queue_probe_runs').execute();
  await db.schema.dropIndex('jobs_pending_idx').execute();
}
