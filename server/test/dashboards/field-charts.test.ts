import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { call, describeEachDialect } from '../../../test/support/test-server.js';
import { chartHarness, rowsOf } from './analytics-table.js';

/*
 * Issue 28, the field's charts: volcano, MA, Manhattan and QQ plots computed in DuckDB. The
 * expected numbers were worked out by hand from the small tables below (and, for the ampliseq
 * data, by a separate script over the same file), not by the code under test.
 */

/** Volcano: lfc × q with the default thresholds (q < 0.05, |lfc| ≥ 1). */
const VOLCANO_CSV = [
  'gene,lfc,q',
  'a,2,0.01', // up
  'b,-3,0.001', // down
  'c,1,0.04', // up: lfc = 1 is at the threshold
  'd,-1,0.049', // down
  'e,0.5,0.001', // ns: too small a change
  'f,3,0.05', // ns: q not below 0.05
  'g,,0.01', // left out: no lfc
  'h,2,', // left out: no q
  'i,4,0', // up, q = 0: −log10 capped at the highest finite value (3)
  'j,1,-0.1', // left out: a negative q
  'k,1,NaN', // left out: NaN
  '',
].join('\n');

/** Manhattan: names as tools write them; the empty chromosome is left out. */
const GENOME_CSV = [
  'chrom,pos,p',
  'chr1,100,0.5',
  '1,200,1e-9',
  '2,50,0.01',
  'X,10,1e-10',
  '10,30,0.2',
  'chrM,5,0.3',
  'Un_gl1,7,0.4',
  'Y,20,0.1',
  ',10,0.1',
  '',
].join('\n');

/** Many points on three chromosomes, every 60th significant: 3,000 rows, 50 below 5e-8. */
const MANY_CSV = [
  'chrom,pos,p',
  ...Array.from({ length: 3000 }, (_, i) => {
    const p = i % 60 === 0 ? 1e-9 / (i + 1) : ((i * 7919) % 1000) / 1000 + 0.0005;
    return `${(i % 3) + 1},${i * 10 + 1},${p}`;
  }),
  '',
].join('\n');

/**
 * 2,000 genes, four in five significant (q from 1e-2 down to 1e-12) with fold changes spread over
 * [−4, 4) and means over [0, 10): far more `up` and `down` points than a budget of 100.
 */
const SIGNIFICANT = Array.from({ length: 2000 }, (_, i) => ({
  gene: `g${i}`,
  lfc: ((i * 37) % 800) / 100 - 4,
  q: i % 5 === 0 ? 0.5 : 10 ** -(2 + ((i * 7919) % 1000) / 100),
  mean: ((i * 13) % 1000) / 100,
}));
const SIGNIFICANT_CSV = [
  'gene,lfc,q,mean',
  ...SIGNIFICANT.map(({ gene, lfc, q, mean }) => `${gene},${lfc},${q},${mean}`),
  '',
].join('\n');

/** 3,000 genes, every 150th significant (20 hits: up and down in turn), the rest not. */
const MOSTLY_NS = Array.from({ length: 3000 }, (_, i) => ({
  gene: `n${i}`,
  lfc: i % 150 === 0 ? ((i / 150) % 2 === 0 ? 2 : -2) : ((i * 37) % 300) / 100 - 1.5,
  q: i % 150 === 0 ? 1e-6 : 0.06 + ((i * 7919) % 900) / 1000,
}));
const MOSTLY_NS_CSV = ['gene,lfc,q', ...MOSTLY_NS.map(({ gene, lfc, q }) => `${gene},${lfc},${q}`), ''].join('\n');

/** Five p values, an empty one and one above 1 (left out). */
const QQ_CSV = ['p', '0.1', '0.2', '0.3', '0.4', '0.5', '', '1.5', ''].join('\n');

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/ampliseq/${name}`, import.meta.url), 'utf8').replaceAll('\t', ',');

describeEachDialect('the field charts', (dialect) => {
  const charts = chartHarness(dialect, 'Field');
  const { draw, dashboardOf } = charts;

  it('classes a volcano plot’s points, caps −log10 0 and leaves out what has no place', async () => {
    const { v } = await draw(VOLCANO_CSV, [
      { component_id: 'v', type: 'figure', chart: 'volcano', x: 'lfc', y: 'q', label: 'gene' },
    ]);
    expect(v).toMatchObject({ counts: { up: 3, down: 2, ns: 2 }, total_rows: 11, sampled: false, capped: 1 });
    const rows = rowsOf(v as Record<string, unknown>);
    const byGene = Object.fromEntries(rows.map((row) => [row.label, row]));
    expect(Object.keys(byGene).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'i']);
    expect(byGene.a).toMatchObject({ x: 2, y: 0.01, class: 'up' });
    expect(byGene.a?.minus_log10_y as number).toBeCloseTo(2, 12);
    expect(byGene.c).toMatchObject({ class: 'up' });
    expect(byGene.d).toMatchObject({ class: 'down' });
    expect(byGene.f).toMatchObject({ class: 'ns' });
    expect(byGene.i).toMatchObject({ y: 0, class: 'up' });
    expect(byGene.i?.minus_log10_y as number).toBeCloseTo(3, 12);
  });

  it('moves the classes with the thresholds; an MA plot classes by its p column', async () => {
    const answer = await draw(VOLCANO_CSV, [
      { component_id: 'v', type: 'figure', chart: 'volcano', x: 'lfc', y: 'q', p_threshold: 0.01, fc_threshold: 2 },
      { component_id: 'm', type: 'figure', chart: 'ma', x: 'q', y: 'lfc', p: 'q' },
      { component_id: 'plain', type: 'figure', chart: 'ma', x: 'q', y: 'lfc' },
    ]);
    // q < 0.01 and |lfc| ≥ 2: b (−3, 0.001) down, i (4, 0) up; a has q = 0.01, not below.
    expect(answer.v).toMatchObject({ counts: { up: 1, down: 1, ns: 5 } });
    expect(answer.m).toMatchObject({ counts: { up: 3, down: 2, ns: 2 } });
    // Without p every point is `ns`; rows need x and y only: g (no lfc), h (no q) and k (NaN) are out.
    expect(answer.plain).toMatchObject({ counts: { up: 0, down: 0, ns: 8 } });
  });

  it('draws the ampliseq ANCOM-BC results as a volcano and an MA plot', async () => {
    const volcano = await draw(fixture('ancombc_results.tsv'), [
      { component_id: 'v', type: 'figure', chart: 'volcano', x: 'lfc', y: 'q_val', label: 'Phylum' },
    ]);
    expect(volcano.v).toMatchObject({ counts: { up: 31, down: 26, ns: 39 }, total_rows: 96 });
    const ma = await draw(fixture('ma_canonical.tsv'), [
      {
        component_id: 'm',
        type: 'figure',
        chart: 'ma',
        x: 'avg_log_intensity',
        y: 'log2_fold_change',
        p: 'significance',
      },
    ]);
    expect(ma.m).toMatchObject({ counts: { up: 31, down: 26, ns: 39 }, total_rows: 96 });
  });

  it('narrows a card by a brushed range of a volcano plot’s fold change', async () => {
    const components = [
      { component_id: 'v', type: 'figure', chart: 'volcano', x: 'lfc', y: 'q' },
      { component_id: 'n', type: 'card', agg: 'count' },
    ];
    // lfc in [0.9, 2.5]: a, c, h, j, k.
    const answer = await draw(VOLCANO_CSV, components, [{ component_id: 'v', value: [0.9, 2.5] }]);
    expect(answer.n).toEqual({ value: 5, unfiltered_value: 11 });
    // A brush narrows the others, not the figure brushed.
    expect(answer.v).toMatchObject({ counts: { up: 3, down: 2, ns: 2 }, total_rows: 11 });
  });

  it('lays chromosomes end to end in natural order, unknown names last', async () => {
    const { g } = await draw(GENOME_CSV, [
      { component_id: 'g', type: 'figure', chart: 'manhattan', chromosome: 'chrom', position: 'pos', y: 'p' },
    ]);
    expect(g).toMatchObject({ total_rows: 9, significant: 2, sampled: false });
    expect((g as { chromosomes: unknown }).chromosomes).toEqual([
      { name: '1', offset: 0, length: 200 },
      { name: '2', offset: 200, length: 50 },
      { name: '10', offset: 250, length: 30 },
      { name: 'X', offset: 280, length: 10 },
      { name: 'Y', offset: 290, length: 20 },
      { name: 'MT', offset: 310, length: 5 },
      { name: 'UN_GL1', offset: 315, length: 7 },
    ]);
    const rows = rowsOf(g as Record<string, unknown>);
    expect(rows.map((row) => [row.chromosome, row.genome_position])).toEqual([
      ['1', 100],
      ['1', 200],
      ['2', 250],
      ['10', 280],
      ['X', 290],
      ['Y', 310],
      ['MT', 315],
      ['UN_GL1', 322],
    ]);
  });

  it('thins only the non-significant points of a Manhattan plot', async () => {
    const { g } = await draw(MANY_CSV, [
      {
        component_id: 'g',
        type: 'figure',
        chart: 'manhattan',
        chromosome: 'chrom',
        position: 'pos',
        y: 'p',
        max_points: 200,
      },
    ]);
    expect(g).toMatchObject({ total_rows: 3000, significant: 50, sampled: true });
    const rows = rowsOf(g as Record<string, unknown>);
    expect(rows.length).toBeLessThanOrEqual(200);
    // The non-significant mass keeps one point per occupied cell of the grid.
    expect(rows.length).toBeGreaterThan(80);
    expect(rows.filter((row) => (row.y as number) < 5e-8)).toHaveLength(50);
  });

  it('samples a volcano plot’s non-significant points the same way whatever the budget, every hit kept', async () => {
    const volcano = { type: 'figure', chart: 'volcano', x: 'lfc', y: 'q', label: 'gene' };
    const answer = await draw(MOSTLY_NS_CSV, [
      { ...volcano, component_id: 'small', max_points: 100 },
      { ...volcano, component_id: 'large', max_points: 300 },
    ]);
    const hits = MOSTLY_NS.filter((gene) => gene.q < 0.05).map((gene) => gene.gene);
    const kept = (id: string) => {
      expect(answer[id], id).toMatchObject({ counts: { up: 10, down: 10, ns: 2980 }, total_rows: 3000, sampled: true });
      const rows = rowsOf(answer[id] as Record<string, unknown>);
      expect(
        rows
          .filter((row) => row.class !== 'ns')
          .map((row) => row.label)
          .sort(),
        id,
      ).toEqual([...hits].sort());
      const ordered = rows.map((row) => [Number(row.x), Number(row.y)]);
      const sorted = [...ordered].sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0));
      expect(ordered, id).toEqual(sorted);
      return new Set(rows.filter((row) => row.class === 'ns').map((row) => String(row.label)));
    };
    const small = kept('small');
    const large = kept('large');
    expect([small.size, large.size]).toEqual([80, 280]);
    // The first points by hash: a larger budget keeps the smaller one's and more.
    expect([...small].filter((gene) => !large.has(gene))).toEqual([]);
  });

  it('thins every class of a volcano plot to a grid when the significant points exceed the budget', async () => {
    const volcano = { type: 'figure', x: 'lfc', y: 'q', label: 'gene', max_points: 100 };
    const answer = await draw(SIGNIFICANT_CSV, [
      { ...volcano, component_id: 'v', chart: 'volcano' },
      { ...volcano, component_id: 'm', chart: 'ma', x: 'mean', y: 'lfc', p: 'q' },
    ]);
    const classOf = ({ lfc, q }: { lfc: number; q: number }) =>
      q < 0.05 && lfc >= 1 ? 'up' : q < 0.05 && lfc <= -1 ? 'down' : 'ns';
    const counts = { up: 0, down: 0, ns: 0 };
    for (const gene of SIGNIFICANT) counts[classOf(gene)] += 1;
    const hits = SIGNIFICANT.filter((gene) => classOf(gene) !== 'ns')
      .sort((a, b) => a.q - b.q)
      .slice(0, 10)
      .map((gene) => gene.gene);
    for (const id of ['v', 'm']) {
      expect(answer[id], id).toMatchObject({ counts, total_rows: 2000, sampled: true });
      const rows = rowsOf(answer[id] as Record<string, unknown>);
      // One point per class and cell of a 7 × 7 grid, and the ten hits the chart names.
      expect(rows.length, id).toBeLessThanOrEqual(3 * 49 + 10);
      expect(rows.length, id).toBeGreaterThan(30);
      expect(new Set(rows.map((row) => row.class)), id).toEqual(new Set(['up', 'down', 'ns']));
      expect(
        rows.map((row) => row.label),
        id,
      ).toEqual(expect.arrayContaining(hits));
      const byGene = new Map(SIGNIFICANT.map((gene) => [gene.gene, gene]));
      for (const row of rows) expect(row.class, id).toBe(classOf(byGene.get(String(row.label)) ?? { lfc: 0, q: 1 }));
      // Each cell keeps its point of lowest q: the lowest of all the non-significant ones among them.
      const [lowestNs] = SIGNIFICANT.filter((gene) => classOf(gene) === 'ns').sort((a, b) => a.q - b.q);
      expect(
        rows.map((row) => row.label),
        id,
      ).toContain(lowestNs?.gene);
    }
  });

  it('sends every row of a Manhattan plot within its budget, close or repeated', async () => {
    // Two identical significant rows, and non-significant rows closer than a cell of the grid.
    const csv = ['chrom,pos,p', '1,10,1e-9', '1,10,1e-9', '1,11,0.5', '1,12,0.5', '1,12,0.45', '2,5,0.3', ''].join(
      '\n',
    );
    const { g } = await draw(csv, [
      { component_id: 'g', type: 'figure', chart: 'manhattan', chromosome: 'chrom', position: 'pos', y: 'p' },
    ]);
    expect(g).toMatchObject({ total_rows: 6, significant: 2, sampled: false });
    const rows = rowsOf(g as Record<string, unknown>);
    expect(rows.map((row) => [row.chromosome, row.position, row.genome_position, row.y])).toEqual([
      ['1', 10, 10, 1e-9],
      ['1', 10, 10, 1e-9],
      ['1', 11, 11, 0.5],
      ['1', 12, 12, 0.45],
      ['1', 12, 12, 0.5],
      ['2', 5, 17, 0.3],
    ]);
  });

  it('draws a QQ plot’s expected quantiles and its inflation factor λ', async () => {
    const { q } = await draw(QQ_CSV, [{ component_id: 'q', type: 'figure', chart: 'qq', y: 'p' }]);
    expect(q).toMatchObject({ total_rows: 7, sampled: false });
    const rows = rowsOf(q as Record<string, unknown>);
    // Most significant last: the i-th smallest of 5 expected at (i − 0.5) / 5.
    const expected = [0.9, 0.7, 0.5, 0.3, 0.1].map((p) => -Math.log10(p));
    const observed = [0.5, 0.4, 0.3, 0.2, 0.1].map((p) => -Math.log10(p));
    rows.forEach((row, index) => {
      expect(row.expected as number).toBeCloseTo(expected[index] ?? Number.NaN, 12);
      expect(row.observed as number).toBeCloseTo(observed[index] ?? Number.NaN, 12);
    });
    // Median p 0.3: χ² = Φ⁻¹(0.15)², Φ⁻¹(0.15) = −1.0364333894937898.
    expect((q as { lambda: number }).lambda).toBeCloseTo(1.0364333894937898 ** 2 / 0.4549, 7);
  });

  it('thins a QQ plot of many p values and still takes λ from the middle ones', async () => {
    // 3,001 p values in scrambled order: 1,500 below 0.3, the middle one (rank 1,501: not a drawn rank) 0.3, 1,500 above.
    const values = [
      ...Array.from({ length: 1500 }, (_, i) => 0.0001 + (i * 0.29) / 1500),
      0.3,
      ...Array.from({ length: 1500 }, (_, i) => 0.31 + (i * 0.69) / 1500),
    ];
    const scrambled = values.map((_, i) => values[(i * 7919) % values.length]);
    const csv = ['p', ...scrambled.map(String), ''].join('\n');
    const { q } = await draw(csv, [{ component_id: 'q', type: 'figure', chart: 'qq', y: 'p', max_points: 200 }]);
    expect(q).toMatchObject({ total_rows: 3001, sampled: true });
    const rows = rowsOf(q as Record<string, unknown>);
    expect(rows.length).toBeLessThanOrEqual(200);
    expect(rows.map((row) => row.observed)).not.toContain(-Math.log10(0.3));
    // Most significant last: the smallest p at its expected quantile (1 − 0.5) / 3001.
    expect(rows.at(-1)?.expected as number).toBeCloseTo(-Math.log10(0.5 / 3001), 12);
    expect(rows.at(-1)?.observed as number).toBeCloseTo(-Math.log10(0.0001), 12);
    expect((q as { lambda: number }).lambda).toBeCloseTo(1.0364333894937898 ** 2 / 0.4549, 7);
  });

  it('exports each kind as a complete ECharts option, its points in the datasets', async () => {
    const { dashboardId } = await dashboardOf(GENOME_CSV, [
      { component_id: 'v', type: 'figure', chart: 'volcano', x: 'pos', y: 'p' },
      { component_id: 'm', type: 'figure', chart: 'ma', x: 'pos', y: 'pos', p: 'p' },
      { component_id: 'g', type: 'figure', chart: 'manhattan', chromosome: 'chrom', position: 'pos', y: 'p' },
      { component_id: 'q', type: 'figure', chart: 'qq', y: 'p' },
    ]);
    // Every row has a position and a valid p; the Manhattan plot leaves out the one without a chromosome.
    const points = { v: 9, m: 9, g: 8, q: 9 };
    for (const [id, count] of Object.entries(points)) {
      const answer = await call<{ spec: { dataset: { source: unknown[] }[]; series: unknown[] } }>(
        charts.server,
        'GET',
        `/export/components/${dashboardId}/${id}`,
        { token: charts.ada.access_token },
      );
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.spec.series.length).toBeGreaterThan(0);
      const classes = id === 'v' || id === 'm' ? 3 : id === 'g' ? 2 : 1;
      const drawn = answer.body.spec.dataset.slice(0, classes).flatMap((dataset) => dataset.source);
      expect(drawn, id).toHaveLength(count);
    }
  });

  it('lists the kinds and their fields in GET /dashboards/schema', async () => {
    const schema = await call<{ $defs: Record<string, { properties?: Record<string, { enum?: string[] }> }> }>(
      charts.server,
      'GET',
      '/dashboards/schema',
    );
    expect(schema.status).toBe(200);
    const figure = schema.body.$defs.FigureComponent?.properties ?? {};
    expect(figure.chart?.enum).toEqual(expect.arrayContaining(['volcano', 'ma', 'manhattan', 'qq']));
    for (const field of ['label', 'p', 'p_threshold', 'fc_threshold', 'chromosome', 'position', 'threshold']) {
      expect(figure, field).toHaveProperty(field);
    }
  });

  it('refuses columns of the wrong type when saving, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ chart: 'volcano', x: 'chrom', y: 'p' }, 'x'],
      [{ chart: 'volcano', x: 'pos', y: 'chrom' }, 'y'],
      [{ chart: 'ma', x: 'pos', y: 'p', p: 'chrom' }, 'p'],
      [{ chart: 'manhattan', chromosome: 'chrom', position: 'chrom', y: 'p' }, 'position'],
      [{ chart: 'qq', y: 'chrom' }, 'y'],
      [{ chart: 'manhattan', chromosome: 'chrom', y: 'p' }, 'position'],
    ];
    await charts.expectRefused(GENOME_CSV, cases);
  });

  it('answers an error in the slot of a chart whose table arrived with a text column', async () => {
    const later = await charts.pendingCollection(VOLCANO_CSV);
    const created = await charts.save(later, [
      { component_id: 'v', type: 'figure', chart: 'volcano', x: 'lfc', y: 'q' },
      { component_id: 'g', type: 'figure', chart: 'manhattan', chromosome: 'gene', position: 'lfc', y: 'q' },
    ]);
    expect(created.status, created.text).toBe(201);
    // The table arrives with q as text.
    const content = 'gene,lfc,q\na,2,low\nb,-3,high\n';
    await later.arrive(content);
    const answer = await charts.dataOf(created.body.dashboard_id);
    expect(answer.status, answer.text).toBe(200);
    const unsuitable = (message: RegExp) => ({
      error: { code: 'unsuitable_column', message: expect.stringMatching(message), field: 'y' },
    });
    expect(answer.body.components.v).toEqual(unsuitable(/a volcano chart needs a numeric column; q is string/));
    expect(answer.body.components.g).toEqual(unsuitable(/a manhattan chart needs a numeric column; q is string/));
  });

  it('answers every field chart over a table of nothing but bad p values, without a 500', async () => {
    const csv = ['chrom,pos,p', 'chr1,1,', '2,-5,NaN', 'foo,3,-1', '', ''].join('\n');
    const answer = await draw(csv, [
      { component_id: 'v', type: 'figure', chart: 'volcano', x: 'pos', y: 'p' },
      { component_id: 'm', type: 'figure', chart: 'ma', x: 'pos', y: 'pos', p: 'p' },
      { component_id: 'g', type: 'figure', chart: 'manhattan', chromosome: 'chrom', position: 'pos', y: 'p' },
      { component_id: 'q', type: 'figure', chart: 'qq', y: 'p' },
    ]);
    expect(answer.v).toMatchObject({ rows: [], counts: { up: 0, down: 0, ns: 0 }, total_rows: 3 });
    expect(answer.m).toMatchObject({ rows: [], total_rows: 3 });
    expect(answer.g).toMatchObject({ rows: [], significant: 0, chromosomes: [], total_rows: 3 });
    expect(answer.q).toMatchObject({ rows: [], lambda: null, total_rows: 3 });
  });
});
