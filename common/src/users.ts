import { z } from 'zod';
import { listAnswerSchema } from './pagination.js';

export const roleSchema = z.enum(['admin', 'user']);
export type Role = z.infer<typeof roleSchema>;

/** Emails are compared case-insensitively; we keep what the user typed for display. */
export const emailSchema = z.string().trim().max(254).pipe(z.email());

export const PASSWORD_MIN_LENGTH = 12;
export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(1024);

export const userSchema = z
  .object({
    user_id: z.string(),
    email: z.string(),
    role: roleSchema,
    is_temporary: z.boolean(),
    expires_at: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'User' });
export type User = z.infer<typeof userSchema>;

/** What an admin sees of a user: the public shape plus account state. */
export const adminUserSchema = userSchema
  .extend({ disabled: z.boolean(), updated_at: z.string() })
  .meta({ id: 'AdminUser' });
export type AdminUser = z.infer<typeof adminUserSchema>;

export const userListSchema = listAnswerSchema(adminUserSchema).meta({ id: 'UserList' });

export const createUserRequestSchema = z.strictObject({
  email: emailSchema,
  password: passwordSchema,
  role: roleSchema.default('user'),
});
export type CreateUserRequest = z.infer<typeof createUserRequestSchema>;

export const updateUserRequestSchema = z
  .strictObject({
    role: roleSchema.optional(),
    disabled: z.boolean().optional(),
  })
  .refine((body) => body.role !== undefined || body.disabled !== undefined, {
    message: 'give at least one of role, disabled',
  });
export type UpdateUserRequest = z.infer<typeof updateUserRequestSchema>;

export const userIdParamsSchema = z.strictObject({ id: z.string().min(1).max(64) });

const queryFlag = z
  .enum(['true', 'false', '1', '0'])
  .optional()
  .transform((value) => value === 'true' || value === '1');

/**
 * `DELETE /users/{id}`: what becomes of what the account owns alone (projects, dashboards). By
 * default it goes to the acting admin; `transfer_to` names another active admin; `delete_owned=true`
 * deletes it instead. Never both.
 */
export const deleteUserQuerySchema = z
  .strictObject({
    transfer_to: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('id of the active admin who becomes owner of what the account owns alone (default: you)'),
    delete_owned: queryFlag.describe('true: delete what the account owns alone instead of transferring it'),
  })
  .refine((query) => !(query.delete_owned && query.transfer_to !== undefined), {
    message: 'give transfer_to or delete_owned=true, not both',
    path: ['transfer_to'],
  });
export type DeleteUserQuery = z.output<typeof deleteUserQuerySchema>;

/**
 * `GET /users/{id}/deletion-summary`: what deleting the account would hand over or delete, so the
 * admin sees it before choosing. "Alone": no other owner, so it would be left without one.
 */
export const userDeletionSummarySchema = z
  .object({
    /** Projects the account owns alone: transferred, or deleted with everything in them. */
    projects: z.number().int(),
    /** Dashboards the account owns alone (in any project): transferred, or deleted. */
    dashboards: z.number().int(),
    /** Other people's dashboards inside those projects: they follow their project either way. */
    project_dashboards: z.number().int(),
    /** Embed links the account made that still work; they are revoked either way. */
    active_embed_tokens: z.number().int(),
    /** Signed-in sessions; they end at once. */
    active_sessions: z.number().int(),
  })
  .meta({ id: 'UserDeletionSummary' });
export type UserDeletionSummary = z.infer<typeof userDeletionSummarySchema>;
