import { z } from 'zod';
import { listAnswerSchema, listQuerySchema } from './pagination.js';

/** Security events, and the changes to what people made (who changed what), the audit log records. */
export const auditEventTypeSchema = z.enum([
  'login.succeeded',
  'login.failed',
  'oauth.succeeded',
  'oauth.refused',
  'provisioning.used',
  'provisioning.refused',
  'magic_link.issued',
  'magic_link.redeemed',
  'user.created',
  'user.role_changed',
  'user.disabled',
  'user.enabled',
  'user.deleted',
  'temporary_user.created',
  'temporary_user.removed',
  'embed_token.created',
  'embed_token.revoked',
  'access_token.created',
  'access_token.revoked',
  'project.created',
  'project.updated',
  'project.shared',
  'project.deleted',
  'collection.created',
  'collection.updated',
  'collection.deleted',
  'dashboard.created',
  'dashboard.updated',
  'dashboard.shared',
  'dashboard.deleted',
]);
export type AuditEventType = z.infer<typeof auditEventTypeSchema>;

export const auditEventSchema = z
  .object({
    event_id: z.string(),
    at: z.string(),
    type: auditEventTypeSchema,
    actor_user_id: z.string().nullable(),
    subject_user_id: z.string().nullable(),
    subject_email: z.string().nullable(),
    client_address: z.string().nullable(),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditEvent' });
export type AuditEvent = z.infer<typeof auditEventSchema>;

export const auditQuerySchema = listQuerySchema.extend({ type: auditEventTypeSchema.optional() });
export const auditListSchema = listAnswerSchema(auditEventSchema).meta({ id: 'AuditEventList' });
