import { z } from 'zod';
import { listAnswerSchema, listQuerySchema } from './pagination.js';

/** Personal access tokens live at most a year (366 days, for leap years). */
export const ACCESS_TOKEN_MAX_DAYS = 366;
export const ACCESS_TOKEN_DEFAULT_DAYS = 90;
/** Every personal access token starts with this, so a leaked one is recognizable (and never a JWT). */
export const ACCESS_TOKEN_PREFIX = 'pat_';

/** `read`: every write is refused (403 `forbidden`); `write`: whatever its user may do with the API. */
export const accessTokenScopeSchema = z.enum(['read', 'write']);
export type AccessTokenScope = z.infer<typeof accessTokenScopeSchema>;

/**
 * `POST /auth/tokens`: a personal access token for a pipeline or the CLI. `project_ids` limits it
 * to those projects (and their dashboards, workflows, collections and files); other projects are,
 * for the token, absent (404).
 */
export const createAccessTokenRequestSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    expires_in_days: z.number().int().min(1).max(ACCESS_TOKEN_MAX_DAYS).default(ACCESS_TOKEN_DEFAULT_DAYS),
    scope: accessTokenScopeSchema,
    project_ids: z.array(z.string().min(1).max(64)).min(1).max(100).optional(),
  })
  .meta({ id: 'CreateAccessTokenRequest' });
export type CreateAccessTokenRequest = z.infer<typeof createAccessTokenRequestSchema>;
export type CreateAccessTokenRequestInput = z.input<typeof createAccessTokenRequestSchema>;

/** The answer to a create: the only time the secret (`pat_` then 43 characters) is shown. */
export const createdAccessTokenSchema = z
  .object({
    token_id: z.string(),
    token: z.string(),
    name: z.string(),
    scope: accessTokenScopeSchema,
    project_ids: z.array(z.string()).nullable(),
    expires_at: z.string(),
  })
  .meta({ id: 'CreatedAccessToken' });
export type CreatedAccessToken = z.infer<typeof createdAccessTokenSchema>;

/** A token as `GET /auth/tokens` lists it (newest first); never the secret. */
export const accessTokenSchema = z
  .object({
    token_id: z.string(),
    name: z.string(),
    scope: accessTokenScopeSchema,
    /** null: every project its user can reach. */
    project_ids: z.array(z.string()).nullable(),
    created_at: z.string(),
    expires_at: z.string(),
    /** When it was last presented (recorded at most once a minute), and from which client address. */
    last_used_at: z.string().nullable(),
    last_used_from: z.string().nullable(),
  })
  .meta({ id: 'AccessToken' });
export type AccessToken = z.infer<typeof accessTokenSchema>;
export const accessTokenListSchema = listAnswerSchema(accessTokenSchema).meta({ id: 'AccessTokenList' });
export type AccessTokenList = z.infer<typeof accessTokenListSchema>;
export const accessTokenListQuerySchema = listQuerySchema;
export const accessTokenParamsSchema = z.strictObject({ token_id: z.string().min(1).max(64) });
