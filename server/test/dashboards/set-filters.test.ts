import { expect, it } from 'vitest';
import { describeEachDialect } from '../../../test/support/test-server.js';
import { chartHarness } from './analytics-table.js';

/*
 * Issue 28: a click on an intersection of an UpSet plot of item–set pairs keeps the items paired
 * with exactly those sets (a semi-join on the item column); a click on an oncoplot's cell or gene
 * bar keeps that gene's rows. Counts worked out by hand below.
 */

/** Items and their sets: g1 {a}, g2 {a, b}, g3 {a, b}, g4 {c} (twice), g5 none (a null set). */
const PAIRS_CSV = ['gene,pathway', 'g1,a', 'g2,a', 'g2,b', 'g3,b', 'g3,a', 'g4,c', 'g4,c', 'g5,', ''].join('\n');

/** Alterations: TP53 in S1 (twice) and S2, KRAS in S1 and S3, EGFR in S3. */
const ONCO_CSV = [
  'sample,gene,alteration',
  'S1,TP53,missense',
  'S1,TP53,nonsense',
  'S1,KRAS,missense',
  'S2,TP53,missense',
  'S3,KRAS,amplification',
  'S3,EGFR,missense',
  '',
].join('\n');

/** Rows in sets a, b, c (0/1 columns): row 4 in none. */
const SETS_CSV = ['id,a,b,c', '1,1,0,0', '2,1,1,0', '3,1,1,0', '4,0,0,0', '5,0,1,1', ''].join('\n');

const UPSET = { component_id: 'u', type: 'figure', chart: 'upset', item: 'gene', set: 'pathway' };
const ROWS = { component_id: 'rows', type: 'card', agg: 'count' };
const PICK = { component_id: 'pick', type: 'interactive', widget: 'multiselect', column: 'pathway' };

describeEachDialect('set filters', (dialect) => {
  const charts = chartHarness(dialect, 'Sets');
  /** A dashboard of `components` on a new table of `csv`: its data with filters. */
  const dashboardOf = async (csv: string, components: Record<string, unknown>[]) =>
    (await charts.dashboardOf(csv, components)).data;

  it('narrows the others to the items in exactly the clicked intersection of item–set pairs', async () => {
    const data = await dashboardOf(PAIRS_CSV, [UPSET, ROWS, PICK]);
    const rowsWith = async (filters: unknown[]) => {
      const answer = await data(filters);
      expect(answer.status, answer.text).toBe(200);
      return answer.body.components.rows;
    };
    // g2 and g3: their four rows.
    expect(await rowsWith([{ component_id: 'u', value: ['a', 'b'] }])).toEqual({ value: 4, unfiltered_value: 8 });
    // In any order.
    expect(await rowsWith([{ component_id: 'u', value: ['b', 'a'] }])).toEqual({ value: 4, unfiltered_value: 8 });
    expect(await rowsWith([{ component_id: 'u', value: ['a'] }])).toEqual({ value: 1, unfiltered_value: 8 });
    expect(await rowsWith([{ component_id: 'u', value: ['c'] }])).toEqual({ value: 2, unfiltered_value: 8 });
    // No item is in b alone.
    expect(await rowsWith([{ component_id: 'u', value: ['b'] }])).toEqual({ value: 0, unfiltered_value: 8 });
    // An item's sets are its pairs in the whole table: g2 and g3 stay in {a, b} when only a's rows are shown.
    expect(
      await rowsWith([
        { component_id: 'u', value: ['a', 'b'] },
        { component_id: 'pick', value: ['a'] },
      ]),
    ).toEqual({ value: 2, unfiltered_value: 8 });
    // The UpSet plot itself stays whole.
    const whole = await data([{ component_id: 'u', value: ['a', 'b'] }]);
    expect(whole.body.components.u?.intersections).toEqual([
      { sets: ['a', 'b'], count: 2 },
      { sets: ['a'], count: 1 },
      { sets: ['c'], count: 1 },
    ]);
  });

  it('counts an UpSet plot of set columns over the filtered rows only, and none when no row is left', async () => {
    const columns = { component_id: 'u', type: 'figure', chart: 'upset', sets: ['a', 'b', 'c'] };
    const range = { component_id: 'ids', type: 'interactive', widget: 'range', column: 'id' };
    const data = await dashboardOf(SETS_CSV, [columns, range]);
    // Rows 2–5: a {2, 3}, b {2, 3, 5}, c {5}; row 4 is in no set.
    const some = await data([{ component_id: 'ids', value: [2, 5] }]);
    expect(some.status, some.text).toBe(200);
    expect(some.body.components.u).toMatchObject({
      total_rows: 4,
      set_sizes: { a: 2, b: 3, c: 1 },
      intersections: [
        { sets: ['a', 'b'], count: 2 },
        { sets: ['b', 'c'], count: 1 },
      ],
    });
    const none = await data([{ component_id: 'ids', value: [100, 200] }]);
    expect(none.status, none.text).toBe(200);
    expect(none.body.components.u).toMatchObject({ total_rows: 0, set_sizes: { a: 0, b: 0, c: 0 }, intersections: [] });
    expect(none.body.components.u?.left_out).toBeUndefined();
  });

  it('refuses an intersection that is not a list of distinct set names', async () => {
    const data = await dashboardOf(PAIRS_CSV, [UPSET, ROWS]);
    for (const value of [[], ['a', 'a'], [1], ['']]) {
      const answer = await data([{ component_id: 'u', value }]);
      expect(answer.status, JSON.stringify(value)).toBe(400);
      expect(answer.text).toContain('body.filters[0].value');
    }
  });

  it('narrows the others to the genes clicked on an oncoplot', async () => {
    const data = await dashboardOf(ONCO_CSV, [
      { component_id: 'o', type: 'figure', chart: 'oncoplot', x: 'sample', y: 'gene', color: 'alteration' },
      ROWS,
    ]);
    const answer = await data([{ component_id: 'o', value: ['TP53'] }]);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.components.rows).toEqual({ value: 3, unfiltered_value: 6 });
    const both = await data([{ component_id: 'o', value: ['KRAS', 'EGFR'] }]);
    expect(both.body.components.rows).toEqual({ value: 3, unfiltered_value: 6 });
    // The oncoplot stays whole.
    expect(both.body.components.o).toMatchObject({ total_rows: 6 });
  });
});
