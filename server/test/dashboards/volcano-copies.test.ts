import type { DashboardFilter } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../../../test/support/test-server.js';
import {
  expectSameAnswers,
  type PlotCase,
  type PlotDashboard,
  plotAnswers,
  plotDashboard,
  writeNextVersion,
} from './plot-copies.js';

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

const RESULTS: PlotCase = {
  title: 'Results',
  csv: resultsCsv,
  components: COMPONENTS,
  plots: PLOTS.map((plot) => plot.component_id),
};
const BUILT = { column: '__points_rank', copies: PLOTS.length };

describeEachDialect('Volcano and MA plots from the copies holding their cells', (dialect) => {
  let direct: PlotDashboard;
  let copied: PlotDashboard;

  beforeAll(async () => {
    direct = await plotDashboard(dialect, { SERVICE_DUCKDB_COPIES: '0' }, RESULTS);
    // Room for the table's copy and one for each plot.
    copied = await plotDashboard(dialect, { SERVICE_DUCKDB_COPY_MIN_ROWS: '0', SERVICE_DUCKDB_COPIES: '8' }, RESULTS);
  });
  afterAll(async () => {
    for (const started of [direct, copied]) {
      await started?.server.stop();
      await started?.server.database.drop();
    }
  });

  it('answers as the rows themselves do, filtered or not, thinned or not', async () => {
    const unfiltered = await plotAnswers(direct, RESULTS, []);
    expect(unfiltered.gridded).toMatchObject({ sampled: true, capped: expect.any(Number) });
    expect(unfiltered.sampled).toMatchObject({ sampled: true });
    expect(unfiltered.whole).toMatchObject({ sampled: false });
    expect(unfiltered.ma).toMatchObject({ sampled: true });
    expect(unfiltered.ma_plain).toMatchObject({ sampled: true });
    // The grid keeps fewer points than the hits; the sample every hit and some others.
    const rows = (id: string) => (unfiltered[id] as { rows: unknown[] }).rows.length;
    expect(rows('gridded')).toBeLessThan(3 * 49 + 10 + 1);
    expect(rows('sampled')).toBe(300);
    await expectSameAnswers({ direct, copied }, RESULTS, FILTER_SETS, BUILT);
    // Clustered by the range filter's column as the table's own copy is (each plot's and the table's).
    expect(copied.server.context.copies.counts.clustered).toBeGreaterThanOrEqual(PLOTS.length + 1);
  });

  it('never serves a copy of an earlier version', async () => {
    const before = await plotAnswers(direct, RESULTS, []);
    await writeNextVersion([direct, copied], RESULTS);
    const after = await plotAnswers(direct, RESULTS, []);
    expect(after).not.toEqual(before);
    // Read before its copies are built (from the rows), then from them.
    expect(await plotAnswers(copied, RESULTS, [])).toEqual(after);
    await expectSameAnswers({ direct, copied }, RESULTS, FILTER_SETS, BUILT);
  });
});
