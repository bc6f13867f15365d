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
 * A Manhattan plot reads, once built, a copy of the version holding each row's cell of its grid
 * (analytics/components/manhattan-cells.ts). Here every version gets copies
 * (`SERVICE_DUCKDB_COPY_MIN_ROWS=0`), and a second server with copies off computes the same
 * dashboard from the rows themselves: both must answer exactly the same, filtered or not, thinned
 * or not, and again after a new version of the table.
 */

/**
 * A GWAS-like table: chromosome names written two ways, unknown and empty; negative positions;
 * significant rows, some identical; p values tied within a cell, 0, 1, missing and above 1. A
 * later `version` has other p values and the same layout (so only the version tells its copies apart).
 */
function gwasCsv(version: number): string {
  const names = ['chr1', '1', '2', 'X', 'chrM', 'Un_gl1', ''];
  const lines = Array.from({ length: 1500 }, (_, i) => {
    const chromosome = names[i % names.length];
    const position = i % 97 === 0 ? -5 : ((i * 7919) % 5000) + 1;
    const p =
      i % 50 === 0
        ? 1e-9 / (1 + (i % 7))
        : i % 11 === 0
          ? 0.5
          : i % 101 === 0
            ? [0, 1, '', 1.5][i % 4]
            : (((i * 104729 + version * 7) % 1000) + 1) / 1001;
    return `${chromosome},${position},${p},${((i * 37) % 500) / 1000}`;
  });
  return ['chrom,pos,p,maf', ...lines, lines[0], lines[50], ''].join('\n');
}

const manhattan = { type: 'figure', chart: 'manhattan', chromosome: 'chrom', position: 'pos', y: 'p' };
const COMPONENTS = [
  { ...manhattan, component_id: 'thinned', max_points: 200 },
  { ...manhattan, component_id: 'all', threshold: 1e-3 },
  { component_id: 'maf', type: 'interactive', widget: 'range', column: 'maf' },
  { component_id: 'chrom', type: 'interactive', widget: 'multiselect', column: 'chrom' },
];
const FILTER_SETS: DashboardFilter[][] = [
  [],
  [{ component_id: 'maf', value: [0.1, 0.3] }],
  [{ component_id: 'maf', value: [0.45, 0.5] }],
  [
    { component_id: 'maf', value: [0.05, 0.4] },
    { component_id: 'chrom', value: ['2', 'X', 'Un_gl1'] },
  ],
  [{ component_id: 'maf', value: [0.6, 0.7] }],
];

const GWAS: PlotCase = { title: 'GWAS', csv: gwasCsv, components: COMPONENTS, plots: ['thinned', 'all'] };
const BUILT = { column: '__manhattan_rank', copies: 2 };

describeEachDialect('Manhattan plots from the copies holding their cells', (dialect) => {
  let direct: PlotDashboard;
  let copied: PlotDashboard;

  beforeAll(async () => {
    direct = await plotDashboard(dialect, { SERVICE_DUCKDB_COPIES: '0' }, GWAS);
    copied = await plotDashboard(dialect, { SERVICE_DUCKDB_COPY_MIN_ROWS: '0' }, GWAS);
  });
  afterAll(async () => {
    for (const started of [direct, copied]) {
      await started?.server.stop();
      await started?.server.database.drop();
    }
  });

  it('answers as the rows themselves do, filtered or not, thinned or not', async () => {
    const unfiltered = await plotAnswers(direct, GWAS, []);
    expect(unfiltered.thinned).toMatchObject({ sampled: true });
    // Not thinned, with cells of several rows: the rows themselves are read, from the copy too.
    expect(unfiltered.all).toMatchObject({ sampled: false });
    await expectSameAnswers({ direct, copied }, GWAS, FILTER_SETS, BUILT);
  });

  it('never serves a copy of an earlier version', async () => {
    const before = await plotAnswers(direct, GWAS, []);
    await writeNextVersion([direct, copied], GWAS);
    const after = await plotAnswers(direct, GWAS, []);
    expect(after).not.toEqual(before);
    // Read before its copies are built (from the rows), then from them.
    expect(await plotAnswers(copied, GWAS, [])).toEqual(after);
    await expectSameAnswers({ direct, copied }, GWAS, FILTER_SETS, BUILT);
  });
});
