import { z } from 'zod';

export const authModeSchema = z.enum(['auth', 'single_user', 'public', 'demo']);
export type AuthMode = z.infer<typeof authModeSchema>;

/** Feature flags a client checks before relying on optional routes. */
export const featureSchema = z.enum(['jobs', 'deltatables.async_upsert', 'ingestion.browser_trigger']);
export type Feature = z.infer<typeof featureSchema>;

/** The product's name when `SERVICE_APP_NAME` is unset (the CLI stays `service`, the API `/service/api/v1`). */
export const DEFAULT_APP_NAME = 'Pipeline Dashboards';

export const capabilitiesSchema = z
  .object({
    version: z.string(),
    /** The product's name, shown in the web app's header and tab titles (`SERVICE_APP_NAME`). */
    app_name: z.string(),
    auth_mode: authModeSchema,
    features: z.array(featureSchema),
    auth: z.object({
      registration: z.boolean(),
      password_login: z.boolean(),
      oauth: z.boolean(),
      temporary_users: z.boolean(),
      access_code_required: z.boolean(),
      temporary_user_expiry_hours: z.number().nullable(),
    }),
  })
  .meta({ id: 'Capabilities' });
export type Capabilities = z.infer<typeof capabilitiesSchema>;
