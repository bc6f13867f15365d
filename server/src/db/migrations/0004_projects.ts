import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('is_public', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_by', 'text', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  // "Unique per owner": the name is unique among the projects one user created.
  await db.schema
    .createIndex('projects_creator_name_idx')
    .on('projects')
    .columns(['created_by', 'name'])
    .unique()
    .execute();
  await db.schema.createIndex('projects_public_idx').on('projects').columns(['is_public', 'created_at']).execute();

  await db.schema
    .createTable('project_members')
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (col) => col.notNull().check(sql`role in ('owner', 'editor', 'viewer')`))
    .addPrimaryKeyConstraint('project_members_pk', ['project_id', 'user_id'])
    .execute();
  await db.schema.createIndex('project_members_user_idx').on('project_members').column('user_id').execute();

  await db.schema
    .createTable('workflows')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('engine', 'text')
    .addColumn('data_location', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addUniqueConstraint('workflows_project_name_unique', ['project_id', 'name'])
    .execute();

  await db.schema
    .createTable('run_configurations')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('workflow_id', 'text', (col) => col.notNull().references('workflows.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('version', 'integer', (col) => col.notNull())
    .addColumn('parameters', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addUniqueConstraint('run_configurations_version_unique', ['workflow_id', 'name', 'version'])
    .execute();

  await db.schema
    .createTable('runs')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('workflow_id', 'text', (col) => col.notNull().references('workflows.id').onDelete('cascade'))
    .addColumn('tag', 'text', (col) => col.notNull())
    .addColumn('location', 'text')
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('run_configuration_id', 'text', (col) => col.references('run_configurations.id').onDelete('set null'))
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addUniqueConstraint('runs_workflow_tag_unique', ['workflow_id', 'tag'])
    .execute();

  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('run_id', 'text', (col) => col.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('path', 'text', (col) => col.notNull())
    .addColumn('size', 'bigint', (col) => col.notNull())
    .addColumn('sha256', 'text', (col) => col.notNull())
    .addColumn('modified_at', 'text', (col) => col.notNull())
    .addColumn('content_type', 'text', (col) => col.notNull())
    .addColumn('origin', 'text', (col) => col.notNull())
    /** Where the content is: a storage key for uploads, an absolute path for scanned files. */
    .addColumn('storage_key', 'text')
    .addColumn('source_path', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addUniqueConstraint('files_run_path_unique', ['run_id', 'path'])
    .execute();

  await db.schema
    .createTable('data_collections')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('workflow_id', 'text', (col) => col.notNull().references('workflows.id').onDelete('cascade'))
    .addColumn('tag', 'text', (col) => col.notNull())
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('pattern', 'text', (col) => col.notNull())
    .addColumn('format', 'text', (col) => col.notNull())
    .addColumn('read_options', 'text', (col) => col.notNull())
    .addColumn('keys', 'text')
    .addColumn('columns', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .addUniqueConstraint('data_collections_workflow_tag_unique', ['workflow_id', 'tag'])
    .execute();

  await db.schema
    .createTable('joins')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('project_id', 'text', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('left_data_collection_id', 'text', (col) =>
      col.notNull().references('data_collections.id').onDelete('cascade'),
    )
    .addColumn('right_data_collection_id', 'text', (col) =>
      col.notNull().references('data_collections.id').onDelete('cascade'),
    )
    .addColumn('on_columns', 'text', (col) => col.notNull())
    .addColumn('how', 'text', (col) => col.notNull())
    .addUniqueConstraint('joins_project_name_unique', ['project_id', 'name'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'joins',
    'data_collections',
    'files',
    'runs',
    'run_configurations',
    'workflows',
    'project_members',
    'projects',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
