import { expect, it } from 'vitest';
import { describeEachDialect } from '../../../test/support/test-server.js';
import { chartHarness, rowsOf } from './analytics-table.js';

/*
 * Issue 28: a computed PCA with ids (`label`) filters the others by the ids of its brushed points,
 * one of given coordinates by the rectangle brushed (embedding-box.test.ts); a third coordinate (`z`) or component (`dimensions: 3`)
 * draws it in 3-D. Counts worked out by hand from the table below.
 */

/** Five samples; s3 has no c (out of a 3-D embedding on c, and of PCA over it). */
const SAMPLES_CSV = [
  'id,a,b,c,kind',
  's1,0,0,0,g1',
  's2,1,0,2,g1',
  's3,2,1,,g2',
  's4,3,3,1,g2',
  's5,4,2,5,g2',
  '',
].join('\n');

const ROWS = { component_id: 'n', type: 'card', agg: 'count' };
const GIVEN = { component_id: 'e', type: 'figure', chart: 'embedding', x: 'a', y: 'b', label: 'id' };
const PCA = { component_id: 'e', type: 'figure', chart: 'embedding', pca_columns: ['a', 'b', 'c'], label: 'id' };

describeEachDialect('embedding filters', (dialect) => {
  const charts = chartHarness(dialect, 'Embedding');
  /** `POST /dashboards` of `components` on a new table of the samples, unchecked. */
  const save = async (components: Record<string, unknown>[]) =>
    charts.save(await charts.table(SAMPLES_CSV), components);
  /** A dashboard of `components` on a new table of the samples: its data with filters. */
  const dashboardOf = async (components: Record<string, unknown>[]) =>
    (await charts.dashboardOf(SAMPLES_CSV, components)).data;

  it('narrows the others to the rectangle of given coordinates and the brushed ids of a PCA', async () => {
    for (const embedding of [GIVEN, PCA]) {
      const data = await dashboardOf([embedding, ROWS]);
      // a from 0.5 to 4 and b from 1.5 to 3: s4 (3, 3) and s5 (4, 2) of given coordinates.
      const value = embedding === GIVEN ? [0.5, 4, 1.5, 3] : ['s2', 's4', 's5'];
      const answer = await data([{ component_id: 'e', value }]);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.components.n).toEqual({ value: embedding === GIVEN ? 2 : 3, unfiltered_value: 5 });
      // The embedding brushed stays whole, each point with its id.
      const ids = rowsOf(answer.body.components.e as Record<string, unknown>).map((row) => row.label);
      expect(ids.sort()).toEqual(embedding === GIVEN ? ['s1', 's2', 's3', 's4', 's5'] : ['s1', 's2', 's4', 's5']);
    }
  });

  it('refuses ids from a PCA without label and from given coordinates, reads [low, high] as x', async () => {
    const { label: _, ...unlabelled } = PCA;
    const plain = await dashboardOf([unlabelled, ROWS]);
    const refused = await plain([{ component_id: 'e', value: ['s1'] }]);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('give it a label');
    const given = await dashboardOf([GIVEN, ROWS]);
    const ids = await given([{ component_id: 'e', value: ['s1', 's2'] }]);
    expect(ids.status).toBe(400);
    expect(ids.text).toContain('rectangle brushed');
    // Two numbers are a range of x: a from 0 to 1 holds s1 and s2.
    const range = await given([{ component_id: 'e', value: [0, 1] }]);
    expect(range.body.components.n).toEqual({ value: 2, unfiltered_value: 5 });
  });

  it('draws a third coordinate or principal component as z', async () => {
    const data = await dashboardOf([
      { ...GIVEN, z: 'c', color: 'kind' },
      { ...PCA, component_id: 'p', dimensions: 3 },
    ]);
    const answer = await data();
    expect(answer.status, answer.text).toBe(200);
    const given = answer.body.components.e as Record<string, unknown>;
    // s3 has no z: left out, still counted.
    expect(given).toMatchObject({ total_rows: 5, sampled: false });
    expect(rowsOf(given)).toEqual([
      { x: 0, y: 0, z: 0, color: 'g1', label: 's1' },
      { x: 1, y: 0, z: 2, color: 'g1', label: 's2' },
      { x: 3, y: 3, z: 1, color: 'g2', label: 's4' },
      { x: 4, y: 2, z: 5, color: 'g2', label: 's5' },
    ]);
    const pca = answer.body.components.p as { explained_variance: number[] } & Record<string, unknown>;
    expect(pca.explained_variance).toHaveLength(3);
    // Three standardized columns: the shares of all three components add up to the whole.
    expect(pca.explained_variance.reduce((sum, share) => sum + share, 0)).toBeCloseTo(1, 12);
    const rows = rowsOf(pca);
    expect(rows).toHaveLength(4);
    // Each component's scores are centred: they sum to 0.
    for (const role of ['x', 'y', 'z']) {
      expect(rows.reduce((sum, row) => sum + (row[role] as number), 0)).toBeCloseTo(0, 12);
    }
  });

  it('refuses z with pca_columns, dimensions without them, and a z that is not numeric', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...PCA, z: 'c' }, 'body.components[0].z'],
      [{ ...GIVEN, dimensions: 3 }, 'body.components[0].dimensions'],
      [{ ...GIVEN, z: 'kind' }, 'body.components[0].z'],
    ];
    for (const [component, path] of cases) {
      const answer = await save([component]);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.text).toContain(path);
    }
  });
});
