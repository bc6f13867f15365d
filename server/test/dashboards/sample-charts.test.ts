import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { call, describeEachDialect } from '../../../test/support/test-server.js';
import { chartHarness, rowsOf } from './analytics-table.js';

/*
 * Issue 28, the charts of samples and communities: clustered heatmaps, embeddings, rarefaction
 * curves and oncoplots computed on the server. The expected numbers were worked out by hand from
 * the small tables below, not by the code under test.
 */

/*
 * The 4 × 4 matrix (rows r1…r4, columns s1…s4) and its clustering, by hand.
 *
 *        s1 s2 s3 s4   kingdom
 *   r1:   0  1  0  2   A
 *   r2:   5  0  4  0   B
 *   r3:   1  1  0  2   A
 *   r4:   5  0  4  3   B
 *
 * Rows, Euclidean distances: d(r1,r3) = 1, d(r2,r4) = 3, d(r1,r2) = √(25+1+16+4) = √46,
 * d(r1,r4) = √(25+1+16+1) = √43, d(r3,r2) = √(16+1+16+4) = √37, d(r3,r4) = √(16+1+16+1) = √34.
 * Average linkage: 1. join r1 and r3 at 1 (the smallest); then d({r1,r3}, r2) = (√46 + √37)/2 ≈ 6.43
 * and d({r1,r3}, r4) = (√43 + √34)/2 ≈ 6.19, both above d(r2,r4) = 3: 2. join r2 and r4 at 3;
 * 3. join the two at the mean of the four cross distances (√46 + √43 + √37 + √34)/4 ≈ 6.313.
 * Leaf order: r1, r3 | r2, r4 (the cluster holding the earlier row goes left).
 *
 * Columns, as vectors over r1…r4: s1 = (0,5,1,5), s2 = (1,0,1,0), s3 = (0,4,0,4), s4 = (2,0,2,3).
 * d(s1,s2) = √51, d(s1,s3) = √3, d(s1,s4) = √34, d(s2,s3) = √34, d(s2,s4) = √11, d(s3,s4) = 5.
 * 1. join s1 and s3 at √3 ≈ 1.732; then d({s1,s3}, s2) = (√51 + √34)/2 ≈ 6.49 and d({s1,s3}, s4) =
 * (√34 + 5)/2 ≈ 5.42, above d(s2,s4) = √11 ≈ 3.317: 2. join s2 and s4 at √11; 3. join the two at
 * (√51 + √34 + √34 + 5)/4 ≈ 5.951. Leaf order: s1, s3 | s2, s4.
 *
 * Sample variances of the rows: r1 2.75/3, r2 20.75/3, r3 2/3, r4 14/3: the two most variable are r2, r4.
 * z-scores of r1: mean 0.75, sd √(2.75/3); s4 → 1.25 / √(2.75/3) ≈ 1.3056.
 */
const MATRIX_CSV = [
  'name,s1,s2,s3,s4,kingdom',
  'r1,0,1,0,2,A',
  'r2,5,0,4,0,B',
  'r3,1,1,0,2,A',
  'r4,5,0,4,3,B',
  '',
].join('\n');

/** The same matrix as a long table; r1's s2 comes as two rows, 0 and 2, averaged to 1. */
const LONG_CSV = [
  'name,sample,value',
  ...[
    ['r1', [0, 1, 0, 2]],
    ['r2', [5, 0, 4, 0]],
    ['r3', [1, 1, 0, 2]],
    ['r4', [5, 0, 4, 3]],
  ].flatMap(([name, values]) =>
    (values as number[]).flatMap((value, at) =>
      name === 'r1' && at === 1 ? [`r1,s2,0`, `r1,s2,2`] : [`${name},s${at + 1},${value}`],
    ),
  ),
  '',
].join('\n');

/**
 * PCA of u and v: both standardized (mean 2.5, sd √(5/3)); their correlation r = 3 / (5/3) / 3 = 0.6;
 * the correlation matrix [[1, r], [r, 1]] has eigenvalues 1.6 and 0.4 (explained 0.8 and 0.2) with
 * eigenvectors (1, 1)/√2 and (1, −1)/√2. The first row, z = (−1.5, −0.5)/√(5/3), scores
 * PC1 = (zu + zv)/√2 = −2/√(5/3)/√2 ≈ −1.0954 and PC2 = (zu − zv)/√2 = −1/√(5/3)/√2 ≈ −0.5477.
 */
const PCA_CSV = ['id,u,v,kind', 'p1,1,2,x', 'p2,2,1,x', 'p3,3,4,y', 'p4,4,3,y', 'p5,,1,y', ''].join('\n');

/**
 * Rarefaction: per sample, depth 10: s1 (1, 3) mean 2, sd √2; s2 (2, 2) mean 2, sd 0. Depth 20:
 * s1 (4, 4) mean 4, sd 0; s2 (5, 7) mean 6, sd √2. Per group g (both): depth 10 (1, 3, 2, 2) mean 2,
 * sd √(2/3); depth 20 (4, 4, 5, 7) mean 5, sd √(6/3) = √2. The row without a metric is left out.
 */
const RAREFACTION_CSV = [
  'sample,depth,iter,metric,grp',
  's1,10,1,1,g',
  's1,10,2,3,g',
  's1,20,1,4,g',
  's1,20,2,4,g',
  's2,10,1,2,g',
  's2,10,2,2,g',
  's2,20,1,5,g',
  's2,20,2,7,g',
  's2,30,1,,g',
  '',
].join('\n');

/**
 * Oncoplot: TP53 altered in S1 (twice: `multiple`) and S2, KRAS in S1 and S3, EGFR in S3; S4 has no
 * alteration. Genes by samples altered: KRAS 2, TP53 2 (by name among equals), EGFR 1. Samples by
 * their pattern over (KRAS, TP53, EGFR): S1 110, S3 101, S2 010, S4 000.
 */
const ONCO_CSV = [
  'sample,gene,alteration',
  'S1,TP53,missense',
  'S1,TP53,nonsense',
  'S1,KRAS,missense',
  'S2,TP53,missense',
  'S3,KRAS,amplification',
  'S3,EGFR,missense',
  'S4,,',
  '',
].join('\n');

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/ampliseq/${name}`, import.meta.url), 'utf8').replaceAll('\t', ',');

const WIDE = { type: 'figure', chart: 'clustered_heatmap', row: 'name', matrix_columns: ['s1', 's2', 's3', 's4'] };

describeEachDialect('the charts of samples', (dialect) => {
  const charts = chartHarness(dialect, 'Samples');
  const { draw, dashboardOf } = charts;

  it('clusters the rows and columns of a 4 × 4 matrix as computed by hand', async () => {
    const { h } = await draw(MATRIX_CSV, [{ component_id: 'h', ...WIDE, annotations: ['kingdom'] }]);
    const matrix = (h as { matrix: Record<string, unknown> }).matrix;
    expect(matrix).toMatchObject({ rows: ['r1', 'r3', 'r2', 'r4'], columns: ['s1', 's3', 's2', 's4'] });
    expect(matrix).toMatchObject({ total_rows: 4, total_columns: 4 });
    expect(matrix.annotations).toEqual([{ name: 'kingdom', values: ['A', 'A', 'B', 'B'] }]);
    const rowTree = matrix.row_tree as number[][];
    expect(rowTree.map(([a, b]) => [a, b])).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
    ]);
    const rowHeights = [1, 3, (Math.sqrt(46) + Math.sqrt(43) + Math.sqrt(37) + Math.sqrt(34)) / 4];
    for (const [at, [, , height]] of rowTree.entries()) expect(height).toBeCloseTo(rowHeights[at] ?? Number.NaN, 12);
    const columnTree = matrix.column_tree as number[][];
    expect(columnTree.map(([a, b]) => [a, b])).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
    ]);
    const columnHeights = [Math.sqrt(3), Math.sqrt(11), (Math.sqrt(51) + 2 * Math.sqrt(34) + 5) / 4];
    for (const [at, [, , height]] of columnTree.entries()) {
      expect(height).toBeCloseTo(columnHeights[at] ?? Number.NaN, 12);
    }
    // The cells once, row by row in drawing order (r1, r3, r2, r4 × s1, s3, s2, s4); no row per cell.
    expect(matrix.values).toEqual([0, 0, 1, 2, 1, 0, 1, 2, 5, 4, 0, 0, 5, 4, 0, 3]);
    expect(matrix).not.toHaveProperty('raw');
    expect(h).toMatchObject({ rows: [], total_rows: 4, sampled: false });
    expect((h as { columns: { name: string }[] }).columns.map((column) => column.name)).toEqual([
      'row',
      'column',
      'value',
    ]);
  });

  it('sends a missing cell as null in its place, and the raw values beside z-scores', async () => {
    // a: 1 and nothing (a constant row: z-score 0); b: 3 and 4, mean 3.5, sd √0.5: ∓0.5/√0.5 = ∓√0.5.
    const { m, s } = await draw(['name,x,y', 'a,1,', 'b,3,4', ''].join('\n'), [
      { component_id: 'm', type: 'figure', chart: 'clustered_heatmap', row: 'name', matrix_columns: ['x', 'y'] },
      {
        component_id: 's',
        type: 'figure',
        chart: 'clustered_heatmap',
        row: 'name',
        matrix_columns: ['x', 'y'],
        scale: 'row',
        cluster_rows: false,
        cluster_columns: false,
      },
    ]);
    expect((m as { matrix: unknown }).matrix).toMatchObject({ rows: ['a', 'b'], columns: ['x', 'y'] });
    expect((m as { matrix: { values: unknown } }).matrix.values).toEqual([1, null, 3, 4]);
    const scaled = (s as { matrix: { values: (number | null)[]; raw: unknown } }).matrix;
    expect(scaled.raw).toEqual([1, null, 3, 4]);
    expect(scaled.values.slice(0, 2)).toEqual([0, null]);
    // z-scores are sent to four decimals (±√0.5 = ±0.70710678…).
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: √0.5 to four decimals, as sent
    expect(scaled.values.slice(2)).toEqual([-0.7071, 0.7071]);
    expect((s as { columns: { name: string }[] }).columns.map((column) => column.name)).toEqual([
      'row',
      'column',
      'value',
      'raw',
    ]);
  });

  it('reads a wide table line by line when no label repeats, and averages a label on two lines', async () => {
    // A line without a label counts in total_rows but is no row; "a" on two lines is one row of
    // the means of what it has (x: 1 and 3, y: 2 only).
    const plain = { type: 'figure', chart: 'clustered_heatmap', row: 'name', matrix_columns: ['x', 'y'] };
    const fixed = { ...plain, cluster_rows: false, cluster_columns: false };
    const { u } = await draw(['name,x,y', 'b,3,5', 'a,1,2', ',7,8', ''].join('\n'), [{ component_id: 'u', ...fixed }]);
    expect(u).toMatchObject({ total_rows: 3, matrix: { rows: ['a', 'b'], total_rows: 2, values: [1, 2, 3, 5] } });
    const { g } = await draw(['name,x,y', 'a,1,2', 'b,3,5', 'a,3,', ',7,8', ''].join('\n'), [
      { component_id: 'g', ...fixed },
    ]);
    expect(g).toMatchObject({ total_rows: 4, matrix: { rows: ['a', 'b'], total_rows: 2, values: [2, 2, 3, 5] } });
  });

  it('breaks ties between equally close pairs by input order', async () => {
    // a = 0, b = 1, c = 2, d = 3: a–b, b–c and c–d all 1 apart. a and b join first (met first),
    // then c and d at 1 (below d({a,b}, c) = 1.5), then the two at the mean of 2, 3, 1, 2 = 2.
    const { t } = await draw(['name,x', 'a,0', 'b,1', 'c,2', 'd,3', ''].join('\n'), [
      { component_id: 't', type: 'figure', chart: 'clustered_heatmap', row: 'name', matrix_columns: ['x'] },
    ]);
    expect((t as { matrix: unknown }).matrix).toMatchObject({
      rows: ['a', 'b', 'c', 'd'],
      row_tree: [
        [0, 1, 1],
        [2, 3, 1],
        [4, 5, 2],
      ],
    });
  });

  it('reads the same matrix from a long table, averaging a cell given twice', async () => {
    const { h } = await draw(LONG_CSV, [
      { component_id: 'h', type: 'figure', chart: 'clustered_heatmap', row: 'name', column: 'sample', value: 'value' },
    ]);
    expect((h as { matrix: unknown }).matrix).toMatchObject({
      rows: ['r1', 'r3', 'r2', 'r4'],
      columns: ['s1', 's3', 's2', 's4'],
      values: [0, 0, 1, 2, 1, 0, 1, 2, 5, 4, 0, 0, 5, 4, 0, 3],
      total_rows: 4,
      total_columns: 4,
    });
    expect(h).toMatchObject({ total_rows: 17 });
  });

  it('scales rows to z-scores and keeps the most variable rows beyond the budget', async () => {
    const { z, top } = await draw(MATRIX_CSV, [
      { component_id: 'z', ...WIDE, scale: 'row', cluster_rows: false, cluster_columns: false },
      { component_id: 'top', ...WIDE, max_rows: 2 },
    ]);
    const scaled = (z as { matrix: { values: number[]; raw: number[] } }).matrix;
    expect(scaled).toMatchObject({
      rows: ['r1', 'r2', 'r3', 'r4'],
      columns: ['s1', 's2', 's3', 's4'],
      row_tree: null,
      column_tree: null,
    });
    // In input order (nothing clustered): r1's s4 is the fourth cell.
    expect(scaled.raw).toEqual([0, 1, 0, 2, 5, 0, 4, 0, 1, 1, 0, 2, 5, 0, 4, 3]);
    expect(scaled.values).toHaveLength(16);
    // 1.25 / √(2.75 / 3) = 1.30558…, sent to four decimals.
    expect(scaled.values[3]).toBe(1.3056);
    expect(top).toMatchObject({ sampled: true, matrix: { rows: ['r2', 'r4'], total_rows: 4 } });
    expect((top as { matrix: { row_tree: number[][] } }).matrix.row_tree).toEqual([[0, 1, 3]]);
  });

  it('narrows a card to the clicked heatmap row', async () => {
    const answer = await draw(
      MATRIX_CSV,
      [
        { component_id: 'h', ...WIDE },
        { component_id: 'n', type: 'card', agg: 'sum', column: 's1' },
      ],
      [{ component_id: 'h', value: ['r2', 'r4'] }],
    );
    expect(answer.n).toEqual({ value: 10, unfiltered_value: 11 });
  });

  it('clusters the ampliseq phylum abundances and sample distances', async () => {
    const samples = fixture('bray_curtis_canonical.tsv').split('\n')[0]?.split(',').slice(1) ?? [];
    const { p, d } = await draw(fixture('complex_heatmap_canonical.tsv'), [
      { component_id: 'p', type: 'figure', chart: 'clustered_heatmap', row: 'Phylum', matrix_columns: samples },
    ]).then(async (first) => ({
      ...first,
      ...(await draw(fixture('bray_curtis_canonical.tsv'), [
        { component_id: 'd', type: 'figure', chart: 'clustered_heatmap', row: 'sample', matrix_columns: samples },
      ])),
    }));
    // 32 lines, 31 phyla: "Unclassified" is a line of Archaea and one of Bacteria, one row (averaged).
    expect(p).toMatchObject({ total_rows: 32, matrix: { total_rows: 31, total_columns: 12 } });
    expect((p as { matrix: { values: unknown[] } }).matrix.values).toHaveLength(31 * 12);
    // A distance matrix is symmetric: its rows and columns cluster alike.
    const distances = (d as { matrix: { rows: string[]; columns: string[] } }).matrix;
    expect(distances.rows).toEqual(distances.columns);
    expect(new Set(distances.rows)).toEqual(new Set(samples));
  });

  it('computes PCA of numeric columns with the variance each axis explains', async () => {
    const { e } = await draw(PCA_CSV, [
      { component_id: 'e', type: 'figure', chart: 'embedding', pca_columns: ['u', 'v'], color: 'kind', label: 'id' },
    ]);
    const [pc1, pc2] = (e as { explained_variance: number[] }).explained_variance;
    expect(pc1).toBeCloseTo(0.8, 12);
    expect(pc2).toBeCloseTo(0.2, 12);
    const rows = rowsOf(e as Record<string, unknown>);
    expect(rows).toHaveLength(4);
    const first = rows.find((row) => row.label === 'p1');
    expect(first?.x as number).toBeCloseTo(-2 / Math.sqrt(5 / 3) / Math.SQRT2, 12);
    expect(first?.y as number).toBeCloseTo(-1 / Math.sqrt(5 / 3) / Math.SQRT2, 12);
    expect(first?.color).toBe('x');
    expect(e).toMatchObject({ total_rows: 5, sampled: false });
  });

  it('draws the ampliseq PCoA as given, and a brush on its x narrows a card', async () => {
    const components = [
      { component_id: 'e', type: 'figure', chart: 'embedding', x: 'dim_1', y: 'dim_2', color: 'habitat' },
      { component_id: 'n', type: 'card', agg: 'count' },
    ];
    const answer = await draw(fixture('embedding_pcoa.tsv'), components, [{ component_id: 'e', value: [0, 1] }]);
    expect(answer.e).toMatchObject({ total_rows: 12, sampled: false });
    const rows = rowsOf(answer.e as Record<string, unknown>);
    expect(rows).toHaveLength(12);
    expect(rows).toContainEqual({ x: -0.29284067437360967, y: 0.09062725048388537, color: 'Riverwater' });
    // The samples with dim_1 ≥ 0 (a separate count over the file: awk '$2 >= 0').
    const positive = fixture('embedding_pcoa.tsv')
      .split('\n')
      .slice(1)
      .filter((line) => line !== '' && Number(line.split(',')[1]) >= 0).length;
    expect(answer.n).toEqual({ value: positive, unfiltered_value: 12 });
  });

  it('averages rarefaction curves per sample or group with their bands', async () => {
    const { s, g, r, one } = await draw(RAREFACTION_CSV, [
      { component_id: 's', type: 'figure', chart: 'rarefaction', x: 'depth', y: 'metric', color: 'sample' },
      { component_id: 'g', type: 'figure', chart: 'rarefaction', x: 'depth', y: 'metric', color: 'grp' },
      {
        component_id: 'r',
        type: 'figure',
        chart: 'rarefaction',
        x: 'depth',
        y: 'metric',
        color: 'sample',
        band: 'range',
      },
      {
        component_id: 'one',
        type: 'figure',
        chart: 'rarefaction',
        x: 'depth',
        y: 'metric',
        color: 'sample',
        max_categories: 2,
      },
    ]);
    const curve = (data: unknown) =>
      rowsOf(data as Record<string, unknown>).map((row) => [row.color, row.x, row.mean, row.low, row.high, row.n]);
    const close = (actual: unknown[][], expected: unknown[][]) => {
      expect(actual).toHaveLength(expected.length);
      for (const [i, row] of actual.entries()) {
        for (const [j, value] of row.entries()) {
          const want = expected[i]?.[j];
          if (typeof want === 'number') expect(value as number).toBeCloseTo(want, 12);
          else expect(value).toBe(want);
        }
      }
    };
    close(curve(s), [
      ['s1', 10, 2, 2 - Math.SQRT2, 2 + Math.SQRT2, 2],
      ['s1', 20, 4, 4, 4, 2],
      ['s2', 10, 2, 2, 2, 2],
      ['s2', 20, 6, 6 - Math.SQRT2, 6 + Math.SQRT2, 2],
    ]);
    close(curve(g), [
      ['g', 10, 2, 2 - Math.sqrt(2 / 3), 2 + Math.sqrt(2 / 3), 4],
      ['g', 20, 5, 5 - Math.SQRT2, 5 + Math.SQRT2, 4],
    ]);
    close(curve(r).slice(0, 1), [['s1', 10, 2, 1, 3, 2]]);
    expect(s).toMatchObject({ total_rows: 9, total_curves: 2, sampled: false });
    expect(one).toMatchObject({ total_curves: 2, sampled: false });
  });

  it('keeps the first curves by name beyond the budget and says so', async () => {
    const csv = ['sample,depth,metric', ...['c', 'a', 'b'].map((name) => `${name},1,1`), ''].join('\n');
    const { s } = await draw(csv, [
      {
        component_id: 's',
        type: 'figure',
        chart: 'rarefaction',
        x: 'depth',
        y: 'metric',
        color: 'sample',
        max_categories: 2,
      },
    ]);
    expect(rowsOf(s as Record<string, unknown>).map((row) => row.color)).toEqual(['a', 'b']);
    expect(s).toMatchObject({ total_curves: 3, sampled: true });
  });

  it('lays out an oncoplot with its marginal counts, top genes first', async () => {
    const { o, top } = await draw(ONCO_CSV, [
      { component_id: 'o', type: 'figure', chart: 'oncoplot', x: 'sample', y: 'gene', color: 'alteration' },
      {
        component_id: 'top',
        type: 'figure',
        chart: 'oncoplot',
        x: 'sample',
        y: 'gene',
        color: 'alteration',
        max_categories: 2,
      },
    ]);
    expect((o as { oncoplot: unknown }).oncoplot).toEqual({
      genes: [
        { name: 'KRAS', count: 2 },
        { name: 'TP53', count: 2 },
        { name: 'EGFR', count: 1 },
      ],
      samples: [
        { name: 'S1', count: 2 },
        { name: 'S3', count: 2 },
        { name: 'S2', count: 1 },
        { name: 'S4', count: 0 },
      ],
      total_genes: 3,
    });
    expect(rowsOf(o as Record<string, unknown>).map((row) => [row.x, row.y, row.color])).toEqual([
      ['S1', 'KRAS', 'missense'],
      ['S3', 'KRAS', 'amplification'],
      ['S1', 'TP53', 'multiple'],
      ['S2', 'TP53', 'missense'],
      ['S3', 'EGFR', 'missense'],
    ]);
    expect(o).toMatchObject({ total_rows: 7, sampled: false });
    expect((top as { oncoplot: unknown }).oncoplot).toMatchObject({
      genes: [{ name: 'KRAS' }, { name: 'TP53' }],
      samples: [{ name: 'S1' }, { name: 'S3' }, { name: 'S2' }, { name: 'S4' }],
      total_genes: 3,
    });
  });

  it('exports each kind as a complete ECharts option', async () => {
    const { dashboardId } = await dashboardOf(MATRIX_CSV, [
      { component_id: 'h', ...WIDE, annotations: ['kingdom'] },
      { component_id: 'e', type: 'figure', chart: 'embedding', pca_columns: ['s1', 's2', 's4'] },
      { component_id: 'r', type: 'figure', chart: 'rarefaction', x: 's1', y: 's4', color: 'kingdom' },
      { component_id: 'o', type: 'figure', chart: 'oncoplot', x: 'name', y: 'kingdom', color: 'kingdom' },
    ]);
    const series = { h: 4, e: 1, r: 6, o: 3 };
    for (const [id, count] of Object.entries(series)) {
      const answer = await call<{ spec: { series: unknown[]; grid?: unknown } }>(
        charts.server,
        'GET',
        `/export/components/${dashboardId}/${id}`,
        { token: charts.ada.access_token },
      );
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.spec.series, id).toHaveLength(count);
    }
  });

  it('lists the kinds and their fields in GET /dashboards/schema', async () => {
    const schema = await call<{ $defs: Record<string, { properties?: Record<string, { enum?: string[] }> }> }>(
      charts.server,
      'GET',
      '/dashboards/schema',
    );
    const figure = schema.body.$defs.FigureComponent?.properties ?? {};
    expect(figure.chart?.enum).toEqual(
      expect.arrayContaining(['clustered_heatmap', 'embedding', 'rarefaction', 'oncoplot']),
    );
    const fields = ['row', 'matrix_columns', 'column', 'value', 'scale', 'cluster_rows', 'cluster_columns'];
    for (const field of [...fields, 'annotations', 'max_rows', 'pca_columns', 'band']) {
      expect(figure, field).toHaveProperty(field);
    }
  });

  it('refuses missing fields and columns of the wrong type when saving, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...WIDE, matrix_columns: ['s1', 'kingdom'] }, 'matrix_columns[1]'],
      [{ chart: 'clustered_heatmap', row: 'name' }, 'matrix_columns'],
      [{ chart: 'clustered_heatmap', row: 'name', column: 'kingdom' }, 'value'],
      [{ chart: 'clustered_heatmap', row: 'name', column: 'kingdom', value: 'kingdom' }, 'value'],
      [{ chart: 'embedding', pca_columns: ['s1', 'kingdom'] }, 'pca_columns[1]'],
      [{ chart: 'embedding', x: 's1' }, 'y'],
      [{ chart: 'rarefaction', x: 's1', y: 'kingdom' }, 'y'],
      [{ chart: 'oncoplot', x: 'name', y: 'kingdom' }, 'color'],
    ];
    await charts.expectRefused(MATRIX_CSV, cases);
  });

  it('answers an error in the slot of a heatmap whose table arrived with a text column', async () => {
    const later = await charts.pendingCollection(MATRIX_CSV);
    const created = await charts.save(later, [{ component_id: 'h', ...WIDE, matrix_columns: ['s1', 's2'] }]);
    expect(created.status, created.text).toBe(201);
    const content = 'name,s1,s2\nr1,1,high\nr2,2,low\n';
    await later.arrive(content);
    const answer = await charts.dataOf(created.body.dashboard_id);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.components.h).toEqual({
      error: {
        code: 'unsuitable_column',
        message: expect.stringMatching(/a clustered_heatmap chart needs a numeric column; s2 is string/),
        field: 'matrix_columns[1]',
      },
    });
  });
});
