import { afterAll, beforeAll, expect, it } from 'vitest';
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
import { openStream } from '../live/sse-client.js';
import { addRowsAndUpsert } from './alert-fixture.js';

/**
 * A personal access token limited to some projects sees only their alerts' notifications,
 * deliveries and events (docs/live-data.md "Alerts"): the same user's notifications about another
 * project's dashboard are absent to it, as that project is.
 */

interface Board {
  projectId: string;
  collectionId: string;
  alertId: string;
}

interface NotificationList {
  items: { notification_id: string; alert_id: string }[];
  unread: number;
}

describeEachDialect('alerts seen through a project-limited token', (dialect) => {
  let server: TestServer;
  let owner: Session;
  let runs = 0;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const admin = await login(server, ADMIN.email, ADMIN.password);
    owner = await createUser(server, admin.access_token, 'limited-owner@example.org');
  });
  afterAll(async () => {
    await server.context.alerts.settled();
    await server.stop();
    await server.database.drop();
  });

  /** A project with a table, a dashboard with a row-count card and an alert that fires on any rows. */
  async function board(name: string): Promise<Board> {
    const token = owner.access_token;
    const { projectId, collectionId } = await createProjectWithUpload(server, token, name);
    await upsert(collectionId);
    const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: projectId,
        title: name,
        components: [{ component_id: 'rows', type: 'card', data_collection_id: collectionId, agg: 'count' }],
      },
    });
    expect(dashboard.status, dashboard.text).toBe(201);
    const alert = await call<{ alert_id: string }>(
      server,
      'POST',
      `/dashboards/${dashboard.body.dashboard_id}/alerts`,
      {
        token,
        json: { component_id: 'rows', condition: { op: '>', value: 0 } },
      },
    );
    expect(alert.status, alert.text).toBe(201);
    return { projectId, collectionId, alertId: alert.body.alert_id };
  }

  async function upsert(collectionId: string): Promise<void> {
    const answer = await call(server, 'POST', '/deltatables/upsert', {
      token: owner.access_token,
      json: { data_collection_id: collectionId },
    });
    expect(answer.status, answer.text).toBe(200);
    await server.context.alerts.settled();
  }

  /** A new run of rows and a new table version: the board's alert fires. */
  async function fire(b: Board): Promise<void> {
    runs += 1;
    await addRowsAndUpsert(server, owner.access_token, b.collectionId, `run_${runs}`, [5]);
  }

  async function notifications(token: string): Promise<NotificationList> {
    const answer = await call<NotificationList>(server, 'GET', '/notifications?limit=200', { token });
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  }

  it('lists, counts, marks read and streams only the notifications of its projects', async () => {
    const mine = await board('limited-mine');
    const other = await board('limited-other');
    const created = await call<{ token: string }>(server, 'POST', '/auth/tokens', {
      token: owner.access_token,
      json: { name: 'pipeline', expires_in_days: 30, scope: 'write', project_ids: [mine.projectId] },
    });
    expect(created.status, created.text).toBe(201);
    const limited = created.body.token;
    const stream = await openStream(server, '', { token: limited });
    expect(stream.status).toBe(200);
    try {
      await fire(other);
      await fire(mine);
      const notified = (alertId: string) =>
        stream.events.some((event) => event.event === 'notification' && event.data.includes(alertId));
      await stream.until(() => notified(mine.alertId));
      // The other project's event was committed first, so it would have come first.
      expect(notified(other.alertId)).toBe(false);
    } finally {
      stream.close();
    }

    const all = await notifications(owner.access_token);
    const otherNotification = all.items.find((item) => item.alert_id === other.alertId);
    expect(otherNotification).toBeDefined();
    const seen = await notifications(limited);
    expect(seen.items.length).toBeGreaterThan(0);
    expect(seen.items.every((item) => item.alert_id === mine.alertId)).toBe(true);
    expect(seen.unread).toBe(seen.items.length);
    expect(all.unread).toBeGreaterThan(seen.unread);

    const markOther = await call(server, 'POST', `/notifications/${otherNotification?.notification_id}/read`, {
      token: limited,
    });
    expect(markOther.status).toBe(404);
    const markMine = await call(server, 'POST', `/notifications/${seen.items[0]?.notification_id}/read`, {
      token: limited,
    });
    expect(markMine.status).toBe(204);
    expect((await notifications(owner.access_token)).unread).toBe(all.unread - 1);

    const ownDeliveries = await call(server, 'GET', `/alerts/${mine.alertId}/deliveries`, { token: limited });
    expect(ownDeliveries.status, ownDeliveries.text).toBe(200);
    const otherDeliveries = await call(server, 'GET', `/alerts/${other.alertId}/deliveries`, { token: limited });
    expect(otherDeliveries.status).toBe(404);
    const otherDelete = await call(server, 'DELETE', `/alerts/${other.alertId}`, { token: limited });
    expect(otherDelete.status).toBe(404);
  });
});
