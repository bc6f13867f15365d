import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One-time sign-in tickets: magic links and the OAuth hand-off. Only the SHA-256 is stored.
  await db.schema
    .createTable('login_tickets')
    .addColumn('ticket_hash', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (col) => col.notNull())
    .addColumn('next_path', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('login_tickets_user_id_idx').on('login_tickets').column('user_id').execute();

  // OAuth authorization requests in flight, so any replica can finish a flow another one started.
  await db.schema
    .createTable('oauth_states')
    .addColumn('state_hash', 'text', (col) => col.primaryKey())
    .addColumn('code_verifier', 'text', (col) => col.notNull())
    .addColumn('nonce', 'text', (col) => col.notNull())
    .addColumn('next_path', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .addColumn('used_at', 'text')
    .execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('at', 'text', (col) => col.notNull())
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('actor_user_id', 'text')
    .addColumn('subject_user_id', 'text')
    .addColumn('subject_email', 'text')
    .addColumn('client_address', 'text')
    .addColumn('details', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('audit_events_at_idx').on('audit_events').column('at').execute();
  await db.schema.createIndex('audit_events_type_idx').on('audit_events').columns(['type', 'at']).execute();
  await db.schema
    .createIndex('users_temporary_expiry_idx')
    .on('users')
    .columns(['is_temporary', 'expires_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('users_temporary_expiry_idx').execute();
  for (const table of ['audit_events', 'oauth_states', 'login_tickets']) await db.schema.dropTable(table).execute();
}
