import type { Kysely } from 'kysely';

// `queue_probe_runs` belonged to the `jobs` benchmark's `queue.probe` kind, which is no longer part
// of the product: the benchmark (and the fault tests) create the table themselves when they need it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('queue_probe_runs').ifExists().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('queue_probe_runs')
    .addColumn('job_id', 'text', (col) => col.notNull().references('jobs.job_id').onDelete('cascade'))
    .addColumn('worker', 'text', (col) => col.notNull())
    .addColumn('attempt', 'integer', (col) => col.notNull())
    .addColumn('ran_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('queue_probe_runs_job_idx').on('queue_probe_runs').column('job_id').execute();
}
