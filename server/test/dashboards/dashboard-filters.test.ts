import type { DashboardDataAnswer, DashboardFilter, DashboardVersions } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';
import { MORE_ORDERS_CSV, ordersProject, shopComponents, upsert } from './filter-fixture.js';

const INTERNAL_KEY = 'internal-key-0123456789-abcdefghijklmnopq';

interface Problem {
  code: string;
  errors?: { path: string; message: string }[];
}

/**
 * `POST /dashboards/{id}/data` with filters (docs/architecture.md "Dashboards"): cross-filters, a linked
 * collection, the answer cache across a new table version, and time travel with `as_of`.
 * Each filter kind's SQL: dashboard-narrowing.test.ts.
 */
describeEachDialect('dashboard data with filters', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let shop: Awaited<ReturnType<typeof ordersProject>>;
  let dashboardId: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { SERVICE_AUTH_INTERNAL_API_KEY_ENV: INTERNAL_KEY });
    admin = await login(server, ADMIN.email, ADMIN.password);
    shop = await ordersProject(server, admin.access_token);
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: admin.access_token,
      json: { project_id: shop.projectId, title: 'Shop', components: shopComponents(shop.ordersId, shop.customersId) },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  const data = async (json: { filters?: DashboardFilter[]; components?: string[]; as_of?: unknown }) => {
    const answer = await call<DashboardDataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: admin.access_token,
      json,
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };
  const cards = async (filters: DashboardFilter[], as_of?: unknown) => {
    const { components, version } = await data({
      filters,
      components: ['orders', 'total', 'customer_count'],
      ...(as_of === undefined ? {} : { as_of }),
    });
    const value = (id: string) => (components[id] as { value: unknown }).value;
    return { orders: value('orders'), total: value('total'), customers: value('customer_count'), version };
  };
  const problem = async (json: unknown) => {
    const answer = await call<Problem>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: admin.access_token,
      json,
    });
    return { status: answer.status, code: answer.body.code, paths: answer.body.errors?.map((error) => error.path) };
  };
  const cacheCounts = async () => {
    const metrics = await fetch(`${server.url}/metrics`, { headers: { 'x-internal-key': INTERNAL_KEY } });
    const text = await metrics.text();
    const count = (result: string) =>
      Number(new RegExp(`^dashboard_answer_cache_total\\{result="${result}"\\} (\\d+)`, 'm').exec(text)?.[1]);
    return { hits: count('hit'), misses: count('miss') };
  };

  it('cross-filters from a clicked bar and a brush, the chart that set the filter staying whole', async () => {
    const clicked = await data({ filters: [{ component_id: 'by_customer', value: ['c1'] }] });
    expect(clicked.components.orders).toMatchObject({ value: 2 });
    expect(clicked.components.total).toMatchObject({ value: 40, unfiltered_value: 110 });
    const bars = clicked.components.by_customer as { rows: unknown[][]; total_rows: number };
    expect(bars.total_rows).toBe(5);
    const options = clicked.components.customer as { options: { value: unknown; count: number }[] };
    expect(options.options).toEqual([{ value: 'c1', count: 2 }]);
    // Pie slices are categories of `color`.
    expect((await cards([{ component_id: 'share', value: ['c2', 'c3'] }])).orders).toBe(2);

    const brushed = await data({ filters: [{ component_id: 'amounts', value: [15, 45] }] });
    expect(brushed.components.orders).toMatchObject({ value: 2 });
    expect((brushed.components.amounts as { total_rows: number }).total_rows).toBe(5);
    expect(
      (brushed.components.order_rows as unknown as { rows: { order_id: unknown }[] }).rows.map((row) => row.order_id),
    ).toEqual([2, 3]);
  });

  it('narrows a collection joined to the filtered one, and the filtered one through the join', async () => {
    expect(await cards([{ component_id: 'region', value: ['north'] }])).toMatchObject({
      orders: 3,
      total: 90,
      customers: 2,
    });
    expect(await cards([{ component_id: 'amount', value: [25, null] }])).toMatchObject({ orders: 2, customers: 2 });
    const region = await data({ filters: [{ component_id: 'amount', value: [25, null] }], components: ['region'] });
    expect((region.components.region as { options: unknown[] }).options).toEqual([{ value: 'north', count: 2 }]);
  });

  it('refuses filters naming unknown components, of the wrong shape or not of the column type, at their place', async () => {
    expect(await problem({ filters: [{ component_id: 'ghost', value: [1] }] })).toMatchObject({
      status: 400,
      code: 'validation_failed',
      paths: ['body.filters[0].component_id'],
    });
    expect(await problem({ filters: [{ component_id: 'amount', value: 'high' }] })).toMatchObject({
      status: 400,
      paths: ['body.filters[0].value'],
    });
    expect(
      await problem({
        filters: [
          { component_id: 'paid', value: true },
          { component_id: 'day', value: ['last tuesday', null] },
        ],
      }),
    ).toMatchObject({ status: 400, paths: ['body.filters[1].value[0]'] });
    // Asked again, the answer DuckDB gave for that text is remembered, and still refused.
    expect(await problem({ filters: [{ component_id: 'day', value: [null, 'last tuesday'] }] })).toMatchObject({
      status: 400,
      paths: ['body.filters[0].value[1]'],
    });
    expect(
      await problem({
        filters: [
          { component_id: 'note', value: 'a' },
          { component_id: 'note', value: 'b' },
        ],
      }),
    ).toMatchObject({ status: 400, paths: ['body.filters[1].component_id'] });
    expect(await problem({ filters: [{ component_id: 'orders', value: [1] }] })).toMatchObject({
      status: 400,
      paths: ['body.filters[0].component_id'],
    });
  });

  it('serves repeated answers from its cache, and a new table version at once', async () => {
    const filters = [{ component_id: 'customers', value: ['c1', 'c2'] }];
    const before = await cacheCounts();
    const first = await cards(filters);
    const afterFirst = await cacheCounts();
    expect(await cards(filters)).toEqual(first);
    const afterSecond = await cacheCounts();
    expect(afterSecond.hits - afterFirst.hits).toBe(3);
    expect(afterSecond.misses).toBe(afterFirst.misses);
    expect(afterFirst.misses - before.misses).toBeGreaterThan(0);
    expect(first).toMatchObject({ orders: 3, total: 60, customers: 2 });

    // A range widget's bounds are the whole table's: other filters reuse its answer.
    await data({ filters: [{ component_id: 'paid', value: true }], components: ['amount'] });
    const beforeRange = await cacheCounts();
    const range = await data({ filters: [{ component_id: 'region', value: ['south'] }], components: ['amount'] });
    expect(range.components.amount).toEqual({ min: 10, max: 50 });
    expect((await cacheCounts()).hits - beforeRange.hits).toBe(1);

    // A new version of the orders: the next identical request sees it.
    expect(
      await uploadFile(server, admin.access_token, shop.ordersId, { path: 't.csv', content: MORE_ORDERS_CSV }),
    ).toBe(201);
    await upsert(server, admin.access_token, shop.ordersId);
    const second = await cards(filters);
    expect(second).toMatchObject({ orders: 4, total: 120, customers: 2 });
    expect(second.version[shop.ordersId]).toBe((first.version[shop.ordersId] as number) + 1);
    // The customers card reads orders through the join: a new order version is a new answer too.
    const c3 = [{ component_id: 'amount', value: [55, null] }];
    expect((await cards(c3)).customers).toBe(1);

    // As it was before the upsert: by version, and by the time of that version's commit.
    const asBefore = await cards(filters, { [shop.ordersId]: first.version[shop.ordersId] });
    expect(asBefore).toMatchObject({ orders: 3, total: 60, version: first.version });
    const listed = await call<DashboardVersions>(server, 'GET', `/dashboards/${dashboardId}/versions`, {
      token: admin.access_token,
    });
    const orders = listed.body.collections.find((collection) => collection.data_collection_id === shop.ordersId);
    const earlier = orders!.versions.find((entry) => entry.version === first.version[shop.ordersId]);
    const atTime = await cards(filters, earlier!.timestamp);
    expect(atTime).toMatchObject({ orders: 3, total: 60 });
    expect(atTime.version[shop.ordersId]).toBe(first.version[shop.ordersId]);
    expect((await cards([{ component_id: 'amount', value: [55, null] }], earlier!.timestamp)).customers).toBe(0);
    // Before the first commit the collections had no table.
    const beforeAnything = new Date(Date.parse(orders!.versions.at(-1)!.timestamp) - 1).toISOString();
    expect((await cards([], beforeAnything)).version).toEqual({ [shop.ordersId]: null, [shop.customersId]: null });
  });

  it("pages a table component's rows under the dashboard's filters and as_of", async () => {
    const page = async (query: Record<string, string>) => {
      const answer = await call<{ rows: { order_id: unknown }[]; total: number; version: number | null }>(
        server,
        'GET',
        `/dashboards/${dashboardId}/components/order_rows/rows?${new URLSearchParams(query)}`,
        { token: admin.access_token },
      );
      return answer;
    };
    const byRegion = JSON.stringify([
      { component_id: 'region', value: ['north'] },
      { component_id: 'paid', value: true },
    ]);
    const narrowed = await page({ filters: byRegion, limit: '1', skip: '1' });
    expect(narrowed.status, narrowed.text).toBe(200);
    expect(narrowed.body).toMatchObject({ total: 2, rows: [{ order_id: 3 }] });
    // Time travel: the version before the upsert of the test above, by number and by time.
    const versions = (await data({ components: ['order_rows'] })).version;
    const latest = versions[shop.ordersId] as number;
    const pinned = await page({ as_of: JSON.stringify({ [shop.ordersId]: 0 }) });
    expect(pinned.body).toMatchObject({ version: 0, total: 5 });
    expect((await page({})).body.version).toBe(latest);
    const listed = await call<DashboardVersions>(server, 'GET', `/dashboards/${dashboardId}/versions`, {
      token: admin.access_token,
    });
    const first = listed.body.collections[0]!.versions.at(-1)!;
    expect((await page({ as_of: first.timestamp })).body).toMatchObject({ version: 0, total: 5 });

    const refused = async (query: Record<string, string>) => {
      const answer = await page(query);
      return [answer.status, (answer.body as unknown as Problem).errors?.map((error) => error.path)];
    };
    expect(await refused({ filters: JSON.stringify([{ component_id: 'amount', value: ['x', null] }]) })).toEqual([
      400,
      ['querystring.filters[0].value[0]'],
    ]);
    expect(await refused({ filters: JSON.stringify([{ component_id: 'ghost', value: [] }]) })).toEqual([
      400,
      ['querystring.filters[0].component_id'],
    ]);
    expect(await refused({ as_of: JSON.stringify({ elsewhere: 1 }) })).toEqual([400, ['querystring.as_of.elsewhere']]);
    expect((await refused({ as_of: '{nope' }))[0]).toBe(400);
    expect((await page({ as_of: JSON.stringify({ [shop.ordersId]: 99 }) })).status).toBe(404);
  });

  it('refuses as_of naming collections the dashboard does not read, and versions that do not exist', async () => {
    expect(await problem({ as_of: { elsewhere: 0 } })).toMatchObject({
      status: 400,
      code: 'validation_failed',
      paths: ['body.as_of.elsewhere'],
    });
    expect(await problem({ as_of: { [shop.ordersId]: 99 } })).toMatchObject({ status: 404, code: 'not_found' });
    expect(await problem({ as_of: 'yesterday' })).toMatchObject({ status: 400 });
  });
});
