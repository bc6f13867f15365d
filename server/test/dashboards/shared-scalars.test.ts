import type { DashboardComponentInput, DashboardFilter } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SqlConnection } from '../../../server/src/engine/duckdb.js';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, serverWithPeople } from './analytics-table.js';

/** The median of flipper as the SQL writes it: over its finite values only (docs/data.md, NaN and Infinity). */
const FLIPPER_MEDIAN = 'quantile_cont(CASE WHEN isfinite("flipper") THEN "flipper" END, 0.5)';

/**
 * The components of one request that each need a few numbers over the same filtered rows (cards,
 * a scatter's counts, a histogram's range, a table's row count) get them from one shared scan
 * (analytics/components/shared-scalars.ts), with the same answers as when each is computed alone.
 */
const components = (data_collection_id: string): DashboardComponentInput[] => [
  { component_id: 'count', type: 'card', agg: 'count', data_collection_id },
  { component_id: 'mean', type: 'card', agg: 'mean', column: 'mass', data_collection_id },
  { component_id: 'median', type: 'card', agg: 'median', column: 'flipper', data_collection_id },
  { component_id: 'scatter', type: 'figure', chart: 'scatter', x: 'mass', y: 'flipper', data_collection_id },
  { component_id: 'histogram', type: 'figure', chart: 'histogram', x: 'mass', bins: 4, data_collection_id },
  { component_id: 'table', type: 'table', page_size: 5, data_collection_id },
  { component_id: 'species', type: 'interactive', widget: 'select', column: 'species', data_collection_id },
];
const IDS = ['count', 'mean', 'median', 'scatter', 'histogram', 'table'];

describeEachDialect('scalar aggregates shared by the components of a request', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let dashboardId: string;
  /** SQL of the statements that read the table, since the last `take`. */
  let reads: string[] = [];

  beforeAll(async () => {
    const started = await serverWithPeople(dialect);
    server = started.server;
    ada = await started.session('ada@example.org');
    const penguins = await projectWithTable(server, ada.access_token, 'Penguins');
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: penguins.projectId, title: 'Numbers', components: components(penguins.collectionId) },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
    // Every connection the server's DuckDB hands out notes the statements that read the table.
    const duckdb = server.context.duckdb;
    const connect = duckdb.connect.bind(duckdb);
    duckdb.connect = async () => {
      const connection = await connect();
      const query = connection.query.bind(connection);
      connection.query = ((sql: string, params?: Parameters<SqlConnection['query']>[1]) => {
        if (sql.includes('"dc_rows"')) reads.push(sql);
        return query(sql, params);
      }) as SqlConnection['query'];
      return connection;
    };
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const data = async (filters: DashboardFilter[], ids: string[]) => {
    reads = [];
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: ada.access_token,
      json: { filters, components: ids },
    });
    expect(answer.status, answer.text).toBe(200);
    return { components: answer.body.components, reads };
  };

  it('computes every number of one filter set in one scan, as each component alone would', async () => {
    // The whole table's numbers are remembered per version from the first request on.
    await data([{ component_id: 'species', value: ['Chinstrap'] }], IDS);
    const together = await data([{ component_id: 'species', value: ['Gentoo'] }], IDS);
    const shared = together.reads.filter((sql) => sql.includes('AS "s0"'));
    expect(shared).toHaveLength(1);
    // Besides it, only the statements that are not single numbers: the points, the bins, the page.
    expect(together.reads).toHaveLength(4);
    for (const expression of ['count(*)', 'avg("mass")', FLIPPER_MEDIAN, 'min(', 'max(']) {
      expect(shared[0]).toContain(expression);
    }
    for (const id of IDS) {
      // Alone, a component is not batched: its own statements compute it.
      const alone = await data([{ component_id: 'species', value: ['Gentoo'] }], [id]);
      expect(alone.reads.some((sql) => sql.includes('AS "s0"'))).toBe(false);
      expect(alone.components[id], id).toEqual(together.components[id]);
    }
    expect(together.components.count).toEqual({ value: 40, unfiltered_value: 120 });
    expect(together.components.mean).toEqual({ value: 3795, unfiltered_value: 3595 });
    expect((together.components.table as { total: number }).total).toBe(40);
    expect(together.components.scatter).toMatchObject({ total_rows: 40, sampled: false });
  });

  it("computes each card's whole-table number once, in the shared scan, on a first unfiltered read", async () => {
    const fresh = await projectWithTable(server, ada.access_token, 'Fresh penguins');
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: fresh.projectId, title: 'Fresh', components: components(fresh.collectionId) },
    });
    expect(created.status, created.text).toBe(201);
    reads = [];
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${created.body.dashboard_id}/data`, {
      token: ada.access_token,
      json: { components: IDS },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(reads.filter((sql) => sql.includes('avg("mass")'))).toHaveLength(1);
    expect(reads.filter((sql) => sql.includes(FLIPPER_MEDIAN))).toHaveLength(1);
    expect(answer.body.components.mean).toEqual({ value: 3595, unfiltered_value: 3595 });
  });

  it('leaves components answered from the cache out of the shared scan', async () => {
    const filters = [{ component_id: 'species', value: ['Adelie'] }];
    await data(filters, ['count']);
    const rest = await data(filters, ['count', 'mean', 'median']);
    const shared = rest.reads.filter((sql) => sql.includes('AS "s0"'));
    expect(shared).toHaveLength(1);
    expect(shared[0]).not.toContain('count(*)');
  });
});
