import type {
  Alert,
  AlertDeliveryList,
  AlertNotification,
  CreateAlertRequest,
  CreatedAlert,
  NotificationList,
} from '@service/common';
import { v7 as uuidv7 } from 'uuid';
import { componentsOf } from '../dashboards/presenter.js';
import type { Database } from '../db/database.js';
import { paginate } from '../db/paginate.js';
import type { AlertsTable, NotificationsTable } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { DomainError, notFound } from '../errors.js';
import type { NewLiveEvent } from '../live/hub.js';
import type { Actor } from '../policy/actor.js';
import { admit, authorize, authorizeOwned, tokenProjects } from '../policy/policy.js';
import { alertRows } from '../tables/alerts.js';
import { dashboardRows } from '../tables/dashboards.js';
import { notificationRows } from '../tables/notifications.js';
import { cardValueAt, type EvaluationSources, holds, ownerOf } from './evaluation.js';
import { checkWebhookUrl, newWebhookSecret, type WebhookSender, webhookBody } from './webhooks.js';

function presentAlert(row: AlertsTable): Alert {
  return {
    alert_id: row.id,
    dashboard_id: row.dashboard_id,
    component_id: row.component_id,
    data_collection_id: row.data_collection_id,
    condition: { op: row.op, value: Number(row.value) },
    webhook_url: row.webhook_url,
    created_at: row.created_at,
  };
}

function presentNotification(row: NotificationsTable): AlertNotification {
  return {
    notification_id: row.id,
    alert_id: row.alert_id,
    dashboard_id: row.dashboard_id,
    component_id: row.component_id,
    data_collection_id: row.data_collection_id,
    version: Number(row.version),
    value: Number(row.value),
    previous_value: row.previous_value === null ? null : Number(row.previous_value),
    created_at: row.created_at,
    read: row.read_at !== null,
  };
}

export interface AlertsDeps extends EvaluationSources {
  database: Database;
  webhooks: WebhookSender;
  /** SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS; empty: webhooks off. */
  allowedHosts: readonly string[];
  /** Tells the owner's open streams (`event: notification`); never throws. */
  publish(event: NewLiveEvent): Promise<unknown>;
  /** Failures of an evaluation, for the log (an evaluation never fails the upsert that caused it). */
  warn(error: unknown, alertId: string): void;
}

/**
 * Alerts on dashboard cards (docs/live-data.md "Alerts"): rules made by a dashboard's readers,
 * judged once per new table version as their owner reads the data, notifications in the owner's
 * list, and signed webhooks to allowed hosts.
 */
export class AlertsService {
  private readonly evaluating = new Set<Promise<void>>();

  constructor(private readonly deps: AlertsDeps) {}

  /** Starts judging a new version in the background (never failing the upsert that made it). */
  versionCommitted(dataCollectionId: string, version: number): void {
    const work = this.evaluateVersion(dataCollectionId, version).catch((error: unknown) => this.deps.warn(error, ''));
    this.evaluating.add(work);
    void work.finally(() => this.evaluating.delete(work));
  }

  /** Takes over webhook deliveries a stopped process left between tries (the periodic cleanup). */
  resumeStaleWebhooks(): Promise<number> {
    return this.deps.webhooks.resumeStale();
  }

  /** Resolves once every evaluation started here and every webhook delivery it started have ended. */
  async settled(): Promise<void> {
    while (this.evaluating.size > 0) await Promise.all([...this.evaluating]);
    await this.deps.webhooks.settled();
  }

  /** A rule on one of the dashboard's cards, owned by the caller, who must be able to read it. */
  async create(actor: Actor, dashboardId: string, request: CreateAlertRequest): Promise<CreatedAlert> {
    admit(actor, 'write');
    authorize(actor, 'session.read_own');
    const { record } = await this.deps.dashboards.access(actor, dashboardId, 'resource.read');
    const card = componentsOf(record).find((component) => component.component_id === request.component_id);
    if (card?.type !== 'card') {
      throw new DomainError('validation_failed', 'an alert watches one of the dashboard’s cards', [
        { path: 'body.component_id', message: card ? 'this component is not a card' : 'no such component' },
      ]);
    }
    if (request.webhook_url !== undefined) checkWebhookUrl(request.webhook_url, this.deps.allowedHosts);
    const row: AlertsTable = {
      id: uuidv7(),
      dashboard_id: dashboardId,
      component_id: card.component_id,
      data_collection_id: card.data_collection_id,
      user_id: actor.userId,
      op: request.condition.op,
      value: request.condition.value,
      webhook_url: request.webhook_url ?? null,
      webhook_secret: request.webhook_url === undefined ? null : newWebhookSecret(),
      created_at: isoNow(),
    };
    await alertRows.insert(this.deps.database.db, row);
    return { ...presentAlert(row), webhook_secret: row.webhook_secret };
  }

  /** The caller's alerts on a dashboard they read, newest first (never a secret). */
  async list(actor: Actor, dashboardId: string): Promise<{ items: Alert[] }> {
    admit(actor, 'read');
    authorize(actor, 'session.read_own');
    await this.deps.dashboards.access(actor, dashboardId, 'resource.read');
    const rows = await alertRows.ofDashboardAndUser(this.deps.database.db, dashboardId, actor.userId);
    return { items: rows.map(presentAlert) };
  }

  /** An alert, for its owner and admins; absent (404) for everyone else. */
  private async owned(actor: Actor, alertId: string): Promise<AlertsTable> {
    const row = await alertRows.find(this.deps.database.db, alertId);
    // Looked up only for a project-limited token, whose limits `authorizeOwned` judges by it.
    const projectId = row && tokenProjects(actor) !== null ? await this.projectOf(row.dashboard_id) : null;
    authorizeOwned(actor, row?.user_id ?? null, 'alert', projectId);
    if (!row) throw notFound('alert');
    return row;
  }

  /** The project of an alert's dashboard (null once the dashboard is gone). */
  private async projectOf(dashboardId: string): Promise<string | null> {
    return (await dashboardRows.find(this.deps.database.db, dashboardId))?.project_id ?? null;
  }

  async delete(actor: Actor, alertId: string): Promise<void> {
    admit(actor, 'write');
    await this.owned(actor, alertId);
    await alertRows.delete(this.deps.database.db, alertId);
  }

  /** The webhook delivery log of an alert, newest first. */
  async deliveries(actor: Actor, alertId: string, page: { limit: number; skip: number }): Promise<AlertDeliveryList> {
    admit(actor, 'read');
    await this.owned(actor, alertId);
    return paginate(
      notificationRows.deliveriesOfAlertFiltered(this.deps.database.db, alertId),
      (rows) => rows.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
      page,
      (row) => ({
        delivery_id: row.id,
        notification_id: row.notification_id,
        url: row.url,
        status: row.status,
        attempts: Number(row.attempts),
        response_status: row.response_status === null ? null : Number(row.response_status),
        last_error: row.last_error,
        created_at: row.created_at,
        updated_at: row.updated_at,
      }),
    );
  }

  /** The caller's notifications, newest first, with how many are unread. */
  async notifications(actor: Actor, page: { limit: number; skip: number }): Promise<NotificationList> {
    admit(actor, 'read');
    authorize(actor, 'session.read_own');
    const { db } = this.deps.database;
    const projectIds = tokenProjects(actor);
    const [listed, unread] = await Promise.all([
      paginate(
        notificationRows.ofUserFiltered(db, actor.userId, projectIds),
        (rows) => rows.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
        page,
        presentNotification,
      ),
      notificationRows.unreadCount(db, actor.userId, projectIds),
    ]);
    return { ...listed, unread };
  }

  async markRead(actor: Actor, notificationId: string): Promise<void> {
    admit(actor, 'write');
    authorize(actor, 'session.read_own');
    const owner = { userId: actor.userId, projectIds: tokenProjects(actor) };
    if (!(await notificationRows.markRead(this.deps.database.db, notificationId, owner, isoNow())))
      throw notFound('notification');
  }

  /** Judges every alert on a collection at its new version; each (alert, version) once across processes. */
  async evaluateVersion(dataCollectionId: string, version: number): Promise<void> {
    const alerts = await alertRows.onCollection(this.deps.database.db, dataCollectionId);
    for (const alert of alerts) {
      try {
        await this.evaluate(alert, version);
      } catch (error) {
        this.deps.warn(error, alert.id);
      }
    }
  }

  private async evaluate(alert: AlertsTable, version: number): Promise<void> {
    const { db } = this.deps.database;
    const claim = { alert_id: alert.id, version, outcome: 'skipped' as const, value: null, evaluated_at: isoNow() };
    if (!(await alertRows.claimEvaluation(db, claim))) return;
    const owner = await ownerOf(this.deps, alert.user_id);
    const value = owner === null ? null : await cardValueAt(this.deps, owner, alert, version);
    if (owner === null || value === null) return;
    const previous =
      alert.op === 'change_pct' && version > 0 ? await cardValueAt(this.deps, owner, alert, version - 1) : null;
    const condition = { op: alert.op, value: Number(alert.value) };
    const fired = holds(condition, value, previous);
    await alertRows.finishEvaluation(db, alert.id, version, fired ? 'fired' : 'quiet', value);
    if (fired) await this.notify(alert, version, value, alert.op === 'change_pct' ? previous : null);
  }

  /** The notification of a rule that fired, and its webhook delivery (logged, then sent in the background). */
  private async notify(alert: AlertsTable, version: number, value: number, previous: number | null): Promise<void> {
    const now = isoNow();
    const notification: NotificationsTable = {
      id: uuidv7(),
      user_id: alert.user_id,
      alert_id: alert.id,
      dashboard_id: alert.dashboard_id,
      component_id: alert.component_id,
      data_collection_id: alert.data_collection_id,
      version,
      value,
      previous_value: previous,
      created_at: now,
      read_at: null,
    };
    const deliveryId = uuidv7();
    const { webhook_url: url, webhook_secret: secret } = alert;
    await this.deps.database.db.transaction().execute(async (trx) => {
      await notificationRows.insert(trx, notification);
      if (url === null || secret === null) return;
      await notificationRows.insertDelivery(trx, {
        id: deliveryId,
        alert_id: alert.id,
        notification_id: notification.id,
        url,
        status: 'pending',
        attempts: 0,
        response_status: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      });
    });
    const announced = { notification_id: notification.id, alert_id: alert.id, dashboard_id: alert.dashboard_id };
    await this.deps.publish({
      kind: 'notification',
      // So that a stream opened with a project-limited token hears only of its projects.
      project_id: await this.projectOf(alert.dashboard_id),
      data_collection_id: null,
      user_id: alert.user_id,
      data: JSON.stringify(announced),
    });
    if (url === null || secret === null) return;
    const body = webhookBody(notification, alert);
    this.deps.webhooks.send({ deliveryId, url, secret, body });
  }
}
