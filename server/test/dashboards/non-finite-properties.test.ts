import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  call,
  describeEachDialect,
  type Session,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';
import { type DataAnswer, rowsOf, serverWithPeople, upsert } from './analytics-table.js';
import {
  type DownloadedRow,
  downloadedRows,
  FIXTURE_TABLES,
  type GeneratedRow,
  parquetOf,
  parseDownloadedDouble,
  tables,
} from './generated-table.js';
import { type DoubleReference, doubleReference, expectClose, expectSum, int64Text } from './reference-statistics.js';

/*
 * Issue 24, as properties: for generated tables (generated-table.ts) every component kind, every
 * card aggregate and every filter widget answers `POST /dashboards/{id}/data` with 200 and no
 * component error, the exports and the overview generator answer too, and the numbers agree with
 * a reference worked out here (reference-statistics.ts). A fixed seed and a few runs per dialect
 * keep it quick on two cores; the point is the breadth of shapes, and FIXTURE_TABLES are always
 * tried first (add a failing case there).
 */
const SEED = 24;
const NUM_RUNS = 5;
/** A hang guard, not a speed check: each run makes a project, a table and two dashboards. */
const HANG_GUARD_MS = 300_000;

const FIGURES: Record<string, unknown>[] = [
  { chart: 'scatter', x: 'd', y: 'i', color: 's', size: 'd' },
  { chart: 'line', x: 'd', y: 'd', agg: 'mean' },
  { chart: 'line', x: 'i', y: 'd', agg: 'median', max_points: 100 },
  { chart: 'area', x: 's', y: 'd', agg: 'sum' },
  { chart: 'bar', x: 's', y: 'd', agg: 'mean', max_categories: 2 },
  { chart: 'bar', x: 'd', color: 's', y: 'i', agg: 'sum' },
  { chart: 'pie', color: 's', y: 'd', agg: 'max' },
  { chart: 'histogram', x: 'd' },
  { chart: 'histogram', x: 'd', log_x: true, color: 'b' },
  { chart: 'histogram', x: 'i' },
  { chart: 'box', x: 's', y: 'd' },
  { chart: 'box', y: 'i' },
  { chart: 'violin', x: 'b', y: 'd' },
  { chart: 'heatmap', x: 'd', y: 'i', color: 'd', agg: 'mean' },
  { chart: 'heatmap', x: 's', y: 'd' },
];
const CARDS: Record<string, unknown>[] = [
  { agg: 'count', component_id: 'card_rows' },
  ...['count', 'count_distinct', 'sum', 'mean', 'median', 'min', 'max'].map((agg) => ({
    agg,
    column: 'd',
    component_id: `card_${agg}`,
  })),
  ...['sum', 'min', 'max', 'mean'].map((agg) => ({ agg, column: 'i', component_id: `card_i_${agg}` })),
];
const WIDGETS: Record<string, unknown>[] = [
  { component_id: 'range_d', widget: 'range', column: 'd' },
  { component_id: 'range_i', widget: 'range', column: 'i' },
  { component_id: 'pick_d', widget: 'select', column: 'd' },
  { component_id: 'many_s', widget: 'multiselect', column: 's' },
  { component_id: 'switch_b', widget: 'switch', column: 'b' },
  { component_id: 'search_s', widget: 'search', column: 's' },
];

describeEachDialect('numbers as real data has them, as properties', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let runs = 0;

  beforeAll(async () => {
    // Each generated table asks for data, exports and an overview: well beyond one user's
    // default rate of data requests, which is not what this test is about.
    const people = await serverWithPeople(dialect, { SERVICE_DATA_RATE_LIMIT: '100000/minute' });
    server = people.server;
    ada = await people.session('ada@example.org');
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  const api = async <T = Record<string, unknown>>(method: string, path: string, json?: unknown) => {
    const answer = await call<T>(server, method, path, { token: ada.access_token, json });
    expect(answer.status, `${method} ${path}: ${answer.text}`).toBeLessThan(300);
    return answer.body;
  };

  /** A project whose one collection holds `rows` in its table. */
  async function tableOf(rows: readonly GeneratedRow[]) {
    runs += 1;
    const project = await api<{ project_id: string }>('POST', '/projects', { name: `Generated ${runs}` });
    const workflow = await api<{ workflow_id: string }>('POST', `/projects/${project.project_id}/workflows`, {
      name: 'wf',
    });
    const collection = await api<{ data_collection_id: string }>(
      'POST',
      `/workflows/${workflow.workflow_id}/datacollections`,
      { tag: 't', pattern: 't\\.parquet', format: 'parquet' },
    );
    const collectionId = collection.data_collection_id;
    const file = { path: 't.parquet', content: await parquetOf(rows) };
    expect(await uploadFile(server, ada.access_token, collectionId, file)).toBe(201);
    await upsert(server, ada.access_token, collectionId);
    return { projectId: project.project_id, collectionId };
  }

  async function everyComponent(projectId: string, collectionId: string) {
    const table = { data_collection_id: collectionId };
    const components = [
      ...FIGURES.map((figure, index) => ({ component_id: `f${index}`, type: 'figure', ...figure, ...table })),
      ...CARDS.map((card) => ({ type: 'card', ...card, ...table })),
      ...WIDGETS.map((widget) => ({ type: 'interactive', ...widget, ...table })),
      { component_id: 'rows', type: 'table', sort: [{ column: 'd', direction: 'desc' }], ...table },
    ];
    return api<{ dashboard_id: string }>('POST', '/dashboards', { project_id: projectId, title: 'All', components });
  }

  const data = async (dashboardId: string, filters: unknown[] = []) => {
    const answer = await api<DataAnswer>('POST', `/dashboards/${dashboardId}/data`, { filters });
    for (const [id, component] of Object.entries(answer.components)) {
      expect(component, `${id}: ${JSON.stringify(component)}`).not.toHaveProperty('error');
    }
    return answer.components;
  };

  function expectStatistics(components: DataAnswer['components'], reference: DoubleReference, rows: GeneratedRow[]) {
    const value = (id: string) => components[id]?.value;
    expect(value('card_rows'), 'rows').toBe(rows.length);
    expect(value('card_count'), 'count of d').toBe(reference.count);
    expect(value('card_count_distinct'), 'distinct d').toBe(reference.distinct);
    expectSum(value('card_sum'), reference.sum, reference, 'sum of d');
    expectSum(value('card_mean'), reference.mean, reference, 'mean of d');
    expectClose(value('card_median'), reference.median, 'median of d');
    expect(value('card_min'), 'min of d').toBe(reference.min);
    expect(value('card_max'), 'max of d').toBe(reference.max);
    expect(components.range_d, 'range of d').toEqual({ min: reference.min, max: reference.max });
    const ints = rows.flatMap((row) => (row.i === null ? [] : [BigInt(row.i)]));
    const intSum = ints.length === 0 ? null : String(ints.reduce((total, item) => total + item, 0n));
    expect(int64Text(value('card_i_sum')), 'sum of i').toBe(intSum);
    const sorted = [...ints].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(int64Text(value('card_i_min')), 'min of i').toBe(sorted.length === 0 ? null : String(sorted[0]));
    expect(int64Text(value('card_i_max')), 'max of i').toBe(sorted.length === 0 ? null : String(sorted.at(-1)));
    // A histogram bins the finite values only, from the lowest to the highest.
    const bins = rowsOf(components.f7 ?? {});
    const binned = bins.reduce((total, bin) => total + Number(bin.count), 0);
    expect(binned, 'histogram counts').toBe(reference.finite.length);
    if (reference.finite.length > 0) {
      expect(bins[0]?.x_low, 'first edge').toBe(reference.min);
      expect(bins.at(-1)?.x_high, 'last edge').toBe(reference.max);
      for (const bin of bins) expect(Number.isFinite(bin.x_low) && Number.isFinite(bin.x_high)).toBe(true);
    }
  }

  async function expectSummary(collectionId: string, reference: DoubleReference) {
    const summary = await api<{ columns: Record<string, unknown>[] }>(
      'GET',
      `/datacollections/${collectionId}/summary`,
    );
    const d = summary.columns.find((column) => column.name === 'd');
    if (d === undefined) return; // a table without rows has no columns yet
    expect(d).toMatchObject({ count: reference.count, non_finite: reference.nonFinite });
    expect(d).toMatchObject({ min: reference.min, max: reference.max });
    expectSum(d.mean, reference.mean, reference, 'mean in the summary');
    expectClose(d.std, reference.std, 'std in the summary', 1e-6);
  }

  async function expectFilters(dashboardId: string, reference: DoubleReference) {
    // A select picks NaN by its text; a range from 0 up holds no NaN (but +Infinity).
    const nans = await data(dashboardId, [{ component_id: 'pick_d', value: ['NaN'] }]);
    expect(nans.card_count?.value, 'rows picked as NaN').toBe(reference.nans);
    const upward = await data(dashboardId, [{ component_id: 'range_d', value: [0, null] }]);
    const atLeastZero = reference.finite.filter((value) => value >= 0).length;
    const infinities = reference.count - reference.finite.length - reference.nans;
    expect(upward.card_count_distinct?.value, 'a range holds no NaN').toBeLessThanOrEqual(atLeastZero + infinities);
    expect(upward.card_count?.value ?? 0).toBeGreaterThanOrEqual(atLeastZero);
    await data(dashboardId, [
      { component_id: 'switch_b', value: true },
      { component_id: 'search_s', value: 'ü' },
      { component_id: 'many_s', value: ['', 'a', null] },
      { component_id: 'range_i', value: ['-9223372036854775808', '9223372036854775807'] },
    ]);
  }

  const download = async (path: string) => {
    const response = await fetch(`${server.url}/service/api/v1${path}`, {
      headers: { authorization: `Bearer ${ada.access_token}` },
    });
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.status, `${path}: ${body.toString('utf8', 0, 500)}`).toBe(200);
    return body;
  };

  /** Every download holds the table's numbers exactly: doubles (NaN, ±Infinity, −0 too) and int64s. */
  async function expectExports(
    dashboardId: string,
    collectionId: string,
    rows: GeneratedRow[],
    reference: DoubleReference,
  ) {
    const expected = rows.map((row) => ({ d: row.d, i: row.i }));
    const asWritten = (downloaded: DownloadedRow[]) =>
      downloaded.map((row) => ({ d: parseDownloadedDouble(row.d), i: row.i }));
    const files = `/datacollections/${collectionId}/download`;
    // Unsorted downloads keep the files' row order; the table component's is sorted, so compared as sets.
    expect(asWritten(await downloadedRows(await download(`${files}?format=csv`), 'csv')), 'CSV').toEqual(expected);
    expect(asWritten(await downloadedRows(await download(`${files}?format=parquet`), 'parquet')), 'Parquet').toEqual(
      expected,
    );
    const table = await download(`/dashboards/${dashboardId}/components/rows/download`);
    expect(bySortKey(asWritten(await downloadedRows(table, 'csv'))), 'table download').toEqual(bySortKey(expected));
    for (const index of FIGURES.keys()) await download(`/export/components/${dashboardId}/f${index}`);
    const card = JSON.parse((await download(`/export/components/${dashboardId}/card_mean`)).toString('utf8'));
    expectSum(card.spec.value, reference.mean, reference, 'mean in the exported card');
    const histogram = JSON.parse((await download(`/export/components/${dashboardId}/f7`)).toString('utf8'));
    expect(exportedBinCounts(histogram), 'exported histogram counts').toBe(reference.finite.length);
  }

  async function expectOverview(projectId: string) {
    const overview = await api<{ dashboard_id: string }>('POST', '/dashboards', {
      project_id: projectId,
      title: 'Overview',
      template: 'overview',
    });
    await data(overview.dashboard_id);
  }

  it(
    'answers every component, export and overview, agreeing with the reference',
    async () => {
      await fc.assert(
        fc.asyncProperty(tables, async (rows) => {
          const { projectId, collectionId } = await tableOf(rows);
          const reference = doubleReference(rows.map((row) => row.d));
          const dashboard = await everyComponent(projectId, collectionId);
          expectStatistics(await data(dashboard.dashboard_id), reference, rows);
          await expectSummary(collectionId, reference);
          await expectFilters(dashboard.dashboard_id, reference);
          await expectExports(dashboard.dashboard_id, collectionId, rows, reference);
          await expectOverview(projectId);
        }),
        { seed: SEED, numRuns: NUM_RUNS + FIXTURE_TABLES.length, examples: FIXTURE_TABLES.map((rows) => [rows]) },
      );
    },
    HANG_GUARD_MS,
  );
});

/** Rows in one order whatever the download's, NaN and nulls included, for comparing as multisets. */
function bySortKey(rows: { d: number | null; i: string | null }[]) {
  const key = (row: { d: number | null; i: string | null }) =>
    `${Object.is(row.d, -0) ? '-0' : String(row.d)}|${row.i}`;
  return [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The rows a histogram's exported ECharts option counts: the sum of its dataset's `g0` (count) column. */
function exportedBinCounts(exported: { spec: { dataset?: unknown } }): number {
  const [dataset] = exported.spec.dataset as { dimensions: { name: string }[]; source: unknown[] }[];
  const column = dataset?.dimensions.findIndex((dimension) => dimension.name === 'g0') ?? -1;
  expect(column, 'the count column of the histogram').toBeGreaterThanOrEqual(0);
  return (dataset?.source ?? []).reduce<number>((total, row) => {
    const count = Array.isArray(row) ? row[column] : (row as Record<string, unknown>).g0;
    return total + Number(count);
  }, 0);
}
