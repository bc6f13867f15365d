import { z } from 'zod';
import { collectionTypeSchema, formatSchema } from './data-collections.js';
import { checkJoinColumns, joinColumnFields } from './join-columns.js';
import { nameSchema, tagSchema } from './projects.js';
import {
  dataLocationSchema,
  engineSchema,
  multiqcFormatRule,
  readOptionsSchema,
  scheduleSchema,
  watchSchema,
} from './workflows.js';

/** One data collection as a project.yaml declares it. */
export const dataCollectionDefinitionSchema = z
  .strictObject({
    tag: tagSchema,
    type: collectionTypeSchema.default('table'),
    pattern: z
      .string()
      .min(1)
      .max(1000)
      .describe(
        'RE2 regex (linear-time matching), full match on the path relative to the run folder; named groups become columns',
      ),
    format: formatSchema,
    read_options: readOptionsSchema.optional(),
    keys: z.array(z.string().min(1).max(200)).min(1).max(20).optional(),
    columns: z.record(z.string(), z.string().max(2000)).optional(),
  })
  .refine(multiqcFormatRule.check, { message: multiqcFormatRule.message, path: ['format'] });

export const workflowDefinitionSchema = z.strictObject({
  name: nameSchema,
  engine: engineSchema.optional(),
  data_location: dataLocationSchema.optional(),
  schedule: scheduleSchema.optional(),
  watch: watchSchema.optional(),
  data_collections: z.array(dataCollectionDefinitionSchema).max(200).default([]),
});

export const joinDefinitionSchema = z
  .strictObject({
    name: tagSchema,
    left: tagSchema,
    right: tagSchema,
    ...joinColumnFields,
    how: z.enum(['inner', 'left', 'right', 'outer']).default('inner'),
  })
  .superRefine(checkJoinColumns);

/** The whole of a project.yaml (docs/architecture.md "Ingestion"). */
export const projectDefinitionSchema = z
  .strictObject({
    name: nameSchema,
    description: z.string().max(10_000).optional(),
    is_public: z.boolean().optional(),
    workflows: z.array(workflowDefinitionSchema).max(100).default([]),
    joins: z.array(joinDefinitionSchema).max(200).optional(),
  })
  .meta({ id: 'ProjectDefinition', title: 'Project definition (project.yaml)' });
export type ProjectDefinition = z.infer<typeof projectDefinitionSchema>;

export const importAnswerSchema = z.object({ project_id: z.string(), created: z.boolean(), changed: z.boolean() });
