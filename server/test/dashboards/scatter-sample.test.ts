import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, serverWithPeople } from './analytics-table.js';

/**
 * A scatter beyond its point budget draws the points whose hash of their values comes first. The
 * server sorts only the rows under a hash bound (figures.ts); whatever the data — distinct points,
 * or a few values repeated so that a bound may hold too few — the sample must be exactly the one
 * sorting every row gives, computed here by DuckDB over the collection's table.
 */
const TABLES: Record<string, string> = {
  distinct: ['x,y', ...Array.from({ length: 1000 }, (_, i) => `${i},${(i * 37) % 101}`)].join('\n'),
  repeated: ['x,y', ...Array.from({ length: 1000 }, (_, i) => `${i % 3},${i % 3}`)].join('\n'),
  clustered: ['x,y', ...Array.from({ length: 1000 }, (_, i) => (i < 900 ? '7,7' : `${i},${i}`))].join('\n'),
};

describeEachDialect('a sampled scatter', (dialect) => {
  let server: TestServer;
  let ada: Session;

  beforeAll(async () => {
    const started = await serverWithPeople(dialect);
    server = started.server;
    ada = await started.session('ada@example.org');
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  /** The first `limit` rows by hash of (x, y), then x and y, sorted by x and y: the sample's definition. */
  async function expectedSample(collectionId: string, limit: number): Promise<unknown[][]> {
    const table = server.context.tableOf(collectionId);
    return server.context.duckdb.withConnection(async (connection) => {
      const scan = await table.scan(connection);
      try {
        const rows = await connection.query(
          `SELECT * FROM (SELECT "x", "y" FROM (${scan.sql}) ORDER BY hash("x", "y"), 1, 2 LIMIT ${limit}) ORDER BY 1, 2`,
        );
        return rows.map((row) => [Number(row.x), Number(row.y)]);
      } finally {
        scan.release();
      }
    });
  }

  it.each(Object.keys(TABLES))('is the sample sorting every row gives (%s points)', async (name) => {
    const project = await projectWithTable(server, ada.access_token, `Points ${name}`, `${TABLES[name]}\n`);
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: {
        project_id: project.projectId,
        title: name,
        components: [
          {
            component_id: 'scatter',
            type: 'figure',
            chart: 'scatter',
            x: 'x',
            y: 'y',
            max_points: 100,
            data_collection_id: project.collectionId,
          },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${created.body.dashboard_id}/data`, {
      token: ada.access_token,
      json: {},
    });
    expect(answer.status, answer.text).toBe(200);
    const scatter = answer.body.components.scatter as { rows: unknown[][]; sampled: boolean; total_rows: number };
    expect(scatter).toMatchObject({ sampled: true, total_rows: 1000 });
    expect(scatter.rows).toHaveLength(100);
    expect(scatter.rows).toEqual(await expectedSample(project.collectionId, 100));
  });
});
