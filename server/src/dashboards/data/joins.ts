import type { Kysely } from 'kysely';
import type { FilterJoin } from '../../analytics/index.js';
import type { Tables } from '../../db/tables.js';

/** The joins a project declares, which carry a dashboard's filters between its collections. */
export async function projectJoins(db: Kysely<Tables>, projectId: string): Promise<FilterJoin[]> {
  const rows = await db
    .selectFrom('joins')
    .select(['name', 'left_data_collection_id', 'right_data_collection_id', 'on_columns'])
    .where('project_id', '=', projectId)
    .orderBy('name')
    .execute();
  return rows.map((row) => ({
    name: row.name,
    left: row.left_data_collection_id,
    right: row.right_data_collection_id,
    on: JSON.parse(row.on_columns) as string[],
  }));
}
