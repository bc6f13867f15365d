import { z } from 'zod';
import { emailSchema, passwordSchema, userSchema } from './users.js';

export const loginRequestSchema = z.strictObject({
  email: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(1024),
});
/** OAuth2 password-grant style form: `username` carries the email. */
export const loginFormSchema = z.looseObject({
  username: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(1024),
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

export const registerRequestSchema = z.strictObject({
  email: emailSchema,
  password: passwordSchema,
});
export type RegisterRequest = z.infer<typeof registerRequestSchema>;

export const refreshRequestSchema = z.strictObject({
  refresh_token: z.string().min(1).max(512),
});
export const logoutRequestSchema = z.strictObject({
  refresh_token: z.string().min(1).max(512).optional(),
});

/** "The session answer": what every sign-in returns. */
export const sessionAnswerSchema = z
  .object({
    access_token: z.string(),
    refresh_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.number().int(),
    user: userSchema,
  })
  .meta({ id: 'Session' });
export type SessionAnswer = z.infer<typeof sessionAnswerSchema>;

export const jwkSchema = z.looseObject({ kty: z.string(), kid: z.string().optional() });
export const jwksSchema = z.object({ keys: z.array(jwkSchema) }).meta({ id: 'JWKS' });

export const provisionRequestSchema = z.strictObject({ email: emailSchema });
export const provisionAnswerSchema = sessionAnswerSchema
  .extend({ created: z.boolean() })
  .meta({ id: 'ProvisionedSession' });

export const temporaryUserRequestSchema = z.strictObject({ access_code: z.string().max(256).optional() });

export const magicLinkRequestSchema = z.strictObject({
  next: z.string().max(2048).optional().describe('Path on this site to open after sign-in; default /'),
});
export const magicLinkSchema = z.object({ url: z.string(), expires_at: z.string() }).meta({ id: 'MagicLink' });
export const redeemTicketRequestSchema = z.strictObject({
  ticket: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be the ticket from the sign-in link'),
});

export const oauthLoginQuerySchema = z.strictObject({ next: z.string().max(2048).optional() });
