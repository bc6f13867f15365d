import type { Kysely } from 'kysely';

// A synchronous ingestion run (no job) holds a lease its server renews while it works, like a
// job's (docs/jobs.md "Ingestion"): a run whose server was killed is ended once its lease expired,
// instead of holding its project's one active slot for good. NULL for runs with a job (the job
// holds the lease) and for runs written before this migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ingestion_runs').addColumn('lease_expires_at', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ingestion_runs').dropColumn('lease_expires_at').execute();
}
