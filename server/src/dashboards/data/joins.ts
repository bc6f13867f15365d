import type { Kysely } from 'kysely';
import type { FilterJoin } from '../../analytics/index.js';
import type { Tables } from '../../db/tables.js';
import { decodeJoinColumns, joinRows } from '../../tables/joins.js';

/** The joins a project declares, which carry a dashboard's filters between its collections. */
export async function projectJoins(db: Kysely<Tables>, projectId: string): Promise<FilterJoin[]> {
  const rows = await joinRows.ofProject(db, projectId);
  return rows.map((row) => ({
    name: row.name,
    left: row.left_data_collection_id,
    right: row.right_data_collection_id,
    on: decodeJoinColumns(row.on_columns),
  }));
}
