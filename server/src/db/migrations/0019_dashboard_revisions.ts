import { type Kysely, sql } from 'kysely';

// Dashboard history (docs/dashboards.md "History"): every save of a dashboard's content keeps a
// revision, numbered as the dashboard's `revision` counter (migration 0012) after that save, with
// who saved it and a JSON summary of what changed. Existing dashboards start their history with
// their content as it is, at their current revision.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dashboard_revisions')
    .addColumn('dashboard_id', 'text', (col) => col.notNull().references('dashboards.id').onDelete('cascade'))
    .addColumn('revision', 'integer', (col) => col.notNull())
    .addColumn('saved_at', 'text', (col) => col.notNull())
    .addColumn('saved_by', 'text', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull())
    .addColumn('tabs', 'text', (col) => col.notNull())
    .addColumn('components', 'text', (col) => col.notNull())
    .addColumn('layout', 'text', (col) => col.notNull())
    .addColumn('colors', 'text', (col) => col.notNull())
    /** JSON RevisionSummary (common/src/dashboard-revisions.ts). */
    .addColumn('summary', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('dashboard_revisions_pk', ['dashboard_id', 'revision'])
    .execute();
  const created = JSON.stringify({
    created: true,
    restored_from: null,
    title_changed: false,
    description_changed: false,
    components_added: [],
    components_removed: [],
    components_changed: [],
    layout_changed: false,
    tabs_changed: false,
    colors_changed: false,
  });
  await sql`
    INSERT INTO dashboard_revisions
      (dashboard_id, revision, saved_at, saved_by, title, description, tabs, components, layout, colors, summary)
    SELECT id, revision, updated_at, created_by, title, description, tabs, components, layout, colors, ${created}
    FROM dashboards`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('dashboard_revisions').execute();
}
