import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The job queue (docs/architecture.md "Jobs"): workers claim rows, hold a lease, report progress here.
  await db.schema
    .createTable('jobs')
    .addColumn('job_id', 'text', (col) => col.primaryKey())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('step', 'text')
    .addColumn('detail', 'text')
    .addColumn('progress', 'real')
    .addColumn('result', 'text')
    .addColumn('error', 'text')
    .addColumn('user_id', 'text', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('project_id', 'text', (col) => col.references('projects.id').onDelete('cascade'))
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (col) => col.notNull().defaultTo(3))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('cancel_requested', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('jobs_status_created_idx').on('jobs').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('jobs_user_created_idx').on('jobs').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('jobs_project_idx').on('jobs').columns(['project_id', 'kind', 'status']).execute();

  await db.schema
    .createTable('ingestion_runs')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('job_id', 'text')
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('trigger', 'text', (col) => col.notNull())
    .addColumn('triggered_by', 'text', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('overwrite', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('steps', 'text', (col) => col.notNull())
    .addColumn('data_collections', 'text', (col) => col.notNull())
    .addColumn('error', 'text')
    .addColumn('source_paths', 'text', (col) => col.notNull())
    .addColumn('host', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema
    .createIndex('ingestion_runs_project_idx')
    .on('ingestion_runs')
    .columns(['project_id', 'created_at'])
    .execute();
  // At most one pending or running ingestion per project, whichever replica triggers it.
  await db.schema
    .createIndex('ingestion_runs_one_active_idx')
    .on('ingestion_runs')
    .column('project_id')
    .unique()
    .where(sql.ref('status'), 'in', sql`('pending', 'running')`)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ingestion_runs').execute();
  await db.schema.dropTable('jobs').execute();
}
