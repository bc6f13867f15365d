import type { Kysely } from 'kysely';

// Dashboards a template generated (docs/templates.md "Re-running"): `generated_from` finds one
// again on a later run (`<pipeline>: <title>`); `generated_fingerprint` is the SHA-256 of the
// content that run wrote, so a later run can tell whether a person edited it since; an edited one
// is never overwritten, the new generated content waits in `generated_offer` (JSON) from
// `generated_offer_at`, with the template it came from in `generated_offer_template`.
const COLUMNS = [
  'generated_from',
  'generated_fingerprint',
  'generated_offer',
  'generated_offer_at',
  'generated_offer_template',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite adds one at a time.
  for (const column of COLUMNS) await db.schema.alterTable('dashboards').addColumn(column, 'text').execute();
  await db.schema
    .createIndex('dashboards_generated_from')
    .on('dashboards')
    .columns(['project_id', 'generated_from'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('dashboards_generated_from').execute();
  for (const column of COLUMNS) await db.schema.alterTable('dashboards').dropColumn(column).execute();
}
