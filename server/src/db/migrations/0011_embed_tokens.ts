import type { Kysely } from 'kysely';

// Embed tokens (docs/architecture.md "Export"): read-only links to one dashboard or one of its
// components. Only the secret's SHA-256 is kept; a lookup by it is a unique-index probe.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('embed_tokens')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('dashboard_id', 'text', (col) => col.notNull().references('dashboards.id').onDelete('cascade'))
    /** null: every component of the dashboard. */
    .addColumn('component_id', 'text')
    .addColumn('token_hash', 'text', (col) => col.notNull().unique())
    /** JSON: the fixed filters (DashboardFilter[]) and the pinned versions (AsOf or null). */
    .addColumn('filters', 'text', (col) => col.notNull())
    .addColumn('as_of', 'text')
    .addColumn('created_by', 'text', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('embed_tokens_dashboard_idx')
    .on('embed_tokens')
    .columns(['dashboard_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('embed_tokens').execute();
}
