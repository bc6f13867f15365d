import {
  type DashboardComponent,
  type DashboardFilter,
  type DashboardFilterValue,
  dashboardComponentSchema,
  readsCollection,
} from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FilterPlan, Statement, TableReader, type TableSnapshot } from '../../../server/src/analytics/index.js';
import { projectJoins } from '../../../server/src/dashboards/data/joins.js';
import { DomainError } from '../../../server/src/errors.js';
import {
  ADMIN,
  describeEachDialect,
  login,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';
import { ordersProject, shopComponents } from './filter-fixture.js';

/**
 * Dashboard filters as SQL over real tables in DuckDB: every filter kind, the component that set
 * a filter left whole, a joined collection narrowed by a semi-join, and every bad filter refused
 * at its place before any row is read.
 */
describeEachDialect('dashboard filters narrow components', (dialect) => {
  let server: TestServer;
  let reader: TableReader;
  let components: DashboardComponent[];
  let sources: Map<string, TableSnapshot>;
  let shop: Awaited<ReturnType<typeof ordersProject>>;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const admin = await login(server, ADMIN.email, ADMIN.password);
    shop = await ordersProject(server, admin.access_token);
    components = shopComponents(shop.ordersId, shop.customersId).map((component) =>
      dashboardComponentSchema.parse(component),
    );
    const context = server.context;
    reader = new TableReader({
      duckdb: context.duckdb,
      storage: context.delta.storage,
      tableOf: context.tableOf,
      snapshots: context.snapshots,
    });
    sources = new Map();
    for (const id of [shop.ordersId, shop.customersId]) {
      const row = await context.database.db
        .selectFrom('data_collections')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      sources.set(id, await reader.load(row, undefined));
    }
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  const plan = async (filters: DashboardFilter[]) =>
    FilterPlan.build(
      {
        components,
        filters,
        joins: await projectJoins(server.context.database.db, shop.projectId),
        sources,
        path: 'body.filters',
      },
      server.context.duckdb,
    );

  /** The values of `column` in the rows the filters leave to `componentId`, sorted. */
  const narrowed = async (componentId: string, filters: DashboardFilter[], column?: string) => {
    const component = components.find((candidate) => candidate.component_id === componentId);
    if (component === undefined || !readsCollection(component)) throw new Error(componentId);
    const { narrowing } = (await plan(filters)).of(component);
    const source = sources.get(component.data_collection_id)!;
    const shown = column ?? (component.data_collection_id === shop.ordersId ? 'order_id' : 'customer');
    return reader.withRows(source, async (connection, from) => {
      const statement = new Statement();
      const { conditions, release } = await narrowing(connection, statement);
      try {
        await statement.validate(connection);
        const where = conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
        const rows = await connection.query(
          `SELECT CAST("${shown}" AS VARCHAR) AS v FROM ${from}${where} ORDER BY 1`,
          statement.params,
        );
        return rows.map((row) => row.v);
      } finally {
        release();
      }
    });
  };
  const ids = (filters: [string, DashboardFilterValue][]) =>
    narrowed(
      'orders',
      filters.map(([component_id, value]) => ({ component_id, value })),
    );
  const refusal = async (filters: [string, DashboardFilterValue][]) => {
    try {
      await plan(filters.map(([component_id, value]) => ({ component_id, value })));
    } catch (error) {
      if (error instanceof DomainError) return { code: error.code, errors: error.errors };
      throw error;
    }
    throw new Error('the filters were accepted');
  };

  it('narrows by a select or multiselect, null in the list matching nulls, an empty list matching nothing', async () => {
    expect(await ids([])).toEqual(['1', '2', '3', '4', '5']);
    expect(await ids([['customer', ['c1']]])).toEqual(['1', '3']);
    expect(await ids([['customers', ['c2', null]]])).toEqual(['2', '4']);
    expect(await ids([['customers', [null]]])).toEqual(['4']);
    expect(await ids([['customers', []]])).toEqual([]);
    // Texts convert to the column's type: an integer column takes "20".
    expect(await narrowed('orders', [{ component_id: 'amounts', value: ['20', 30] }])).toEqual(['2', '3']);
  });

  it('narrows by a range inclusive at both ends, a null end open, [null, null] not at all', async () => {
    expect(await ids([['amount', [20, 30]]])).toEqual(['2', '3']);
    expect(await ids([['amount', [30, null]]])).toEqual(['3', '5']);
    expect(await ids([['amount', [null, 10]]])).toEqual(['1']);
    expect(await ids([['amount', [null, null]]])).toEqual(['1', '2', '3', '4', '5']);
    expect(await ids([['day', ['2024-01-02', '2024-01-03']]])).toEqual(['2', '3']);
    expect(await ids([['day', ['2024-01-04', null]]])).toEqual(['5']);
    // A brushed time axis sends epoch milliseconds.
    expect(await ids([['day', [Date.UTC(2024, 0, 3), null]]])).toEqual(['3', '5']);
    // Timestamps: a day as the high end takes in the whole day; ISO times and epoch ms as bounds.
    expect(await ids([['at', ['2024-01-02', '2024-01-03']]])).toEqual(['2', '3']);
    expect(await ids([['at', ['2024-01-02T23:30:00.000Z', null]]])).toEqual(['2', '3', '5']);
    expect(await ids([['at', [null, '2024-01-03T11:59:59Z']]])).toEqual(['1', '2']);
    expect(await ids([['at', [Date.UTC(2024, 0, 3, 12), null]]])).toEqual(['3', '5']);
  });

  it('narrows by a switch and by a search ignoring case, every filter holding at once', async () => {
    expect(await ids([['paid', true]])).toEqual(['1', '3']);
    expect(await ids([['paid', false]])).toEqual(['2', '5']);
    expect(await ids([['note', 'RUSH']])).toEqual(['1', '5']);
    expect(await ids([['note', 'wrap']])).toEqual(['3']);
    expect(await ids([['note', '']])).toEqual(['1', '2', '3', '4', '5']);
    expect(
      await ids([
        ['note', 'rush'],
        ['amount', [null, 40]],
      ]),
    ).toEqual(['1']);
  });

  it('cross-filters from a clicked bar or pie slice and from a brush, leaving the chart itself whole', async () => {
    expect(await ids([['by_customer', ['c1', 'c3']]])).toEqual(['1', '3', '5']);
    expect(await ids([['share', ['c2']]])).toEqual(['2']);
    expect(await ids([['amounts', [15, 45]]])).toEqual(['2', '3']);
    const filters = [
      { component_id: 'by_customer', value: ['c1'] },
      { component_id: 'customer', value: ['c2', 'c1'] },
    ];
    // Each keeps all its own options / bars, narrowed only by the other filter.
    expect(await narrowed('by_customer', filters, 'customer')).toEqual(['c1', 'c1', 'c2']);
    expect(await narrowed('customer', filters, 'customer')).toEqual(['c1', 'c1']);
    expect(await narrowed('orders', filters)).toEqual(['1', '3']);
  });

  it('narrows a joined collection by a semi-join on the join keys, in both directions', async () => {
    const byRegion = [{ component_id: 'region', value: ['north'] }];
    expect(await narrowed('orders', byRegion)).toEqual(['1', '3', '5']);
    expect(await narrowed('region', byRegion, 'region')).toEqual(['north', 'north', 'south']);
    const bigOrders = [{ component_id: 'amount', value: [25, null] }];
    expect(await narrowed('customer_count', bigOrders)).toEqual(['c1', 'c3']);
    expect(await narrowed('customer_count', [{ component_id: 'by_customer', value: ['c2'] }])).toEqual(['c2']);
  });

  it('keys the filters reaching a component canonically, without its own', async () => {
    const a = await plan([
      { component_id: 'customers', value: ['c2', 'c1'] },
      { component_id: 'amount', value: [1, 2] },
    ]);
    const b = await plan([
      { component_id: 'amount', value: [1, 2] },
      { component_id: 'customers', value: ['c1', 'c2', 'c1'] },
    ]);
    const card = components.find((component) => component.component_id === 'orders')!;
    const own = components.find((component) => component.component_id === 'amount')!;
    if (!readsCollection(card) || !readsCollection(own)) throw new Error('not a data component');
    expect(a.of(card).key).toBe(b.of(card).key);
    expect(a.of(own).key).not.toBe(a.of(card).key);
    expect(a.of(own).key).toBe((await plan([{ component_id: 'customers', value: ['c1', 'c2'] }])).of(own).key);
    const region = await plan([{ component_id: 'region', value: ['north'] }]);
    expect(region.of(card).collections).toEqual([shop.customersId]);
    expect(a.of(card).collections).toEqual([]);
  });

  it('refuses unknown components, repeated ones, values of the wrong shape or type, at their place', async () => {
    const at = (path: string) => ({ code: 'validation_failed', errors: [expect.objectContaining({ path })] });
    expect(await refusal([['nope', ['x']]])).toMatchObject(at('body.filters[0].component_id'));
    expect(
      await refusal([
        ['customer', ['c1']],
        ['customer', ['c2']],
      ]),
    ).toMatchObject(at('body.filters[1].component_id'));
    expect(await refusal([['orders', ['x']]])).toMatchObject(at('body.filters[0].component_id'));
    expect(await refusal([['box', [1, 2]]])).toMatchObject(at('body.filters[0].component_id'));
    expect(await refusal([['customer', 'c1']])).toMatchObject(at('body.filters[0].value'));
    expect(await refusal([['amount', [1, 2, 3]]])).toMatchObject(at('body.filters[0].value'));
    expect(await refusal([['paid', 'yes']])).toMatchObject(at('body.filters[0].value'));
    expect(await refusal([['note', ['rush']]])).toMatchObject(at('body.filters[0].value'));
    expect(await refusal([['amounts', [true, false]]])).toMatchObject(at('body.filters[0].value'));
    expect(await refusal([['amounts', ['a', 'b']]])).toMatchObject(at('body.filters[0].value[0]'));
    expect(await refusal([['amount', [1, 'lots']]])).toMatchObject(at('body.filters[0].value[1]'));
    expect(
      await refusal([
        ['note', 'x'],
        ['day', ['2024-02-30', null]],
      ]),
    ).toMatchObject(at('body.filters[1].value[0]'));
  });
});
