import { z } from 'zod';
import { listAnswerSchema } from './pagination.js';

/** The kinds users see: each is created by the route that owns the work (spec §2). */
export const jobKindSchema = z.enum(['deltatable.upsert', 'project.ingest']);
export type JobKind = z.infer<typeof jobKindSchema>;
export const jobStatusSchema = z.enum(['pending', 'running', 'success', 'failed', 'cancelled']);
export type JobStatus = z.infer<typeof jobStatusSchema>;

export const jobSchema = z
  .object({
    job_id: z.string(),
    kind: jobKindSchema,
    status: jobStatusSchema,
    step: z.string().nullable(),
    detail: z.string().nullable(),
    /** 0..1, or null when the task cannot tell. */
    progress: z.number().nullable(),
    result: z.unknown().optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    project_id: z.string().nullable(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    updated_at: z.string(),
    /** Seconds to wait before polling again; null once the job has ended. */
    poll_after_seconds: z.number().int().nullable(),
  })
  .meta({ id: 'Job' });
export type Job = z.infer<typeof jobSchema>;
export const jobListSchema = listAnswerSchema(jobSchema).meta({ id: 'JobList' });

export const jobListQuerySchema = z.strictObject({
  kind: jobKindSchema.optional(),
  status: jobStatusSchema.optional(),
  project_id: z.string().min(1).max(64).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  skip: z.coerce.number().int().min(0).default(0),
});

export const acceptedJobSchema = z.object({ job_id: z.string() }).meta({ id: 'AcceptedJob' });

export const ingestionStepSchema = z.object({
  name: z.string(),
  status: z.enum(['running', 'success', 'failed', 'skipped', 'cancelled']),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  detail: z.string().nullable(),
});
export const ingestionRunSchema = z
  .object({
    run_id: z.string(),
    project_id: z.string(),
    job_id: z.string().nullable(),
    status: z.enum(['pending', 'running', 'success', 'partial', 'failed', 'cancelled']),
    /** `schedule` and `watch`: started by the workflow's schedule or by a change in its watched folders. */
    trigger: z.enum(['browser', 'api', 'cli', 'schedule', 'watch']),
    triggered_by: z.string().nullable(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    overwrite: z.boolean(),
    steps: z.array(ingestionStepSchema),
    data_collections: z.array(
      z.object({
        data_collection_id: z.string(),
        tag: z.string(),
        status: z.enum(['success', 'failed', 'skipped']),
        version: z.number().int().nullable(),
        rows: z.number().int().nullable(),
        error: z.string().nullable(),
      }),
    ),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    /** Only for callers who can edit the project. */
    source_paths: z.array(z.string()).optional(),
    host: z.string().nullable().optional(),
  })
  .meta({ id: 'IngestionRun' });
export type IngestionRun = z.infer<typeof ingestionRunSchema>;
export const ingestionRunListSchema = listAnswerSchema(ingestionRunSchema).meta({ id: 'IngestionRunList' });

export const triggerAnswerSchema = z
  .object({ job_id: z.string().nullable(), run_id: z.string(), already_running: z.boolean() })
  .meta({ id: 'IngestionTriggered' });
export const triggerStatusSchema = z
  .object({
    enabled: z.boolean(),
    available: z.boolean(),
    reason: z.enum(['disabled', 'jobs_disabled', 'forbidden', 'no_data']).nullable(),
  })
  .meta({ id: 'IngestionTriggerStatus' });
export const triggerQuerySchema = z.strictObject({
  overwrite: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((value) => value === 'true' || value === '1'),
});
export const ingestRequestSchema = z.strictObject({
  overwrite: z.boolean().optional(),
  async_mode: z.boolean().optional(),
  source: z.enum(['api', 'cli']).optional(),
});
export const ingestAnswerSchema = triggerAnswerSchema
  .extend({ run: ingestionRunSchema.optional() })
  .meta({ id: 'IngestAnswer' });
