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
 * What Create has made so far, kept between attempts: trying again after a failure goes on from
 * there instead of making a second workflow or collection.
 */
export interface Made {
  workflowId: string | null;
  collection: DataCollection | null;
  /** How many of the files are uploaded. */
  uploaded: number;
}

export const NOTHING_MADE: Made = { workflowId: null, collection: null, uploaded: 0 };

/**
 * Creates what Add data promised, one step after the other: the workflow if needed, the
 * collection, each file's upload (with its progress), then the table's build, as a job when the
 * server runs jobs. A step that fails stops here and throws; what was made stays in `made`, and a
 * later attempt goes on from there, with the collection's read options as chosen by then.
 */
export async function addData(
  api: ApiClient,
  plan: AddDataPlan,
  made: Made,
  onStep: (step: AddDataStep, made: Made) => void,
): Promise<Building> {
  if (made.workflowId === null) made.workflowId = plan.workflowId;
  if (made.workflowId === null) {
    onStep({ step: 'workflow' }, made);
    const workflow = await api.request(`/projects/${plan.projectId}/workflows`, workflowSchema, {
      json: { name: NEW_WORKFLOW_NAME },
    });
    made.workflowId = workflow.workflow_id;
  }
  onStep({ step: 'collection' }, made);
  made.collection =
    made.collection === null
      ? await api.request(`/workflows/${made.workflowId}/datacollections`, dataCollectionSchema, {
          json: {
            tag: plan.tag,
            type: 'table',
            format: plan.format,
            pattern: patternFor(plan.tag),
            read_options: plan.readOptions,
          },
        })
      : await api.request(`/datacollections/${made.collection.data_collection_id}`, dataCollectionSchema, {
          method: 'PATCH',
          json: { read_options: plan.readOptions },
        });
  const collectionId = made.collection.data_collection_id;
  for (; made.uploaded < plan.files.length; made.uploaded += 1) {
    await upload(api, plan, collectionId, made, onStep);
  }
  onStep({ step: 'build' }, made);
  // Overwrite: the table is exactly these files read as chosen, also after a failed attempt.
  const started = await api.request('/deltatables/upsert', upsertStartedSchema, {
    json: { data_collection_id: collectionId, async_mode: true, overwrite: true },
  });
  return 'job_id' in started ? { jobId: started.job_id } : { rows: started.rows };
}

async function upload(
  api: ApiClient,
  plan: AddDataPlan,
  collectionId: string,
  made: Made,
  onStep: (step: AddDataStep, made: Made) => void,
): Promise<void> {
  const index = made.uploaded;
  const file = plan.files[index] as File;
  const progress = (loaded: number, total: number) =>
    onStep({ step: 'upload', index, count: plan.files.length, progress: { loaded, total } }, made);
  progress(0, file.size);
  // A cheap authenticated call first, so an expired access token is refreshed before the upload.
  if (api.tokens.get() !== null) await api.request('/auth/me', userSchema);
  const form = new FormData();
  form.append('run', UPLOAD_RUN);
  form.append('path', uploadPathFor(plan.tag, file.name));
  form.append('file', file, file.name);
  await uploadWithProgress({
    path: `/datacollections/${collectionId}/files`,
    form,
    schema: fileSchema,
    tokens: api.tokens,
    onProgress: (sent) => progress(sent.loaded, sent.total || file.size),
  }).done;
}
