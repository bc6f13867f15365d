import {
  acceptedJobSchema,
  type DataCollection,
  type DataFormat,
  dataCollectionSchema,
  fileSchema,
  upsertAnswerSchema,
  userSchema,
  workflowSchema,
} from '@service/common';
import { z } from 'zod';
import type { ApiClient } from '../api/client.js';
import { type UploadProgress, uploadWithProgress } from '../api/upload.js';
import { NEW_WORKFLOW_NAME, patternFor, UPLOAD_RUN, uploadPathFor } from './plan.js';

/** What Create makes: the collection, in a workflow of the project (a new one when `workflowId` is null). */
export interface AddDataPlan {
  projectId: string;
  workflowId: string | null;
  tag: string;
  format: DataFormat;
  readOptions: Record<string, unknown>;
  files: File[];
}

/** Where Create is; shown while it runs, and kept when a step fails. */
export type AddDataStep =
  | { step: 'workflow' }
  | { step: 'collection' }
  | { step: 'upload'; index: number; count: number; progress: UploadProgress }
  | { step: 'build' };

/** How the table is being built: by a job to follow, or already done. */
export type Building = { jobId: string } | { rows: number };

const upsertStartedSchema = z.union([acceptedJobSchema, upsertAnswerSchema]);

/**
 * Creates what Add data promised, one step after the other: the workflow if needed, the
 * collection, each file's upload (with its progress), then the table's build, as a job when the
 * server runs jobs. A step that fails stops here and throws; what was made stays (the collection
 * then shows on the project page, where it can be fixed or deleted).
 */
export async function addData(
  api: ApiClient,
  plan: AddDataPlan,
  onStep: (step: AddDataStep) => void,
  onCollection: (collection: DataCollection) => void,
): Promise<Building> {
  let workflowId = plan.workflowId;
  if (workflowId === null) {
    onStep({ step: 'workflow' });
    const workflow = await api.request(`/projects/${plan.projectId}/workflows`, workflowSchema, {
      json: { name: NEW_WORKFLOW_NAME },
    });
    workflowId = workflow.workflow_id;
  }
  onStep({ step: 'collection' });
  const collection = await api.request(`/workflows/${workflowId}/datacollections`, dataCollectionSchema, {
    json: {
      tag: plan.tag,
      type: 'table',
      format: plan.format,
      pattern: patternFor(plan.tag),
      read_options: plan.readOptions,
    },
  });
  onCollection(collection);
  for (const [index, file] of plan.files.entries()) {
    const progress = (loaded: number, total: number) =>
      onStep({ step: 'upload', index, count: plan.files.length, progress: { loaded, total } });
    progress(0, file.size);
    // A cheap authenticated call first, so an expired access token is refreshed before the upload.
    if (api.tokens.get() !== null) await api.request('/auth/me', userSchema);
    const form = new FormData();
    form.append('run', UPLOAD_RUN);
    form.append('path', uploadPathFor(plan.tag, file.name));
    form.append('file', file, file.name);
    await uploadWithProgress({
      path: `/datacollections/${collection.data_collection_id}/files`,
      form,
      schema: fileSchema,
      tokens: api.tokens,
      onProgress: (sent) => progress(sent.loaded, sent.total || file.size),
    }).done;
  }
  onStep({ step: 'build' });
  const started = await api.request('/deltatables/upsert', upsertStartedSchema, {
    json: { data_collection_id: collection.data_collection_id, async_mode: true },
  });
  return 'job_id' in started ? { jobId: started.job_id } : { rows: started.rows };
}
