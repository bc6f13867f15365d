import type { CardData, CardSpec, DashboardComponentInput, DashboardFilter } from '@service/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createProjectWithUpload,
  describeEachDialect,
  type Session,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';
import { type DataAnswer, PENGUINS, serverWithPeople, upsert } from './analytics-table.js';

/**
 * Cards beyond one number (docs/dashboards.md "Cards"): the new aggregates, a comparison with the
 * table's previous version or a reference, sparklines across versions and per period of a date
 * column. The table is analytics-table.ts's 120 penguins (mass 3000 + 10·i, day 2024-01-01 +
 * (i mod 30), species Adelie i < 60, Gentoo 60 ≤ i < 100, Chinstrap after); its first version
 * holds only the first 100 rows. Every expected number is worked out by hand below.
 */
const FIRST_100 = PENGUINS.split('\n').slice(0, 101).join('\n');

const cards = (data_collection_id: string): DashboardComponentInput[] => [
  { component_id: 'species', type: 'interactive', widget: 'select', column: 'species', data_collection_id },
  // Sample variance of 3000 + 10·i over i = 0…119: 100 · 120·121/12 = 121,000.
  { component_id: 'std', type: 'card', agg: 'std', column: 'mass', data_collection_id },
  { component_id: 'variance', type: 'card', agg: 'variance', column: 'mass', data_collection_id },
  // Position 119 · 0.9 = 107.1 → i = 107.1 → 4071.
  { component_id: 'p90', type: 'card', agg: 'percentile', p: 90, column: 'mass', data_collection_id },
  { component_id: 'range', type: 'card', agg: 'range', column: 'mass', data_collection_id },
  // Day 1 is i = 0, 30, 60, 90 (the lowest sample wins the tie); day 30 is i = 29, 59, 89, 119.
  { component_id: 'first', type: 'card', agg: 'first', column: 'sample', order_by: 'day', data_collection_id },
  { component_id: 'last', type: 'card', agg: 'last', column: 'sample', order_by: 'day', data_collection_id },
  { component_id: 'mode', type: 'card', agg: 'mode', column: 'species', data_collection_id },
  { component_id: 'nunique', type: 'card', agg: 'nunique', column: 'island', data_collection_id },
  {
    component_id: 'count_vs_previous',
    type: 'card',
    agg: 'count',
    comparison: { against: 'previous_version' },
    sparkline: { over: 'versions' },
    data_collection_id,
  },
  {
    component_id: 'mean_vs_target',
    type: 'card',
    agg: 'mean',
    column: 'mass',
    comparison: { against: 'reference', value: 3500, label: 'target' },
    thresholds: [{ op: '>', value: 3550, color: 'green' }],
    gauge: { max: 5000 },
    format: { decimals: 1, unit: 'g' },
    data_collection_id,
  },
  {
    component_id: 'per_day',
    type: 'card',
    agg: 'count',
    sparkline: { over: 'column', column: 'day' },
    data_collection_id,
  },
  {
    component_id: 'per_week',
    type: 'card',
    agg: 'count',
    sparkline: { over: 'column', column: 'day', grain: 'week' },
    data_collection_id,
  },
];

describeEachDialect('cards: aggregates, comparisons and sparklines', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let dashboardId: string;
  let collectionId: string;
  let projectId: string;

  beforeAll(async () => {
    const started = await serverWithPeople(dialect);
    server = started.server;
    ada = await started.session('ada@example.org');
    const project = await createProjectWithUpload(server, ada.access_token, 'Penguins', FIRST_100);
    ({ collectionId, projectId } = project);
    await upsert(server, ada.access_token, collectionId);
    expect(await uploadFile(server, ada.access_token, collectionId, { path: 't.csv', content: PENGUINS })).toBe(201);
    await upsert(server, ada.access_token, collectionId);
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: projectId, title: 'Cards', components: cards(collectionId) },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const data = async (filters: DashboardFilter[] = [], as_of?: Record<string, number>) => {
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: ada.access_token,
      json: { filters, ...(as_of ? { as_of } : {}) },
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.components as Record<string, CardData>;
  };

  it('computes the new aggregates exactly, filtered and over the whole table', async () => {
    const all = await data();
    expect(all.variance!.value).toBeCloseTo(121_000, 6);
    expect(all.std!.value).toBeCloseTo(Math.sqrt(121_000), 9);
    expect(all.p90!.value).toBeCloseTo(4071, 9);
    expect(all.range!.value).toBe(1190);
    expect(all.first!.value).toBe('S000');
    expect(all.last!.value).toBe('S119');
    expect(all.mode!.value).toBe('Adelie');
    expect(all.nunique!.value).toBe(2);
    // Gentoo: i = 60…99, a sample variance of 100 · 40·41/12.
    const gentoo = await data([{ component_id: 'species', value: ['Gentoo'] }]);
    expect(gentoo.variance!.value).toBeCloseTo((100 * 40 * 41) / 12, 6);
    expect(gentoo.variance!.unfiltered_value).toBeCloseTo(121_000, 6);
    expect(gentoo.range!.value).toBe(390);
    expect(gentoo.first!.value).toBe('S060');
    expect(gentoo.last!.value).toBe('S089');
    expect(gentoo.mode!.value).toBe('Gentoo');
  });

  it("compares with the table's previous version under the same filters", async () => {
    const all = await data();
    expect(all.count_vs_previous!.comparison).toEqual({ reference: 100, version: 0, change: 20, change_pct: 20 });
    // Adelie (i < 60) are in both versions alike.
    const adelie = await data([{ component_id: 'species', value: ['Adelie'] }]);
    expect(adelie.count_vs_previous!.comparison).toEqual({ reference: 60, version: 0, change: 0, change_pct: 0 });
    // Read as it was at version 0, there is nothing earlier to compare with.
    const before = await data([], { [collectionId]: 0 });
    expect(before.count_vs_previous!.value).toBe(100);
    expect(before.count_vs_previous!.comparison).toEqual({
      reference: null,
      version: null,
      change: null,
      change_pct: null,
    });
  });

  it('compares with a reference value', async () => {
    const { mean_vs_target: card } = await data();
    // Mean mass over 120: 3000 + 10 · 59.5 = 3595.
    expect(card!.value).toBeCloseTo(3595, 9);
    expect(card!.comparison!.reference).toBe(3500);
    expect(card!.comparison!.change).toBeCloseTo(95, 9);
    expect(card!.comparison!.change_pct).toBeCloseTo((95 / 3500) * 100, 9);
  });

  it('draws the number across versions, and per period of a date column', async () => {
    const all = await data();
    expect(all.count_vs_previous!.sparkline).toEqual({
      points: [
        { x: 0, value: 100 },
        { x: 1, value: 120 },
      ],
    });
    // 30 days fit the 60 points of a day grain: 4 penguins a day.
    const perDay = all.per_day!.sparkline!;
    expect(perDay.grain).toBe('day');
    expect(perDay.points).toHaveLength(30);
    expect(perDay.points[0]).toEqual({ x: '2024-01-01', value: 4 });
    expect(perDay.points.every((point) => point.value === 4)).toBe(true);
    // Weeks from Monday 2024-01-01: four of 7 days (28 penguins each), then 29–30 January (8).
    expect(all.per_week!.sparkline).toEqual({
      grain: 'week',
      points: [
        { x: '2024-01-01', value: 28 },
        { x: '2024-01-08', value: 28 },
        { x: '2024-01-15', value: 28 },
        { x: '2024-01-22', value: 28 },
        { x: '2024-01-29', value: 8 },
      ],
    });
    // Under a filter: Chinstrap (i ≥ 100) on days i mod 30 = 10…29, once each for weeks 2–4 and 5.
    const chinstrap = await data([{ component_id: 'species', value: ['Chinstrap'] }]);
    expect(chinstrap.per_week!.sparkline!.points).toEqual([
      { x: '2024-01-08', value: 4 },
      { x: '2024-01-15', value: 7 },
      { x: '2024-01-22', value: 7 },
      { x: '2024-01-29', value: 2 },
    ]);
  });

  it('exports a card with its comparison, colour, format and gauge', async () => {
    const spec = await call<{ spec: CardSpec }>(
      server,
      'GET',
      `/export/components/${dashboardId}/mean_vs_target?format=spec`,
      { token: ada.access_token },
    );
    expect(spec.status, spec.text).toBe(200);
    expect(spec.body.spec.comparison?.reference).toBe(3500);
    const page = await call(server, 'GET', `/export/components/${dashboardId}/mean_vs_target?format=html`, {
      token: ada.access_token,
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<div class="value tone-green">3,595.0 g</div>');
    expect(page.text).toContain('▲ +2.7%');
    expect(page.text).toContain('vs target');
    expect(page.text).toMatch(/<svg class="card-art tone-green"[^>]*viewBox="0 0 100 55"/);
  });

  describe('refused when saved', () => {
    const refused = async (component: Record<string, unknown>) => {
      const answer = await call<{ errors: { path: string; message: string }[] }>(server, 'POST', '/dashboards', {
        token: ada.access_token,
        json: {
          project_id: projectId,
          title: 'Bad',
          components: [{ component_id: 'c', type: 'card', data_collection_id: collectionId, ...component }],
        },
      });
      expect(answer.status, answer.text).toBe(400);
      return answer.body.errors.map((error) => error.path);
    };

    it('names the field an aggregate, a comparison, a sparkline or a gauge lacks or gets wrong', async () => {
      expect(await refused({ agg: 'percentile', column: 'mass' })).toEqual(['body.components[0].p']);
      expect(await refused({ agg: 'percentile', column: 'mass', p: 101 })).toEqual(['body.components[0].p']);
      expect(await refused({ agg: 'last', column: 'mass' })).toEqual(['body.components[0].order_by']);
      expect(await refused({ agg: 'mean', column: 'mass', order_by: 'day' })).toEqual(['body.components[0].order_by']);
      expect(await refused({ agg: 'std', column: 'species' })).toEqual(['body.components[0].column']);
      expect(await refused({ agg: 'last', column: 'mass', order_by: 'nope' })).toEqual(['body.components[0].order_by']);
      expect(await refused({ agg: 'count', sparkline: { over: 'column', column: 'mass' } })).toEqual([
        'body.components[0].sparkline.column',
      ]);
      expect(await refused({ agg: 'count', gauge: { min: 5, max: 5 } })).toEqual(['body.components[0].gauge']);
      expect(await refused({ agg: 'count', thresholds: [{ op: '<', value: 1, color: 'pink' }] })).toEqual([
        'body.components[0].thresholds[0].color',
      ]);
      expect(await refused({ agg: 'count', comparison: { against: 'yesterday' } })).toEqual([
        'body.components[0].comparison.against',
      ]);
    });
  });
});
