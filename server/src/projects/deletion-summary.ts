import type { ProjectDeletionSummary } from '@service/common';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { dataCollectionRows } from '../tables/data-collections.js';
import { embedTokenRows } from '../tables/embed-tokens.js';
import { fileRows } from '../tables/files.js';
import { workflowRows } from '../tables/workflows.js';

/**
 * What deleting a project takes with it, counted in the database (`GET /projects/{id}/deletion-summary`),
 * so the person deleting it sees the size of what goes before confirming.
 */
export async function projectDeletionSummary(db: Kysely<Tables>, projectId: string): Promise<ProjectDeletionSummary> {
  const count = (query: { executeTakeFirstOrThrow(): Promise<{ total: number | string | bigint }> }) =>
    query.executeTakeFirstOrThrow().then((row) => Number(row.total));
  const [workflows, collections, files, dashboards, embedTokens] = await Promise.all([
    workflowRows.countInProject(db, projectId),
    dataCollectionRows.countInProject(db, projectId),
    fileRows.countInProject(db, projectId),
    count(
      db
        .selectFrom('dashboards')
        .select((eb) => eb.fn.countAll().as('total'))
        .where('project_id', '=', projectId),
    ),
    embedTokenRows.countActiveInProject(db, projectId, isoNow()),
  ]);
  return { workflows, data_collections: collections, files, dashboards, active_embed_tokens: embedTokens };
}
