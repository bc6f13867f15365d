import { z } from 'zod';
import { type CollectionType, collectionTypeSchema, type DataFormat, formatSchema } from './data-collections.js';
import { derivedColumnsSchema } from './derived-columns.js';
import { checkJoinColumns, joinColumnFields } from './join-columns.js';
import { listAnswerSchema } from './pagination.js';
import { nameSchema, tagSchema } from './projects.js';

export const dataLocationSchema = z.strictObject({
  structure: z.enum(['flat', 'runs']),
  locations: z.array(z.string().min(1).max(4096)).min(1).max(100),
  runs_regex: z.string().min(1).max(1000).optional(),
});
export type DataLocation = z.infer<typeof dataLocationSchema>;

export const engineSchema = z.strictObject({
  name: z.string().min(1).max(100),
  version: z.string().max(100).optional(),
});

/**
 * When a workflow's ingestion starts by itself (docs/data.md "Schedules and watched folders"): a
 * five-field cron expression (minute hour day-of-month month day-of-week) read in an IANA time
 * zone, UTC when absent. The server checks that it names real times (croner) when it is saved.
 */
export const scheduleSchema = z.strictObject({
  cron: z
    .string()
    .max(200)
    .regex(/^\s*\S+(\s+\S+){4}\s*$/, 'five fields: minute hour day-of-month month day-of-week, e.g. "0 3 * * *"')
    .describe('five-field cron expression, e.g. "0 3 * * *" (03:00 every day)'),
  timezone: z.string().min(1).max(100).optional().describe('IANA time zone, e.g. "Europe/Paris"; UTC when absent'),
});
export type Schedule = z.infer<typeof scheduleSchema>;

/** A watched workflow's locations are listed every `interval_seconds`; a change of names, sizes or times starts an ingestion. */
export const watchSchema = z.strictObject({
  interval_seconds: z.number().int().min(10).max(86_400),
});
export type Watch = z.infer<typeof watchSchema>;

export const workflowSchema = z
  .object({
    workflow_id: z.string(),
    project_id: z.string(),
    name: z.string(),
    engine: z.object({ name: z.string(), version: z.string().optional() }).nullable(),
    data_location: z
      .object({
        structure: z.enum(['flat', 'runs']),
        /** Absolute server paths: only for those who may edit the project, absent for its readers. */
        locations: z.array(z.string()).optional(),
        runs_regex: z.string().optional(),
      })
      .nullable(),
    schedule: scheduleSchema.nullable(),
    watch: watchSchema.nullable(),
    /** When the schedule or the watch next looks (null with neither). */
    next_check_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Workflow' });
export type Workflow = z.infer<typeof workflowSchema>;
export const workflowListSchema = listAnswerSchema(workflowSchema).meta({ id: 'WorkflowList' });

export const createWorkflowRequestSchema = z.strictObject({
  name: nameSchema,
  engine: engineSchema.nullish(),
  data_location: dataLocationSchema.nullish(),
  schedule: scheduleSchema.nullish(),
  watch: watchSchema.nullish(),
});
export const updateWorkflowRequestSchema = createWorkflowRequestSchema
  .partial()
  .refine((body) => Object.keys(body).length > 0, { message: 'give at least one field to change' });

/** A MultiQC collection reads MultiQC's parquet form of the report (`multiqc.parquet`, MultiQC ≥ 1.25). */
export const multiqcFormatRule = {
  check: (body: { type?: CollectionType; format?: DataFormat }) =>
    body.type !== 'multiqc' || body.format === undefined || body.format === 'parquet',
  message:
    'a multiqc collection reads the report as parquet (multiqc.parquet, MultiQC 1.25 or later): set format: parquet',
};

/**
 * The column types a person picks from (Add data, fixing a table); each is stored by this name in
 * `read_options.columns` and read as the DuckDB type beside it. Any other DuckDB type name is
 * still accepted there, for definitions written before these names existed.
 */
export const COLUMN_TYPES = {
  string: 'VARCHAR',
  integer: 'BIGINT',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  date: 'DATE',
  timestamp: 'TIMESTAMP',
} as const;
export type ColumnType = keyof typeof COLUMN_TYPES;
export const columnTypeSchema = z.enum(Object.keys(COLUMN_TYPES) as [ColumnType, ...ColumnType[]]);

/** Format-specific read options; unknown options are refused rather than ignored. */
export const readOptionsSchema = z.strictObject({
  delimiter: z.string().min(1).max(4).optional(),
  header: z.boolean().optional(),
  quote: z.string().max(1).optional(),
  skip: z.number().int().min(0).max(1000).optional(),
  null_values: z.array(z.string().max(100)).max(50).optional(),
  columns: z.record(z.string(), z.string().max(100)).optional(),
  derive: derivedColumnsSchema.optional(),
});

const dataCollectionRequestShape = {
  tag: tagSchema,
  type: collectionTypeSchema.default('table'),
  pattern: z.string().min(1).max(1000),
  format: formatSchema,
  read_options: readOptionsSchema.default({}),
  keys: z.array(z.string().min(1).max(200)).min(1).max(20).nullish(),
  columns: z.record(z.string(), z.string().max(2000)).default({}),
};
export const createDataCollectionRequestSchema = z
  .strictObject(dataCollectionRequestShape)
  .refine(multiqcFormatRule.check, { message: multiqcFormatRule.message, path: ['format'] });
export const updateDataCollectionRequestSchema = z
  .strictObject(dataCollectionRequestShape)
  .omit({ type: true })
  .partial()
  .refine((body) => Object.keys(body).length > 0, { message: 'give at least one field to change' });

export const runConfigurationSchema = z
  .object({
    run_configuration_id: z.string(),
    workflow_id: z.string(),
    name: z.string(),
    version: z.number().int(),
    parameters: z.record(z.string(), z.unknown()),
    created_at: z.string(),
  })
  .meta({ id: 'RunConfiguration' });
export const runConfigurationListSchema = listAnswerSchema(runConfigurationSchema).meta({ id: 'RunConfigurationList' });
export const createRunConfigurationRequestSchema = z.strictObject({
  name: nameSchema,
  parameters: z.record(z.string(), z.unknown()).default({}),
});

export const runSchema = z
  .object({
    run_id: z.string(),
    workflow_id: z.string(),
    tag: z.string(),
    /** The run's folder on the server: only for those who may edit the project, absent for its readers. */
    location: z.string().nullable().optional(),
    status: z.enum(['registered', 'ingested', 'failed']),
    run_configuration_id: z.string().nullable(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Run' });
export const runListSchema = listAnswerSchema(runSchema).meta({ id: 'RunList' });

export const fileSchema = z
  .object({
    file_id: z.string(),
    run_id: z.string(),
    path: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    modified_at: z.string(),
    content_type: z.string(),
    origin: z.enum(['upload', 'scan']),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'File' });
export const fileListSchema = listAnswerSchema(fileSchema).meta({ id: 'FileList' });

export const joinSchema = z
  .object({
    join_id: z.string(),
    project_id: z.string(),
    name: z.string(),
    left: z.string(),
    right: z.string(),
    /** Key columns both collections have; absent when their names differ (then left_on and right_on). */
    on: z.array(z.string()).optional(),
    left_on: z.array(z.string()).optional(),
    right_on: z.array(z.string()).optional(),
    how: z.enum(['inner', 'left', 'right', 'outer']),
  })
  .meta({ id: 'Join' });

export const upsertRequestSchema = z.strictObject({
  data_collection_id: z.string().min(1).max(64),
  file_ids: z.array(z.string().min(1).max(64)).min(1).max(10_000).optional(),
  overwrite: z.boolean().optional(),
  async_mode: z.boolean().optional(),
});
export const upsertAnswerSchema = z
  .object({
    data_collection_id: z.string(),
    version: z.number().int().nullable(),
    rows: z.number().int(),
    files_added: z.number().int(),
    files_replaced: z.number().int(),
    columns: z.array(z.string()),
  })
  .meta({ id: 'UpsertResult' });

export const joinListSchema = listAnswerSchema(joinSchema).meta({ id: 'JoinList' });
export const createJoinRequestSchema = z
  .strictObject({
    name: tagSchema,
    left: z.string().min(1).max(64).describe('data collection id'),
    right: z.string().min(1).max(64).describe('data collection id'),
    ...joinColumnFields,
    how: z.enum(['inner', 'left', 'right', 'outer']).default('inner'),
  })
  .superRefine(checkJoinColumns);

/** `GET /datacollections/{id}/deletion-summary`: what deleting the collection affects (its editors). */
export const dataCollectionDeletionSummarySchema = z
  .object({
    /** Files of the workflow's runs that its pattern matches: they stay (they belong to the runs). */
    files: z.number().int(),
    /** Dashboards of the project with a component on it: those components stop showing data. */
    dashboards: z.array(z.object({ dashboard_id: z.string(), title: z.string() })),
  })
  .meta({ id: 'DataCollectionDeletionSummary' });
export type DataCollectionDeletionSummary = z.infer<typeof dataCollectionDeletionSummarySchema>;

/** `GET /datacollections/{id}/path-fit?path=`: whether an upload's path fits the pattern, and how to make it fit. */
export const pathFitQuerySchema = z.strictObject({ path: z.string().min(1).max(1024) });
export const pathFitSchema = z
  .object({
    path: z.string(),
    matches: z.boolean(),
    pattern: z.string(),
    /** The pattern widened to take this path as well (what "Add to the pattern" saves), or null when too long. */
    pattern_with_path: z.string().nullable(),
    /** A path with the same file name that the pattern takes (in the folder of the collection's files), or null. */
    rename_to: z.string().nullable(),
  })
  .meta({ id: 'PathFit' });
export type PathFit = z.infer<typeof pathFitSchema>;
