import type { JoinColumnPair } from '@service/common';
import type { Kysely, Updateable } from 'kysely';
import type { JoinsTable, Tables } from '../db/tables.js';

/**
 * `on_columns` as stored: a JSON list of the key columns, each a name both sides have or a
 * `[left, right]` pair when they differ (docs/project-yaml.md "Joins"). Rows written before
 * differently named columns existed are lists of names, read the same way.
 */
export function encodeJoinColumns(pairs: readonly JoinColumnPair[]): string {
  return JSON.stringify(pairs.map(([left, right]) => (left === right ? left : [left, right])));
}

export function decodeJoinColumns(text: string): JoinColumnPair[] {
  const items = JSON.parse(text) as (string | [string, string])[];
  return items.map((item) => (typeof item === 'string' ? ([item, item] as const) : ([item[0], item[1]] as const)));
}

/**
 * Every query on `joins` (docs/architecture.md "Table owners"). Each function takes the database
 * or a transaction, so callers keep their work atomic.
 */
export const joinRows = {
  find(db: Kysely<Tables>, id: string): Promise<JoinsTable | undefined> {
    return db.selectFrom('joins').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** The joins of one project, filtered only: `paginate` adds the order and the page. */
  ofProjectFiltered(db: Kysely<Tables>, projectId: string) {
    return db.selectFrom('joins').where('project_id', '=', projectId);
  },

  /** The joins of one project, by name. */
  ofProject(db: Kysely<Tables>, projectId: string): Promise<JoinsTable[]> {
    return db.selectFrom('joins').selectAll().where('project_id', '=', projectId).orderBy('name').execute();
  },

  /** The id of the project's join with this name. */
  async idByName(db: Kysely<Tables>, projectId: string, name: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('joins')
      .select('id')
      .where('project_id', '=', projectId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row?.id;
  },

  async insert(db: Kysely<Tables>, row: JoinsTable): Promise<void> {
    await db.insertInto('joins').values(row).execute();
  },

  async update(db: Kysely<Tables>, id: string, changes: Updateable<JoinsTable>): Promise<void> {
    await db.updateTable('joins').set(changes).where('id', '=', id).execute();
  },

  async delete(db: Kysely<Tables>, id: string): Promise<void> {
    await db.deleteFrom('joins').where('id', '=', id).execute();
  },
};
