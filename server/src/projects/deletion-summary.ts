import type { ProjectDeletionSummary } from '@service/common';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { dashboardRows } from '../tables/dashboards.js';
import { dataCollectionRows } from '../tables/data-collections.js';
import { embedTokenRows } from '../tables/embed-tokens.js';
import { fileRows } from '../tables/files.js';
import { workflowRows } from '../tables/workflows.js';

/**
 * What deleting a project takes with it, counted in the database (`GET /projects/{id}/deletion-summary`),
 * so the person deleting it sees the size of what goes before confirming.
 */
export async function projectDeletionSummary(db: Kysely<Tables>, projectId: string): Promise<ProjectDeletionSummary> {
  const [workflows, collections, files, dashboards, embedTokens] = await Promise.all([
    workflowRows.countInProject(db, projectId),
    dataCollectionRows.countInProject(db, projectId),
    fileRows.countInProject(db, projectId),
    dashboardRows.countInProject(db, projectId),
    embedTokenRows.countActiveInProject(db, projectId, isoNow()),
  ]);
  return { workflows, data_collections: collections, files, dashboards, active_embed_tokens: embedTokens };
}
