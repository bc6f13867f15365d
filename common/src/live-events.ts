import { z } from 'zod';
import { jobKindSchema, jobStatusSchema } from './jobs.js';

/**
 * `GET /events` (docs/live-data.md): one server-sent-events stream per page. With `dashboard_id`
 * the versions of the collections that dashboard reads; with `project_id` its collections' versions
 * and the caller's jobs in it; with neither the caller's jobs. `once=true` sends what was missed
 * since `Last-Event-ID` and ends (for scripts, and clients that cannot keep a stream open).
 */
export const eventStreamQuerySchema = z.strictObject({
  dashboard_id: z.string().min(1).max(64).optional(),
  project_id: z.string().min(1).max(64).optional(),
  once: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((value) => value === 'true' || value === '1'),
  /** The `Last-Event-ID` header, for clients that cannot set it. The header wins. */
  last_event_id: z
    .string()
    .regex(/^\d{1,18}$/)
    .optional(),
});

/** `event: version`: a table got a new version. */
export const versionEventSchema = z
  .object({ data_collection_id: z.string(), version: z.number().int().min(0) })
  .meta({ id: 'VersionEvent' });
export type VersionEvent = z.infer<typeof versionEventSchema>;

/** `event: job`: a job was queued, started, reported progress or ended. */
export const jobEventSchema = z
  .object({
    job_id: z.string(),
    kind: jobKindSchema,
    status: jobStatusSchema,
    step: z.string().nullable(),
    progress: z.number().nullable(),
    project_id: z.string().nullable(),
    updated_at: z.string(),
  })
  .meta({ id: 'JobEvent' });
export type JobEvent = z.infer<typeof jobEventSchema>;

/** `event: notification`: an alert of the caller's fired (docs/live-data.md "Alerts"); read `GET /notifications`. */
export const notificationEventSchema = z
  .object({ notification_id: z.string(), alert_id: z.string(), dashboard_id: z.string() })
  .meta({ id: 'NotificationEvent' });
export type NotificationEvent = z.infer<typeof notificationEventSchema>;

/** The event names a stream sends; `reset`: events were missed, refetch everything shown. */
export const LIVE_EVENT_NAMES = ['version', 'job', 'notification', 'reset'] as const;
export type LiveEventName = (typeof LIVE_EVENT_NAMES)[number];
