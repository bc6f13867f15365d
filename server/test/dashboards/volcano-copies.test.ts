import type { DashboardFilter } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  call,
  describeEachDialect,
  type Session,
  type TestServer,
  uploadFile,
} from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, serverWithPeople, upsert } from './analytics-table.js';

/**
 * Volcano and MA plots read, once built, a copy of the version holding each row's class, cell,
 * rank and sample order (analytics/components/point-cells.ts). Here every version gets copies
 * (`SERVICE_DUCKDB_COPY_MIN_ROWS=0`), and a second server with copies off computes the same
 * dashboard from the rows themselves: both must answer exactly the same, filtered or not, thinned
 * to the grid, sampled or whole, and again after a new version of the table.
 */

/**
 * Differential results: fold changes over [−4, 4), q values from 0.1 down to 1e-6 with ties, 0,
 * 1, missing, NaN and above 1; missing fold changes; repeated gene names and two identical rows.
 * A later `version` has other q values and the same genes (only the version tells its copies apart).
 */
function resultsCsv(version: number): string {
  const odd = ['0', '1', '', '1.5', 'NaN'];
  const lines = Array.from({ length: 1500 }, (_, i) => {
    const lfc = i % 97 === 0 ? '' : String(((i * 37) % 800) / 100 - 4);
    const q =
      i % 101 === 0
        ? odd[i % odd.length]
        : i % 11 === 0
          ? '0.01'
          : i % 5 === 0
            ? String(0.2 + ((i * 13 + version) % 80) / 100)
            : String(10 ** -(1 + ((i * 7919 + version * 31) % 1000) / 200));
    const mean = ((i * 13) % 1000) / 100;
    return `g${i % 1400},${lfc},${q},${mean},${((i * 37) % 500) / 1000},${['a', 'b', 'c'][i % 3]}`;
  });
  return ['gene,lfc,q,mean,score,grp', ...lines, lines[2], lines[51], ''].join('\n');
}

const volcano = { type: 'figure', chart: 'volcano', x: 'lfc', y: 'q', label: 'gene' };
const ma = { type: 'figure', chart: 'ma', x: 'mean', y: 'lfc', label: 'gene' };
const PLOTS = [
  { ...volcano, component_id: 'gridded', max_points: 100 },
  { ...volcano, component_id: 'sampled', max_points: 300, p_threshold: 1e-5 },
  { ...volcano, component_id: 'whole', max_points: 50_000, fc_threshold: 2 },
  { ...ma, component_id: 'ma', p: 'q', max_points: 100 },
  { ...ma, component_id: 'ma_plain', max_points: 200 },
];
const COMPONENTS = [
  ...PLOTS,
  { component_id: 'score', type: 'interactive', widget: 'range', column: 'score' },
  { component_id: 'grp', type: 'interactive', widget: 'multiselect', column: 'grp' },
];
const FILTER_SETS: DashboardFilter[][] = [
  [],
  [{ component_id: 'score', value: [0.1, 0.3] }],
  [{ component_id: 'score', value: [0.45, 0.5] }],
  [
    { component_id: 'score', value: [0.05, 0.4] },
    { component_id: 'grp', value: ['a', 'c'] },
  ],
  [{ component_id: 'score', value: [0.6, 0.7] }],
];

interface Started {
  server: TestServer;
  ada: Session;
  dashboardId: string;
  collectionId: string;
}

async function withDashboard(dialect: 'sqlite' | 'postgres', env: Record<string, string>): Promise<Started> {
  const { server, session } = await serverWithPeople(dialect, env);
  const ada = await session('ada@example.org');
  const table = await projectWithTable(server, ada.access_token, 'Results', resultsCsv(0));
  const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
    token: ada.access_token,
    json: {
      project_id: table.projectId,
      title: 'Volcano',
      components: COMPONENTS.map((component) => ({ ...component, data_collection_id: table.collectionId })),
    },
  });
  if (created.status !== 201) throw new Error(created.text);
  return { server, ada, dashboardId: created.body.dashboard_id, collectionId: table.collectionId };
}

/** The plots' answers under `filters`. */
async function plots(started: Started, filters: DashboardFilter[]) {
  const answer = await call<DataAnswer>(started.server, 'POST', `/dashboards/${started.dashboardId}/data`, {
    token: started.ada.access_token,
    json: { filters },
  });
  if (answer.status !== 200) throw new Error(answer.text);
  return Object.fromEntries(PLOTS.map(({ component_id: id }) => [id, answer.body.components[id]]));
}

/** Copies holding points' cells (one per plot and version, until evicted). */
async function pointCopies(started: Started): Promise<number> {
  return started.server.context.duckdb.withConnection(async (connection) => {
    const [row] = await connection.query(
      'SELECT count(*)::INTEGER AS "n" FROM duckdb_columns() WHERE column_name = \'__points_rank\'',
    );
    return Number(row?.n);
  });
}

describeEachDialect('Volcano and MA plots from the copies holding their cells', (dialect) => {
  let direct: Started;
  let copied: Started;

  beforeAll(async () => {
    direct = await withDashboard(dialect, { SERVICE_DUCKDB_COPIES: '0' });
    // Room for the table's copy and one for each plot.
    copied = await withDashboard(dialect, { SERVICE_DUCKDB_COPY_MIN_ROWS: '0', SERVICE_DUCKDB_COPIES: '8' });
  });
  afterAll(async () => {
    for (const started of [direct, copied]) {
      await started?.server.stop();
      await started?.server.database.drop();
    }
  });

  /** Every filter set answered alike by both servers, the copies built first. */
  async function expectSameAnswers() {
    const copies = copied.server.context.copies;
    await plots(copied, []);
    await copies.idle();
    expect(await pointCopies(copied)).toBeGreaterThanOrEqual(PLOTS.length);
    // Clustered by the range filter's column as the table's own copy is (each plot's and the table's).
    expect(copies.counts.clustered).toBeGreaterThanOrEqual(PLOTS.length + 1);
    const reads = copies.counts.reads;
    for (const filters of FILTER_SETS) {
      const [expected, fromCopy] = [await plots(direct, filters), await plots(copied, filters)];
      expect(fromCopy, JSON.stringify(filters)).toEqual(expected);
    }
    // Each request read the plots' copies (and the table's copy for the rest).
    expect(copies.counts.reads - reads).toBeGreaterThanOrEqual(PLOTS.length * FILTER_SETS.length);
    expect(copies.counts.failed).toBe(0);
  }

  it('answers as the rows themselves do, filtered or not, thinned or not', async () => {
    const unfiltered = await plots(direct, []);
    expect(unfiltered.gridded).toMatchObject({ sampled: true, capped: expect.any(Number) });
    expect(unfiltered.sampled).toMatchObject({ sampled: true });
    expect(unfiltered.whole).toMatchObject({ sampled: false });
    expect(unfiltered.ma).toMatchObject({ sampled: true });
    expect(unfiltered.ma_plain).toMatchObject({ sampled: true });
    // The grid keeps fewer points than the hits; the sample every hit and some others.
    const rows = (id: string) => (unfiltered[id] as { rows: unknown[] }).rows.length;
    expect(rows('gridded')).toBeLessThan(3 * 49 + 10 + 1);
    expect(rows('sampled')).toBe(300);
    await expectSameAnswers();
  });

  it('never serves a copy of an earlier version', async () => {
    const before = await plots(direct, []);
    for (const started of [direct, copied]) {
      const token = started.ada.access_token;
      const uploaded = await uploadFile(started.server, token, started.collectionId, {
        path: 't.csv',
        content: resultsCsv(1),
      });
      expect(uploaded).toBe(201);
      await upsert(started.server, token, started.collectionId);
    }
    const after = await plots(direct, []);
    expect(after).not.toEqual(before);
    // Read before its copies are built (from the rows), then from them.
    expect(await plots(copied, [])).toEqual(after);
    await expectSameAnswers();
  });
});
