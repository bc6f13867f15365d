import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createUser,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { webhookRefusal } from '../../src/alerts/webhooks.js';
import { addRowsAndUpsert } from './alert-fixture.js';

/**
 * Alerts over real HTTP (docs/live-data.md "Alerts"): a rule on a card judged once per new table
 * version, even when two replicas race; `change_pct` against the previous version; an owner who
 * lost the right gets nothing; signed webhooks to a local receiver, retried after 500s; a host
 * off the allow-list refused at creation.
 */

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local HTTP receiver that answers the statuses of `plan` in turn (then 200) and records each request. */
async function receiver(plan: number[] = []): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.statusCode = plan.shift() ?? 200;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Board {
  collectionId: string;
  projectId: string;
  dashboardId: string;
}

interface NotificationItem {
  notification_id: string;
  alert_id: string;
  dashboard_id: string;
  component_id: string;
  version: number;
  value: number;
  previous_value: number | null;
  read: boolean;
}

describeEachDialect('alerts', (dialect) => {
  let server: TestServer;
  let owner: Session;
  let viewer: Session;
  let uploads = 0;

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1, hooks.example.org:8443',
    });
    const admin = await login(server, ADMIN.email, ADMIN.password);
    owner = await createUser(server, admin.access_token, 'owner@example.org');
    viewer = await createUser(server, admin.access_token, 'viewer@example.org');
  });
  afterAll(async () => {
    await server.context.alerts.settled();
    await server.stop();
    await server.database.drop();
  });

  /** A project of the owner (a = 1, 3 at version 0) shared with the viewer, and a dashboard of two cards. */
  async function board(): Promise<Board> {
    const token = owner.access_token;
    const { projectId, collectionId } = await createProjectWithUpload(server, token, `alerts-${uploads++}`);
    await call(server, 'PUT', `/projects/${projectId}/permissions`, {
      token,
      json: { owners: [owner.user.user_id], editors: [], viewers: ['viewer@example.org'], is_public: false },
    });
    const upsert = await call(server, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: collectionId },
    });
    expect(upsert.status, upsert.text).toBe(200);
    const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: projectId,
        title: 'Alerts',
        components: [
          { component_id: 'rows', type: 'card', data_collection_id: collectionId, agg: 'count' },
          { component_id: 'total', type: 'card', data_collection_id: collectionId, agg: 'sum', column: 'a' },
          { component_id: 'list', type: 'table', data_collection_id: collectionId },
        ],
      },
    });
    expect(dashboard.status, dashboard.text).toBe(201);
    await server.context.alerts.settled();
    return { collectionId, projectId, dashboardId: dashboard.body.dashboard_id };
  }

  /** Adds a run whose file holds these values of `a`, and updates the table: answers the new version. */
  async function addRows(b: Board, values: number[]): Promise<number> {
    uploads += 1;
    return addRowsAndUpsert(server, owner.access_token, b.collectionId, `run_${uploads}`, values);
  }

  async function createAlert(token: string, b: Board, body: Record<string, unknown>) {
    return call<{ alert_id: string; webhook_secret: string | null }>(
      server,
      'POST',
      `/dashboards/${b.dashboardId}/alerts`,
      {
        token,
        json: body,
      },
    );
  }

  async function notificationsOf(session: Session, alertId: string) {
    const answer = await call<{ items: NotificationItem[]; unread: number }>(
      server,
      'GET',
      '/notifications?limit=200',
      {
        token: session.access_token,
      },
    );
    expect(answer.status, answer.text).toBe(200);
    return answer.body.items.filter((item) => item.alert_id === alertId);
  }

  /** The owner's delivery log of an alert. */
  async function deliveriesOf(alertId: string): Promise<Record<string, unknown>[]> {
    const log = await call<{ items: Record<string, unknown>[] }>(server, 'GET', `/alerts/${alertId}/deliveries`, {
      token: owner.access_token,
    });
    expect(log.status, log.text).toBe(200);
    return log.body.items;
  }

  it('fires once per version with a signed webhook, even when two replicas judge it at once', async () => {
    const b = await board();
    const hook = await receiver();
    try {
      // The version is committed before the rule exists, so nothing judged it yet: the replicas race for it.
      const version = await addRows(b, [5]);
      const created = await createAlert(owner.access_token, b, {
        component_id: 'rows',
        condition: { op: '>', value: 2 },
        webhook_url: hook.url,
      });
      expect(created.status, created.text).toBe(201);
      const { alert_id: alertId, webhook_secret: secret } = created.body;
      expect(secret).toMatch(/^whsec_/);
      // The list never shows the secret again.
      const listed = await call(server, 'GET', `/dashboards/${b.dashboardId}/alerts`, { token: owner.access_token });
      expect(listed.status).toBe(200);
      expect(listed.text).toContain(alertId);
      expect(listed.text).not.toContain(secret as string);

      // Another replica on the same database, and this one again, judge the same version at once.
      const replica = await startTestServer(server.database, { SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
      try {
        await Promise.all([
          replica.context.alerts.evaluateVersion(b.collectionId, version),
          server.context.alerts.evaluateVersion(b.collectionId, version),
          replica.context.alerts.evaluateVersion(b.collectionId, version),
        ]);
        await replica.context.alerts.settled();
      } finally {
        await replica.stop();
      }
      await server.context.alerts.settled();

      const notifications = await notificationsOf(owner, alertId);
      expect(notifications).toEqual([
        expect.objectContaining({ dashboard_id: b.dashboardId, component_id: 'rows', version, value: 3, read: false }),
      ]);
      expect(hook.received).toHaveLength(1);
      const [delivery] = hook.received;
      const expected = `sha256=${createHmac('sha256', secret as string)
        .update(delivery?.body ?? '')
        .digest('hex')}`;
      expect(delivery?.headers['x-signature-256']).toBe(expected);
      expect(delivery?.headers['content-type']).toBe('application/json');
      expect(JSON.parse(delivery?.body ?? '{}')).toMatchObject({
        alert_id: alertId,
        notification_id: notifications[0]?.notification_id,
        version,
        value: 3,
        condition: { op: '>', value: 2 },
      });
      expect(await deliveriesOf(alertId)).toEqual([
        expect.objectContaining({ status: 'delivered', attempts: 1, response_status: 200 }),
      ]);
      // The viewer sees neither the owner's alert, its deliveries nor its notifications.
      const foreign = await call(server, 'GET', `/alerts/${alertId}/deliveries`, { token: viewer.access_token });
      expect(foreign.status).toBe(404);
      expect(await notificationsOf(viewer, alertId)).toEqual([]);

      // Read: the unread count drops; someone else's notification is absent.
      const id = notifications[0]?.notification_id as string;
      expect((await call(server, 'POST', `/notifications/${id}/read`, { token: viewer.access_token })).status).toBe(
        404,
      );
      const before = await call<{ unread: number }>(server, 'GET', '/notifications', { token: owner.access_token });
      expect((await call(server, 'POST', `/notifications/${id}/read`, { token: owner.access_token })).status).toBe(204);
      const after = await call<{ unread: number }>(server, 'GET', '/notifications', { token: owner.access_token });
      expect(after.body.unread).toBe(before.body.unread - 1);
      expect((await notificationsOf(owner, alertId))[0]?.read).toBe(true);

      // Deleted: the next version fires nothing.
      expect((await call(server, 'DELETE', `/alerts/${alertId}`, { token: viewer.access_token })).status).toBe(404);
      expect((await call(server, 'DELETE', `/alerts/${alertId}`, { token: owner.access_token })).status).toBe(204);
      await addRows(b, [6]);
      expect(hook.received).toHaveLength(1);
    } finally {
      await hook.close();
    }
  });

  it('retries a webhook answered 500 with backoff until it is delivered', async () => {
    const b = await board();
    const hook = await receiver([500, 500]);
    try {
      const created = await createAlert(owner.access_token, b, {
        component_id: 'total',
        condition: { op: '>=', value: 10 },
        webhook_url: hook.url,
      });
      expect(created.status, created.text).toBe(201);
      await addRows(b, [6]);
      expect(hook.received).toHaveLength(3);
      const bodies = new Set(hook.received.map((request) => request.body));
      expect(bodies.size).toBe(1);
      expect(await deliveriesOf(created.body.alert_id)).toEqual([
        expect.objectContaining({ status: 'delivered', attempts: 3, response_status: 200, last_error: null }),
      ]);
    } finally {
      await hook.close();
    }
  });

  it('resumes a delivery a stopped process left between tries, on one replica only, from its next try', async () => {
    const b = await board();
    const hook = await receiver();
    try {
      const created = await createAlert(owner.access_token, b, {
        component_id: 'total',
        condition: { op: '>=', value: 10 },
        webhook_url: hook.url,
      });
      expect(created.status, created.text).toBe(201);
      const alertId = created.body.alert_id;
      await addRows(b, [6]);
      expect(hook.received).toHaveLength(1);
      // As a process that made its first try, then stopped during the wait before the second.
      const deliveries = server.context.database.db.updateTable('alert_deliveries').where('alert_id', '=', alertId);
      const longAgo = new Date(Date.now() - 10 * 60_000).toISOString();
      await deliveries.set({ status: 'pending', attempts: 1, response_status: 503, updated_at: longAgo }).execute();

      const replica = await startTestServer(server.database, { SERVICE_ALERTS_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
      try {
        const resumed = await Promise.all([
          replica.context.alerts.resumeStaleWebhooks(),
          server.context.alerts.resumeStaleWebhooks(),
          replica.context.alerts.resumeStaleWebhooks(),
        ]);
        await replica.context.alerts.settled();
        await server.context.alerts.settled();
        expect(resumed.reduce((sum, count) => sum + count, 0)).toBe(1);
      } finally {
        await replica.stop();
      }
      // The same body, signed with the alert's secret, sent once more.
      expect(hook.received).toHaveLength(2);
      expect(hook.received[1]?.body).toBe(hook.received[0]?.body);
      const signed = createHmac('sha256', created.body.webhook_secret as string).update(hook.received[1]?.body ?? '');
      expect(hook.received[1]?.headers['x-signature-256']).toBe(`sha256=${signed.digest('hex')}`);
      expect(await deliveriesOf(alertId)).toEqual([
        expect.objectContaining({ status: 'delivered', attempts: 2, response_status: 200, last_error: null }),
      ]);

      // A recent pending row is someone's live delivery: left alone. One with no try left fails.
      await deliveries.set({ status: 'pending', attempts: 2, updated_at: new Date().toISOString() }).execute();
      expect(await server.context.alerts.resumeStaleWebhooks()).toBe(0);
      await deliveries.set({ status: 'pending', attempts: 4, updated_at: longAgo }).execute();
      expect(await server.context.alerts.resumeStaleWebhooks()).toBe(1);
      await server.context.alerts.settled();
      expect(hook.received).toHaveLength(2);
      expect(await deliveriesOf(alertId)).toEqual([
        expect.objectContaining({ status: 'failed', attempts: 4, last_error: 'no try left when it was resumed' }),
      ]);
    } finally {
      await hook.close();
    }
  });

  it('compares change_pct with the previous version', async () => {
    const b = await board();
    const created = await createAlert(owner.access_token, b, {
      component_id: 'total',
      condition: { op: 'change_pct', value: 50 },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.webhook_secret).toBeNull();
    const alertId = created.body.alert_id;
    await addRows(b, [1]); // 4 → 5: 25 %
    expect(await notificationsOf(owner, alertId)).toEqual([]);
    const version = await addRows(b, [10]); // 5 → 15: 200 %
    expect(await notificationsOf(owner, alertId)).toEqual([
      expect.objectContaining({ version, value: 15, previous_value: 5 }),
    ]);
    await addRows(b, [-9]); // 15 → 6: −60 %
    const fired = await notificationsOf(owner, alertId);
    expect(fired.map((item) => item.value)).toEqual([6, 15]);
    // Each was announced on the owner's streams (`event: notification`), and on no one else's.
    const replay = (session: Session) =>
      call(server, 'GET', '/events?once=true&last_event_id=0', { token: session.access_token });
    const mine = await replay(owner);
    expect(mine.status).toBe(200);
    for (const item of fired) {
      expect(mine.text).toContain(`event: notification\ndata: {"notification_id":"${item.notification_id}"`);
    }
    const theirs = await replay(viewer);
    for (const item of fired) expect(theirs.text).not.toContain(item.notification_id);
  });

  it('gives nothing to an owner who can no longer read the dashboard', async () => {
    const b = await board();
    const mine = await createAlert(owner.access_token, b, { component_id: 'rows', condition: { op: '>', value: 0 } });
    const theirs = await createAlert(viewer.access_token, b, {
      component_id: 'rows',
      condition: { op: '>', value: 0 },
    });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    await call(server, 'PUT', `/projects/${b.projectId}/permissions`, {
      token: owner.access_token,
      json: { owners: [owner.user.user_id], editors: [], viewers: [], is_public: false },
    });
    const version = await addRows(b, [2]);
    // The owner's rule fired on this very version; the former viewer's did not.
    expect(await notificationsOf(owner, mine.body.alert_id)).toEqual([expect.objectContaining({ version })]);
    expect(await notificationsOf(viewer, theirs.body.alert_id)).toEqual([]);
    // Nor may they make new ones.
    const again = await createAlert(viewer.access_token, b, { component_id: 'rows', condition: { op: '>', value: 0 } });
    expect(again.status).toBe(404);
  });

  it('refuses a webhook host off the allow-list, and a component that is no card, with 400 problems', async () => {
    const b = await board();
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://localhost:8058/hook',
      'https://hooks.example.org/x',
    ]) {
      const refused = await createAlert(owner.access_token, b, {
        component_id: 'rows',
        condition: { op: '>', value: 1 },
        webhook_url: url,
      });
      expect(refused.status, url).toBe(400);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect(refused.body).toMatchObject({
        status: 400,
        code: 'validation_failed',
        errors: [expect.objectContaining({ path: 'body.webhook_url' })],
      });
    }
    const table = await createAlert(owner.access_token, b, { component_id: 'list', condition: { op: '>', value: 1 } });
    expect(table.status).toBe(400);
    expect(table.body).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ path: 'body.component_id' })],
    });
    const listed = await call<{ items: unknown[] }>(server, 'GET', `/dashboards/${b.dashboardId}/alerts`, {
      token: owner.access_token,
    });
    expect(listed.body.items).toEqual([]);
  });
});

describe('webhook allow-list', () => {
  it('matches host names and ports as written, and is off when empty', () => {
    const hosts = ['hooks.example.org', '127.0.0.1:9000', '[::1]'];
    expect(webhookRefusal('https://hooks.example.org/a', hosts)).toBeNull();
    expect(webhookRefusal('https://HOOKS.example.org:8443/a', hosts)).toBeNull();
    expect(webhookRefusal('http://127.0.0.1:9000/a', hosts)).toBeNull();
    expect(webhookRefusal('http://[::1]:8080/a', hosts)).toBeNull();
    expect(webhookRefusal('http://127.0.0.1:9001/a', hosts)).toMatch(/not in/);
    expect(webhookRefusal('http://evil.hooks.example.org/a', hosts)).toMatch(/not in/);
    expect(webhookRefusal('http://user:pw@hooks.example.org/a', hosts)).toMatch(/user or password/);
    expect(webhookRefusal('https://hooks.example.org/a', [])).toMatch(/off/);
  });
});
