import { type AuthMode, createDashboardRequestSchema } from '@service/common';
import type { UserActor } from '../../src/policy/actor.js';
import { type ActorName, onProject, ownJob, type Row, readers, signedIn, type World } from './matrix-world.js';

/** The project owner, as the actor that makes the rows' own alerts. */
async function ownerActor(world: World): Promise<UserActor> {
  const row = await world.server.context.users.repository.findByEmail('owner@example.org');
  if (!row) throw new Error('owner account missing');
  return { kind: 'user', userId: row.id, role: row.role, isTemporary: false, sessionId: null };
}

const cardBoards = new WeakMap<World, string>();

/** A dashboard of P with a card (P's own dashboard loses its components to the PUT rows). */
async function cardBoard(world: World): Promise<string> {
  const known = cardBoards.get(world);
  if (known !== undefined) return known;
  const request = createDashboardRequestSchema.parse({
    project_id: world.p.projectId,
    title: 'Alerts',
    components: [{ component_id: 'count', type: 'card', data_collection_id: world.p.dataCollectionId, agg: 'count' }],
  });
  const created = await world.server.context.dashboards.create(await ownerActor(world), request);
  world.ownersIds.push(created.dashboard_id);
  cardBoards.set(world, created.dashboard_id);
  return created.dashboard_id;
}

/** An alert of the owner's on the card board (`> -1`: it fires at any version). */
async function ownersAlert(world: World): Promise<string> {
  const dashboardId = await cardBoard(world);
  const created = await world.server.context.alerts.create(await ownerActor(world), dashboardId, {
    component_id: 'count',
    condition: { op: '>', value: -1 },
  });
  world.ownersIds.push(created.alert_id);
  return created.alert_id;
}

/** Personal: a notification is its owner's alone, admins included (single-user mode's admin is not P's owner). */
const ownNotification = (ok: number) => (mode: AuthMode, actor: ActorName) => {
  if (mode === 'single_user') return 404;
  if (actor === 'anonymous') return 401;
  return actor === 'owner' ? ok : 404;
};

/** A dashboard's readers set alerts for themselves; anonymous callers must sign in first. */
const readersSignedIn = (ok: number) => (mode: AuthMode, actor: ActorName) =>
  actor === 'anonymous' && mode !== 'single_user' ? 401 : onProject(ok, readers)(mode, actor);

/** Alerts on cards and their notifications (docs/live-data.md "Alerts"). */
export const alertRows: Record<string, Row> = {
  'POST /service/api/v1/dashboards/{id}/alerts': {
    request: async (w) => ({
      path: `/dashboards/${await cardBoard(w)}/alerts`,
      options: { json: { component_id: 'count', condition: { op: '>', value: 10 } } },
    }),
    expected: readersSignedIn(201),
  },
  'GET /service/api/v1/dashboards/{id}/alerts': {
    request: async (w) => ({ path: `/dashboards/${await cardBoard(w)}/alerts` }),
    expected: readersSignedIn(200),
  },
  // The alert's owner and admins; for anyone else it does not exist.
  'DELETE /service/api/v1/alerts/{alert_id}': {
    request: async (w) => ({ path: `/alerts/${await ownersAlert(w)}` }),
    expected: ownJob(204),
  },
  'GET /service/api/v1/alerts/{alert_id}/deliveries': {
    request: async (w) => ({ path: `/alerts/${await ownersAlert(w)}/deliveries` }),
    expected: ownJob(200),
  },
  'GET /service/api/v1/notifications': { request: async () => ({ path: '/notifications' }), expected: signedIn(200) },
  'POST /service/api/v1/notifications/{notification_id}/read': {
    request: async (w) => {
      const alertId = await ownersAlert(w);
      await w.server.context.alerts.evaluateVersion(w.p.dataCollectionId, 0);
      const row = await w.server.context.database.db
        .selectFrom('notifications')
        .select('id')
        .where('alert_id', '=', alertId)
        .executeTakeFirstOrThrow();
      return { path: `/notifications/${row.id}/read` };
    },
    expected: ownNotification(204),
  },
};
