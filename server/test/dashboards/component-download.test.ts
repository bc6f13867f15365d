import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { ordersProject, shopComponents } from './filter-fixture.js';

/**
 * `GET /dashboards/{id}/components/{component_id}/download`: a table component's rows as CSV
 * (the web app's "Download CSV"), every row under the dashboard's filters, its columns, its order.
 */
describeEachDialect('a table component downloaded as CSV', (dialect) => {
  let server: TestServer;
  let admin: Session;
  let dashboardId: string;
  let ordersId: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    admin = await login(server, ADMIN.email, ADMIN.password);
    const shop = await ordersProject(server, admin.access_token);
    ordersId = shop.ordersId;
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: admin.access_token,
      json: {
        project_id: shop.projectId,
        title: 'Shop',
        components: [
          ...shopComponents(shop.ordersId, shop.customersId),
          {
            component_id: 'slim',
            type: 'table',
            data_collection_id: shop.ordersId,
            columns: ['order_id', 'amount'],
            sort: [{ column: 'amount', direction: 'desc' }],
          },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  const download = async (component: string, query: Record<string, string> = {}) => {
    const search = new URLSearchParams(query).toString();
    const response = await fetch(
      `${server.url}/service/api/v1/dashboards/${dashboardId}/components/${component}/download${search ? `?${search}` : ''}`,
      { headers: { authorization: `Bearer ${admin.access_token}` } },
    );
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  };
  const lines = (text: string) => text.trim().split(/\r?\n/);

  it('answers every row, in the component order, as CSV with a header', async () => {
    const all = await download('order_rows');
    expect(all.status, all.text).toBe(200);
    expect(all.type).toMatch(/^text\/csv/);
    const rows = lines(all.text);
    // The same columns as the rows route shows (the table's, with the ingestion's own at the end).
    const page = await call<{ columns: { name: string }[] }>(
      server,
      'GET',
      `/dashboards/${dashboardId}/components/order_rows/rows`,
      { token: admin.access_token },
    );
    expect(rows[0]).toBe(page.body.columns.map((column) => column.name).join(','));
    expect(rows[0]).toMatch(/^order_id,customer,amount,day,paid,note,at/);
    expect(rows.slice(1).map((row) => row.split(',')[0])).toEqual(['1', '2', '3', '4', '5']);
  });

  it("shows only the component's columns, in its sort or the one asked for, nulls last", async () => {
    expect(lines((await download('slim')).text)).toEqual(['order_id,amount', '5,50', '3,30', '2,20', '1,10', '4,']);
    const byId = await download('slim', { sort: 'order_id:desc' });
    expect(
      lines(byId.text)
        .slice(1)
        .map((row) => row.split(',')[0]),
    ).toEqual(['5', '4', '3', '2', '1']);
  });

  it("narrows the rows by the dashboard's filters, joined collections included, and travels in time", async () => {
    const filters = JSON.stringify([
      { component_id: 'region', value: ['north'] },
      { component_id: 'paid', value: true },
    ]);
    expect(lines((await download('slim', { filters })).text)).toEqual(['order_id,amount', '3,30', '1,10']);
    const pinned = await download('slim', { as_of: JSON.stringify({ [ordersId]: 0 }) });
    expect(pinned.status, pinned.text).toBe(200);
    expect(lines(pinned.text)).toHaveLength(6);
  });

  it('refuses components without rows, unknown components, bad filters and bad sorts', async () => {
    const figure = await download('by_customer');
    expect(figure.status).toBe(400);
    expect(JSON.parse(figure.text)).toMatchObject({ code: 'validation_failed' });
    expect((await download('ghost')).status).toBe(404);
    const badFilter = await download('slim', {
      filters: JSON.stringify([{ component_id: 'amount', value: ['x', null] }]),
    });
    expect(badFilter.status).toBe(400);
    expect((await download('slim', { sort: 'customer:asc' })).status).toBe(400);
    expect((await download('slim', { filters: '[nope' })).status).toBe(400);
  });
});
