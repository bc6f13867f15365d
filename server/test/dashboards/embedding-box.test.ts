import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, rowsOf, serverWithPeople } from './analytics-table.js';

/*
 * Issue 28: a rectangle brushed over an embedding of given coordinates selects, on the server,
 * every row inside it, not only the points the sampled embedding drew.
 */

/** 900 points on a 30 × 30 grid (x, y = 0…29), z = x + y; each with its id. */
const GRID_CSV = [
  'id,x,y,z',
  ...Array.from({ length: 900 }, (_, i) => `p${i},${i % 30},${Math.floor(i / 30)},${(i % 30) + Math.floor(i / 30)}`),
  '',
].join('\n');

describeEachDialect('a rectangle brushed over an embedding', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let dashboardId: string;

  beforeAll(async () => {
    const people = await serverWithPeople(dialect);
    server = people.server;
    ada = await people.session('ada@example.org');
    const { projectId, collectionId } = await projectWithTable(server, ada.access_token, 'Grid', GRID_CSV);
    const on = (component: Record<string, unknown>) => ({ data_collection_id: collectionId, ...component });
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: {
        project_id: projectId,
        title: 'Grid',
        components: [
          // At most 100 of the 900 points drawn.
          on({ component_id: 'e', type: 'figure', chart: 'embedding', x: 'x', y: 'y', label: 'id', max_points: 100 }),
          on({ component_id: 'e3', type: 'figure', chart: 'embedding', x: 'x', y: 'y', z: 'z', max_points: 100 }),
          on({ component_id: 'n', type: 'card', agg: 'count' }),
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

  const data = (filters: unknown[]) =>
    call<DataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: ada.access_token,
      json: { filters },
    });

  it('selects every row inside the rectangle, also those not drawn', async () => {
    const whole = await data([]);
    expect(whole.status, whole.text).toBe(200);
    const drawn = rowsOf(whole.body.components.e as Record<string, unknown>);
    expect(whole.body.components.e).toMatchObject({ sampled: true, total_rows: 900 });
    expect(drawn.length).toBeLessThanOrEqual(100);
    // x from 0 to 9.5 and y from 0 to 9.5: the 100 points of the first ten columns and rows.
    const inside = Array.from({ length: 900 }, (_, i) => i).filter((i) => i % 30 <= 9 && Math.floor(i / 30) <= 9);
    const drawnIds = new Set(drawn.map((row) => row.label));
    const notDrawn = inside.filter((i) => !drawnIds.has(`p${i}`));
    expect(notDrawn.length).toBeGreaterThan(0);
    const brushed = await data([{ component_id: 'e', value: [0, 9.5, 0, 9.5] }]);
    expect(brushed.status, brushed.text).toBe(200);
    expect(brushed.body.components.n).toEqual({ value: inside.length, unfiltered_value: 900 });
    // The other embedding now holds only those rows: every one it draws is inside.
    const narrowed = rowsOf(brushed.body.components.e3 as Record<string, unknown>);
    expect(narrowed.length).toBe(100);
    expect(narrowed.every((row) => (row.x as number) <= 9 && (row.y as number) <= 9)).toBe(true);
    // A row not drawn before is among them.
    const [first] = notDrawn;
    expect(narrowed).toContainEqual(
      expect.objectContaining({ x: (first ?? 0) % 30, y: Math.floor((first ?? 0) / 30) }),
    );
  });

  it('of a 3-D embedding leaves open the axis its panel does not show', async () => {
    // The x–z panel: x ≤ 4 and z = x + y ≥ 30, any y.
    const expected = Array.from({ length: 900 }, (_, i) => [i % 30, Math.floor(i / 30)]).filter(
      ([x = 0, y = 0]) => x <= 4 && x + y >= 30,
    ).length;
    const brushed = await data([{ component_id: 'e3', value: [null, 4, null, null, 30, null] }]);
    expect(brushed.status, brushed.text).toBe(200);
    expect(brushed.body.components.n).toEqual({ value: expected, unfiltered_value: 900 });
  });

  it('refuses a value that is no rectangle', async () => {
    const refused = await data([{ component_id: 'e', value: ['p1', 'p2', 'p3'] }]);
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/rectangle brushed/);
  });
});
