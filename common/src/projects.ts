import { z } from 'zod';
import { listAnswerSchema, nameSearchSchema } from './pagination.js';

export const idParamsSchema = z.strictObject({ id: z.string().min(1).max(64) });

/** A name people type: trimmed, 1–100 characters, no control characters. */
export const nameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse.
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters');

/** A short machine-friendly identifier (data collection tags, run tags). */
export const tagSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'use letters, digits, `_`, `.` and `-`, starting with a letter or digit');

/** A member; the email only in answers to the resource's members (and admins), never to its public. */
export const memberSchema = z.object({ user_id: z.string(), email: z.string().optional() });
/** The members of a shared resource (project, dashboard) by role. */
export const membersSchema = z.object({
  owners: z.array(memberSchema),
  editors: z.array(memberSchema),
  viewers: z.array(memberSchema),
});
export const projectRoleSchema = z.enum(['admin', 'owner', 'editor', 'viewer', 'public']);

export const projectSchema = z
  .object({
    project_id: z.string(),
    name: z.string(),
    description: z.string(),
    is_public: z.boolean(),
    permissions: membersSchema,
    /** The caller's standing on the project.
     * `null` only in the answer to a sharing change that left the caller without access. */
    my_role: projectRoleSchema.nullable(),
    created_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Project' });
export type Project = z.infer<typeof projectSchema>;
export const projectListSchema = listAnswerSchema(projectSchema).meta({ id: 'ProjectList' });

export const createProjectRequestSchema = z.strictObject({
  name: nameSchema,
  description: z.string().max(10_000).default(''),
  is_public: z.boolean().default(false),
});
export const updateProjectRequestSchema = z
  .strictObject({
    name: nameSchema.optional(),
    description: z.string().max(10_000).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'give at least one field to change' });

/** `PUT …/permissions` of a shared resource (project, dashboard): members by user id or email. */
export function sharingRequestSchema(what: 'project' | 'dashboard') {
  return z.strictObject({
    owners: z.array(z.string().min(1).max(254)).min(1, `a ${what} needs at least one owner`).max(500),
    editors: z.array(z.string().min(1).max(254)).max(500).default([]),
    viewers: z.array(z.string().min(1).max(254)).max(500).default([]),
    is_public: z.boolean(),
  });
}
export const permissionsRequestSchema = sharingRequestSchema('project');
export type SharingRequest = z.infer<typeof permissionsRequestSchema>;

export const projectListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  skip: z.coerce.number().int().min(0).default(0),
  scope: z.enum(['all', 'mine', 'shared', 'public']).default('all'),
  /** Only projects whose name contains this text, any case. */
  q: nameSearchSchema.optional(),
});

/** `GET /projects/{id}/deletion-summary`: what deleting the project takes with it (its owners). */
export const projectDeletionSummarySchema = z
  .object({
    workflows: z.number().int(),
    data_collections: z.number().int(),
    /** Uploaded and scanned files of its runs (the uploads' bytes are removed too). */
    files: z.number().int(),
    /** Every dashboard of the project, also those shared with people outside it. */
    dashboards: z.number().int(),
    /** Embed links of those dashboards that still work; they stop with them. */
    active_embed_tokens: z.number().int(),
  })
  .meta({ id: 'ProjectDeletionSummary' });
export type ProjectDeletionSummary = z.infer<typeof projectDeletionSummarySchema>;
