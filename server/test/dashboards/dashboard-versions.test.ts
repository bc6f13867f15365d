import type { DashboardVersions } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { versionsAsOf } from '../../../server/src/dashboards/data/as-of.js';
import { DomainError } from '../../../server/src/errors.js';
import {
  call,
  describeEachDialect,
  type Session,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';
import { serverWithPeople } from './analytics-table.js';
import { MORE_ORDERS_CSV, ordersProject, shopComponents, upsert } from './filter-fixture.js';

async function shopDashboard(server: TestServer, token: string, is_public = false) {
  const shop = await ordersProject(server, token);
  const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
    token,
    json: {
      project_id: shop.projectId,
      title: 'Shop',
      is_public,
      components: [
        { component_id: 'intro', type: 'text', markdown: 'Orders' },
        ...shopComponents(shop.ordersId, shop.customersId),
      ],
    },
  });
  if (created.status !== 201) throw new Error(created.text);
  return { ...shop, dashboardId: created.body.dashboard_id };
}

describeEachDialect('dashboard versions', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let eve: Session;
  let stranger: Session;
  let shop: Awaited<ReturnType<typeof shopDashboard>>;

  beforeAll(async () => {
    const started = await serverWithPeople(dialect);
    server = started.server;
    ada = await started.session('ada@example.org');
    eve = await started.session('eve@example.org');
    stranger = await started.session('stranger@example.org');
    shop = await shopDashboard(server, ada.access_token);
    await call(server, 'PUT', `/dashboards/${shop.dashboardId}/permissions`, {
      token: ada.access_token,
      json: { owners: ['ada@example.org'], viewers: ['eve@example.org'], is_public: false },
    });
    // A second version of the orders.
    expect(await uploadFile(server, ada.access_token, shop.ordersId, { path: 't.csv', content: MORE_ORDERS_CSV })).toBe(
      201,
    );
    await upsert(server, ada.access_token, shop.ordersId);
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  const versions = (token: string | undefined) =>
    call<DashboardVersions>(server, 'GET', `/dashboards/${shop.dashboardId}/versions`, token ? { token } : {});

  it("lists every collection's commits, newest first, to the dashboard's readers only", async () => {
    const answer = await versions(ada.access_token);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.collections.map((collection) => [collection.data_collection_id, collection.name])).toEqual([
      [shop.ordersId, 't'],
      [shop.customersId, 'customers'],
    ]);
    const [orders, customers] = answer.body.collections;
    expect(orders!.versions.map((entry) => entry.version)).toEqual([1, 0]);
    expect(orders!.versions[0]!.rows).toBe(6);
    expect(customers!.versions.map((entry) => entry.version)).toEqual([0]);
    // A viewer of the dashboard alone needs no access to the project.
    expect((await versions(eve.access_token)).body).toEqual(answer.body);
    expect((await call(server, 'GET', `/projects/${shop.projectId}`, { token: eve.access_token })).status).toBe(404);
    expect((await versions(stranger.access_token)).status).toBe(404);
    expect((await versions(undefined)).status).toBe(401);
    expect((await call(server, 'GET', '/dashboards/nope/versions', { token: ada.access_token })).status).toBe(404);
  });

  it('reads each collection at its last commit at or before a time, or at the versions named', async () => {
    const deps = {
      tableOf: server.context.tableOf,
      snapshots: server.context.snapshots,
      storage: server.context.delta.storage,
    };
    const listed = (await versions(ada.access_token)).body.collections;
    const [first, second] = [...listed[0]!.versions].reverse();
    const customersCommit = Date.parse(listed[1]!.versions[0]!.timestamp);
    const ids = [shop.ordersId, shop.customersId];
    const at = async (time: number) =>
      Object.fromEntries(await versionsAsOf(deps, new Date(time).toISOString(), ids, 'body.as_of'));
    expect(await at(Date.parse(second!.timestamp))).toEqual({ [shop.ordersId]: 1, [shop.customersId]: 0 });
    expect(await at(Date.parse(second!.timestamp) - 1)).toEqual({
      [shop.ordersId]: 0,
      [shop.customersId]: customersCommit <= Date.parse(second!.timestamp) - 1 ? 0 : null,
    });
    // Before anything was written, the collections had no table.
    expect(await at(Date.parse(first!.timestamp) - 1)).toEqual({ [shop.ordersId]: null, [shop.customersId]: null });
    expect(await at(Date.now() + 60_000)).toEqual({ [shop.ordersId]: 1, [shop.customersId]: 0 });

    const named = await versionsAsOf(deps, { [shop.ordersId]: 0 }, ids, 'body.as_of');
    expect(Object.fromEntries(named)).toEqual({ [shop.ordersId]: 0, [shop.customersId]: undefined });
    const foreign = await versionsAsOf(deps, { elsewhere: 0 }, ids, 'body.as_of').catch((error: unknown) => error);
    expect(foreign).toBeInstanceOf(DomainError);
    expect(foreign).toMatchObject({ code: 'validation_failed', errors: [{ path: 'body.as_of.elsewhere' }] });
  });
});

describeEachDialect('dashboard versions in public mode', (dialect) => {
  let server: TestServer;
  let ada: Session;

  beforeAll(async () => {
    const started = await serverWithPeople(dialect, { SERVICE_AUTH_PUBLIC_MODE: 'true' });
    server = started.server;
    ada = await started.session('ada@example.org');
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  it("shows a public dashboard's versions to anyone, a private one's to nobody else", async () => {
    const open = await shopDashboard(server, ada.access_token, true);
    const closed = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: open.projectId, title: 'Private', components: [] },
    });
    const anonymous = await call<DashboardVersions>(server, 'GET', `/dashboards/${open.dashboardId}/versions`);
    expect(anonymous.status, anonymous.text).toBe(200);
    expect(anonymous.body.collections).toHaveLength(2);
    expect((await call(server, 'GET', `/dashboards/${closed.body.dashboard_id}/versions`)).status).toBe(404);
    expect(
      (await call(server, 'GET', `/dashboards/${closed.body.dashboard_id}/versions`, { token: ada.access_token })).body,
    ).toEqual({ collections: [] });
  });
});
