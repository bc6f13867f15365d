import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Tables } from '../db/tables.js';
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
