import type { IngestionRun } from '@service/common';
import type { IngestionRunsTable } from '../db/tables.js';

export type Step = IngestionRun['steps'][number];
export type CollectionResult = IngestionRun['data_collections'][number];

/** Absolute paths in a text, for callers who may not see the server's folders. */
const PATHS = /(?:\/[^\s/:;,'"()]+)+\/?/g;
const hidePaths = (text: string | null) => (text === null ? null : text.replace(PATHS, '<path>'));

/** An ingestion run as the API shows it; without paths or host for callers who cannot edit. */
export function presentRun(row: IngestionRunsTable, canEdit: boolean): IngestionRun {
  const scrub = (text: string | null) => (canEdit ? text : hidePaths(text));
  const steps = (JSON.parse(row.steps) as Step[]).map((step) => ({ ...step, detail: scrub(step.detail) }));
  const collections = (JSON.parse(row.data_collections) as CollectionResult[]).map((result) => ({
    ...result,
    error: scrub(result.error),
  }));
  const error = row.error === null ? null : (JSON.parse(row.error) as { code: string; message: string });
  return {
    run_id: row.id,
    project_id: row.project_id,
    job_id: row.job_id,
    status: row.status,
    trigger: row.trigger,
    triggered_by: row.triggered_by,
    started_at: row.started_at,
    finished_at: row.finished_at,
    overwrite: row.overwrite === 1,
    steps,
    data_collections: collections,
    error: error === null ? null : { ...error, message: scrub(error.message) ?? '' },
    ...(canEdit ? { source_paths: JSON.parse(row.source_paths) as string[], host: row.host } : {}),
  };
}
