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
