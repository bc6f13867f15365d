import { type Kysely, sql } from 'kysely';

// Who declared (or last changed) a workflow's data location, so every scan can re-check that
// account as well as the one that started the ingestion (docs/auth.md, "Data locations").
// No foreign key: a removed declarer must stay recorded, so that the scan refuses the location
// instead of forgetting whose it was (and SQLite cannot drop a column that is in a foreign key).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workflows').addColumn('locations_declared_by', 'text').execute();
  // Who declared the existing locations is unknown. Conservatively, a project owner answers for them
  // (its creator while still an owner, else the first owner by id): an owner could have set them, and
  // the owner is checked like any declarer — with SERVICE_INGESTION_USER_LOCATIONS=false a non-admin
  // owner's locations scan nothing until an admin declares them again. No owner: no declarer, and
  // the location scans nothing until someone declares it again.
  await sql`
    update workflows set locations_declared_by = (
      select members.user_id
      from project_members members
      join projects on projects.id = members.project_id
      where members.project_id = workflows.project_id and members.role = 'owner'
      order by case when members.user_id = projects.created_by then 0 else 1 end, members.user_id
      limit 1
    )
    where data_location is not null
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workflows').dropColumn('locations_declared_by').execute();
}
