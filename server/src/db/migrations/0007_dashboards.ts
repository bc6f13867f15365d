import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Dashboards (docs/architecture.md "Dashboards"): a project's components on a grid, shared like projects.
  await db.schema
    .createTable('dashboards')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('is_public', 'integer', (col) => col.notNull().defaultTo(0))
    /** JSON arrays, validated by the shared schemas on the way in. */
    .addColumn('components', 'text', (col) => col.notNull())
    .addColumn('layout', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('dashboards_project_idx')
    .on('dashboards')
    .columns(['project_id', 'created_at'])
    .execute();
  await db.schema.createIndex('dashboards_public_idx').on('dashboards').columns(['is_public', 'created_at']).execute();

  await db.schema
    .createTable('dashboard_members')
    .addColumn('dashboard_id', 'text', (col) => col.notNull().references('dashboards.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (col) => col.notNull().check(sql`role in ('owner', 'editor', 'viewer')`))
    .addPrimaryKeyConstraint('dashboard_members_pk', ['dashboard_id', 'user_id'])
    .execute();
  await db.schema.createIndex('dashboard_members_user_idx').on('dashboard_members').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('dashboard_members').execute();
  await db.schema.dropTable('dashboards').execute();
}
