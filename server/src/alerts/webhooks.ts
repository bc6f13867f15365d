import { createHmac, randomBytes } from 'node:crypto';
import type { AlertWebhookBody } from '@service/common';
import type { Database } from '../db/database.js';
import type { AlertsTable, NotificationsTable } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { DomainError } from '../errors.js';
import { notificationRows } from '../tables/notifications.js';

/** Every webhook secret starts with this, so a leaked one is recognizable. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Tries after the first; the waits between them double from `retryBaseMs`. */
export const WEBHOOK_RETRIES = 3;
/** How long one attempt may take, answer included. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** The most of a receiver's error kept in the delivery log. */
const ERROR_MAX = 300;
/**
 * A pending delivery not written for this long was left by a process that stopped between tries
 * (a live one writes after every try: at most one attempt's timeout plus the longest wait apart).
 */
export const STALE_DELIVERY_MS = 2 * 60_000;
/** Stale deliveries taken over per look. */
const RESUME_BATCH = 100;

export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** `sha256=<hex HMAC-SHA256 of the body with the alert's secret>`, the `X-Signature-256` header. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Whether a webhook may be sent to `url`: its host (and port, when the entry names one) must be an
 * entry of SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS, compared as written (no wildcard, no resolution
 * to addresses: an entry names what the operator trusts). An empty list turns webhooks off.
 */
export function webhookRefusal(url: string, allowedHosts: readonly string[]): string | null {
  if (allowedHosts.length === 0)
    return 'webhooks are off on this server (SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS is empty)';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'a webhook URL is http or https';
  if (parsed.username !== '' || parsed.password !== '') return 'a webhook URL carries no user or password';
  const host = parsed.hostname.toLowerCase();
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? '443' : '80') : parsed.port;
  const allowed = allowedHosts.some((entry) => {
    const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry);
    if (!match) return false;
    return match[1] === host && (match[2] === undefined || match[2] === port);
  });
  return allowed ? null : `${parsed.host} is not in SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS`;
}

/** `webhookRefusal` as the 400 a create answers. */
export function checkWebhookUrl(url: string, allowedHosts: readonly string[]): void {
  const refusal = webhookRefusal(url, allowedHosts);
  if (refusal !== null)
    throw new DomainError('validation_failed', `webhook_url refused: ${refusal}`, [
      { path: 'body.webhook_url', message: refusal },
    ]);
}

/** The JSON a webhook posts: the notification and the rule that fired it. */
export function webhookBody(
  notification: NotificationsTable,
  alert: Pick<AlertsTable, 'op' | 'value'>,
): AlertWebhookBody {
  return {
    alert_id: notification.alert_id,
    notification_id: notification.id,
    dashboard_id: notification.dashboard_id,
    component_id: notification.component_id,
    data_collection_id: notification.data_collection_id,
    version: notification.version,
    value: notification.value,
    previous_value: notification.previous_value,
    condition: { op: alert.op, value: Number(alert.value) },
    created_at: notification.created_at,
  };
}

export interface WebhookTarget {
  deliveryId: string;
  url: string;
  secret: string;
  body: AlertWebhookBody;
}

interface Attempt {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/**
 * Sends webhooks: a signed JSON POST, a timeout per attempt, redirects not followed (a 3xx is a
 * failure), and up to three retries with doubling waits; each attempt is written to the delivery
 * log (`alert_deliveries`).
 */
export class WebhookSender {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly database: Pick<Database, 'db'>,
    private readonly options: { allowedHosts: readonly string[]; retryBaseMs: number },
  ) {}

  /** Starts a delivery in the background; `settled` waits for all of them (tests, shutdown). */
  send(target: WebhookTarget, firstAttempt = 1): void {
    const work = this.deliver(target, firstAttempt).catch(() => undefined);
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  /**
   * Takes over the deliveries a stopped process left pending (the periodic cleanup calls this on
   * every replica and worker): each is claimed by one process and goes on from its next try. Answers
   * how many this process took.
   */
  async resumeStale(now = Date.now()): Promise<number> {
    const before = new Date(now - STALE_DELIVERY_MS).toISOString();
    const stale = await notificationRows.stalePendingDeliveries(this.database.db, before, RESUME_BATCH);
    let resumed = 0;
    for (const { delivery, notification, alert } of stale) {
      if (!(await notificationRows.claimDelivery(this.database.db, delivery.id, delivery.updated_at, isoNow())))
        continue;
      resumed += 1;
      const target = { deliveryId: delivery.id, url: delivery.url, body: webhookBody(notification, alert) };
      if (alert.webhook_secret === null)
        await this.giveUp(target.deliveryId, delivery.attempts, 'the alert no longer has a webhook');
      else this.send({ ...target, secret: alert.webhook_secret }, delivery.attempts + 1);
    }
    return resumed;
  }

  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private async deliver(target: WebhookTarget, firstAttempt: number): Promise<void> {
    if (firstAttempt > WEBHOOK_RETRIES + 1) {
      await this.giveUp(target.deliveryId, firstAttempt - 1, 'no try left when it was resumed');
      return;
    }
    const text = JSON.stringify(target.body);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'service-alerts',
      'x-signature-256': signature(target.secret, text),
    };
    for (let attempt = firstAttempt; attempt <= WEBHOOK_RETRIES + 1; attempt += 1) {
      // The list is read at each attempt: an operator who removed a host stops its deliveries.
      const refusal = webhookRefusal(target.url, this.options.allowedHosts);
      const outcome: Attempt =
        refusal === null ? await this.attempt(target.url, headers, text) : { ok: false, status: null, error: refusal };
      const last = outcome.ok || refusal !== null || attempt === WEBHOOK_RETRIES + 1;
      await notificationRows.updateDelivery(this.database.db, target.deliveryId, {
        status: outcome.ok ? 'delivered' : last ? 'failed' : 'pending',
        attempts: attempt,
        response_status: outcome.status,
        last_error: outcome.error,
        updated_at: isoNow(),
      });
      if (last) return;
      await new Promise((resolve) => setTimeout(resolve, this.options.retryBaseMs * 2 ** (attempt - 1)));
    }
  }

  private async giveUp(deliveryId: string, attempts: number, reason: string): Promise<void> {
    await notificationRows.updateDelivery(this.database.db, deliveryId, {
      status: 'failed',
      attempts,
      response_status: null,
      last_error: reason,
      updated_at: isoNow(),
    });
  }

  private async attempt(url: string, headers: Record<string, string>, body: string): Promise<Attempt> {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      const answer = await response.text().catch(() => '');
      if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status, error: null };
      const error = response.status >= 300 && response.status < 400 ? 'redirects are not followed' : answer;
      return { ok: false, status: response.status, error: error.slice(0, ERROR_MAX) || `HTTP ${response.status}` };
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return { ok: false, status: null, error: message.slice(0, ERROR_MAX) };
    }
  }
}
