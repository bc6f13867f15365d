import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { RunsTable, Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';

/**
 * A workflow's run by tag, registered if new (uploads and scans both create runs this way). Safe
 * under concurrent callers: the insert yields to the unique (workflow_id, tag) key.
 */
export async function registerRun(
  db: Kysely<Tables>,
  workflowId: string,
  tag: string,
  location: string | null,
): Promise<{ id: string; location: string | null }> {
  const now = isoNow();
  await db
    .insertInto('runs')
    .values({
      id: uuidv7(),
      workflow_id: workflowId,
      tag,
      location,
      status: 'registered',
      run_configuration_id: null,
      started_at: null,
      finished_at: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['workflow_id', 'tag']).doNothing())
    .execute();
  return db
    .selectFrom('runs')
    .select(['id', 'location'])
    .where('workflow_id', '=', workflowId)
    .where('tag', '=', tag)
    .executeTakeFirstOrThrow();
}

/**
 * Every other query on `runs` (docs/architecture.md "Table owners"). Each function takes the
 * database or a transaction, so callers keep their work atomic.
 */
export const runRows = {
  find(db: Kysely<Tables>, id: string): Promise<RunsTable | undefined> {
    return db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** The runs of one workflow, filtered only: `paginate` adds the order and the page. */
  ofWorkflowFiltered(db: Kysely<Tables>, workflowId: string) {
    return db.selectFrom('runs').where('workflow_id', '=', workflowId);
  },

  /** The workflow's runs that were found in a location (uploaded runs have none). */
  located(db: Kysely<Tables>, workflowId: string): Promise<Pick<RunsTable, 'id' | 'location'>[]> {
    return db
      .selectFrom('runs')
      .select(['id', 'location'])
      .where('workflow_id', '=', workflowId)
      .where('location', 'is not', null)
      .execute();
  },

  async idsOfWorkflows(db: Kysely<Tables>, workflowIds: readonly string[]): Promise<string[]> {
    if (workflowIds.length === 0) return [];
    const rows = await db
      .selectFrom('runs')
      .select('id')
      .where('workflow_id', 'in', [...workflowIds])
      .execute();
    return rows.map((row) => row.id);
  },

  async moveTo(db: Kysely<Tables>, id: string, location: string | null): Promise<void> {
    await db.updateTable('runs').set({ location, updated_at: isoNow() }).where('id', '=', id).execute();
  },

  async delete(db: Kysely<Tables>, id: string): Promise<void> {
    await db.deleteFrom('runs').where('id', '=', id).execute();
  },
};
