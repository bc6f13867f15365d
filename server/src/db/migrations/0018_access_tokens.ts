import type { Kysely } from 'kysely';

// Personal access tokens (docs/auth.md "Personal access tokens"): long-lived bearer tokens for
// pipelines and the CLI. Only the secret's SHA-256 is kept; a lookup by it is a unique-index
// probe. A deleted account takes its tokens with it (cascade).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('access_tokens')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('token_hash', 'text', (col) => col.notNull().unique())
    /** `read` or `write`. */
    .addColumn('scope', 'text', (col) => col.notNull())
    /** JSON string[] of project ids, or null: every project of its user. */
    .addColumn('project_ids', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('last_used_from', 'text')
    .execute();
  await db.schema
    .createIndex('access_tokens_user_idx')
    .on('access_tokens')
    .columns(['user_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('access_tokens').execute();
}
