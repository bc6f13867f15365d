import { z } from 'zod';
import { listAnswerSchema, listQuerySchema } from './pagination.js';

/**
 * Alerts (docs/live-data.md "Alerts"): a rule on a dashboard's card, evaluated once after each new
 * version of the card's table. `>`, `>=`, `<`, `<=` compare the card's number with `value`;
 * `change_pct` fires when the number moved by more than `value` percent (either way) since the
 * table's previous version.
 */
export const ALERT_OPS = ['>', '>=', '<', '<=', 'change_pct'] as const;
export const alertOpSchema = z.enum(ALERT_OPS);
export type AlertOp = z.infer<typeof alertOpSchema>;

export const alertConditionSchema = z
  .strictObject({
    op: alertOpSchema,
    value: z.number().refine(Number.isFinite, 'must be a finite number'),
  })
  .superRefine((condition, context) => {
    if (condition.op === 'change_pct' && condition.value < 0)
      context.addIssue({ code: 'custom', path: ['value'], message: 'a change in percent is at least 0' });
  })
  .meta({ id: 'AlertCondition' });
export type AlertCondition = z.infer<typeof alertConditionSchema>;

/** `POST /dashboards/{id}/alerts`. */
export const createAlertRequestSchema = z
  .strictObject({
    component_id: z.string().min(1).max(64),
    condition: alertConditionSchema,
    /** http(s); its host must be in SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS (400 otherwise). */
    webhook_url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
  })
  .meta({ id: 'CreateAlertRequest' });
export type CreateAlertRequest = z.infer<typeof createAlertRequestSchema>;

export const alertSchema = z
  .object({
    alert_id: z.string(),
    dashboard_id: z.string(),
    component_id: z.string(),
    data_collection_id: z.string(),
    condition: alertConditionSchema,
    webhook_url: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'Alert' });
export type Alert = z.infer<typeof alertSchema>;

/** The answer to a create: the only time the webhook's signing secret is shown (null without a webhook). */
export const createdAlertSchema = alertSchema
  .extend({ webhook_secret: z.string().nullable() })
  .meta({ id: 'CreatedAlert' });
export type CreatedAlert = z.infer<typeof createdAlertSchema>;

/** `GET /dashboards/{id}/alerts`: the caller's alerts on that dashboard, newest first. */
export const alertListSchema = z.object({ items: z.array(alertSchema) }).meta({ id: 'AlertList' });
export type AlertList = z.infer<typeof alertListSchema>;
export const dashboardAlertsParamsSchema = z.strictObject({ id: z.string().min(1).max(64) });
export const alertParamsSchema = z.strictObject({ alert_id: z.string().min(1).max(64) });

/** One webhook delivery: one per notification of an alert with a webhook. */
export const alertDeliverySchema = z
  .object({
    delivery_id: z.string(),
    notification_id: z.string(),
    url: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int(),
    /** The receiver's last HTTP status; null when no answer came (refused, timed out). */
    response_status: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'AlertDelivery' });
export type AlertDelivery = z.infer<typeof alertDeliverySchema>;
export const alertDeliveryListSchema = listAnswerSchema(alertDeliverySchema).meta({ id: 'AlertDeliveryList' });
export type AlertDeliveryList = z.infer<typeof alertDeliveryListSchema>;
export const alertDeliveryListQuerySchema = listQuerySchema;

/** An alert that fired, in its owner's list (`GET /notifications`, newest first). */
export const notificationSchema = z
  .object({
    notification_id: z.string(),
    alert_id: z.string(),
    dashboard_id: z.string(),
    component_id: z.string(),
    data_collection_id: z.string(),
    /** The table version whose number fired the rule. */
    version: z.number().int(),
    value: z.number(),
    /** The number at the previous version (`change_pct` rules); null otherwise. */
    previous_value: z.number().nullable(),
    created_at: z.string(),
    read: z.boolean(),
  })
  .meta({ id: 'Notification' });
export type AlertNotification = z.infer<typeof notificationSchema>;
export const notificationListSchema = listAnswerSchema(notificationSchema)
  .extend({ unread: z.number().int() })
  .meta({ id: 'NotificationList' });
export type NotificationList = z.infer<typeof notificationListSchema>;
export const notificationListQuerySchema = listQuerySchema;
export const notificationParamsSchema = z.strictObject({ notification_id: z.string().min(1).max(64) });

/** The JSON body of a webhook POST; `X-Signature-256: sha256=<hex HMAC-SHA256 of the body>`. */
export interface AlertWebhookBody {
  alert_id: string;
  notification_id: string;
  dashboard_id: string;
  component_id: string;
  data_collection_id: string;
  version: number;
  value: number;
  previous_value: number | null;
  condition: AlertCondition;
  created_at: string;
}
