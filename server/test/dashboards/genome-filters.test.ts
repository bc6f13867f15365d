import { expect, it } from 'vitest';
import { createProjectWithUpload, describeEachDialect } from '../../../test/support/test-server.js';
import { chartHarness, projectWithTable, rowsOf, upsert } from './analytics-table.js';
import { CONTIGS_CSV, COVERAGE } from './contig-table.js';

/*
 * Issue 28: a brush over a Manhattan plot filters by a genomic interval (from one chromosome and
 * position to another, in the natural chromosome order); the axis (each chromosome's offset) is
 * laid out over the whole table so no filter moves it; a chromosome column of too many names is
 * refused. The expected counts were worked out by hand from the table below.
 */

/** Chromosomes as tools write them, in natural order: 1 (2 rows), 2 (2), 10, X, Y, MT. */
const GENOME_CSV = [
  'chrom,pos,p',
  'chr1,100,0.5',
  '1,200,1e-9',
  '2,50,0.01',
  '2,1200000,0.02',
  'X,10,1e-10',
  '10,30,0.2',
  'chrM,5,0.3',
  'Y,20,0.1',
  '',
].join('\n');

const MANHATTAN = {
  component_id: 'g',
  type: 'figure',
  chart: 'manhattan',
  chromosome: 'chrom',
  position: 'pos',
  y: 'p',
};
const COUNT = { component_id: 'n', type: 'card', agg: 'count' };

/** `names` distinct chromosome names, one row each. */
const manyNames = (names: number) =>
  ['sample,pos,p', ...Array.from({ length: names }, (_, i) => `S${i},${i + 1},0.5`), ''].join('\n');

describeEachDialect('genome filters', (dialect) => {
  const charts = chartHarness(dialect, 'Genome');
  const { dataOf } = charts;
  let contigs = 0;
  const create = (collectionId: string, projectId: string, components: Record<string, unknown>[]) =>
    charts.save({ projectId, collectionId }, components);
  /** A dashboard of `components` on a new table of `csv`: its id. */
  const dashboardOf = async (csv: string, components: Record<string, unknown>[]) =>
    (await charts.dashboardOf(csv, components)).dashboardId;

  it('keeps the rows between two chromosomes and positions, in natural order, ends included', async () => {
    const id = await dashboardOf(GENOME_CSV, [MANHATTAN, COUNT]);
    const countOf = async (value: unknown[]) => {
      const answer = await dataOf(id, [{ component_id: 'g', value }]);
      expect(answer.status, answer.text).toBe(200);
      return answer.body.components.n;
    };
    // 2:50, 2:1,200,000 and 10:30; X:10 is beyond X:5.
    expect(await countOf(['chr2', 50, 'X', 5])).toEqual({ value: 3, unfiltered_value: 8 });
    // 1:200 and 2:50 (chr1:100 is before 1:150).
    expect(await countOf(['1', 150, '2', 1000])).toEqual({ value: 2, unfiltered_value: 8 });
    // Any spelling of a name: chr10 … chrM holds 10, X, Y and MT.
    expect(await countOf(['chr10', 0, 'chrM', 100])).toEqual({ value: 4, unfiltered_value: 8 });
    // Within one chromosome.
    expect(await countOf(['2', 0, '2', 1_200_000])).toEqual({ value: 2, unfiltered_value: 8 });
  });

  it('refuses a value that is not a genomic interval, naming it', async () => {
    const id = await dashboardOf(GENOME_CSV, [MANHATTAN, COUNT]);
    for (const value of [
      [1, 2],
      ['1', 'a', '2', 3],
      ['', 1, '2', 3],
    ]) {
      const answer = await dataOf(id, [{ component_id: 'g', value }]);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.text).toContain('body.filters[0].value');
    }
  });

  it('lays the chromosomes out over the whole table: a filter does not move the axis', async () => {
    const id = await dashboardOf(GENOME_CSV, [
      MANHATTAN,
      { component_id: 'pick', type: 'interactive', widget: 'multiselect', column: 'chrom' },
    ]);
    const whole = await dataOf(id);
    const narrowed = await dataOf(id, [{ component_id: 'pick', value: ['2', 'Y'] }]);
    expect(narrowed.status, narrowed.text).toBe(200);
    const offsets = [
      { name: '1', offset: 0, length: 200 },
      { name: '2', offset: 200, length: 1_200_000 },
      { name: '10', offset: 1_200_200, length: 30 },
      { name: 'X', offset: 1_200_230, length: 10 },
      { name: 'Y', offset: 1_200_240, length: 20 },
      { name: 'MT', offset: 1_200_260, length: 5 },
    ];
    expect(whole.body.components.g?.chromosomes).toEqual(offsets);
    expect(narrowed.body.components.g?.chromosomes).toEqual(offsets);
    const placed = (answer: typeof whole) =>
      rowsOf(answer.body.components.g as Record<string, unknown>).map((row) => [row.chromosome, row.genome_position]);
    expect(placed(narrowed)).toEqual([
      ['2', 250],
      ['2', 1_200_200],
      ['Y', 1_200_260],
    ]);
    expect(placed(whole)).toEqual(expect.arrayContaining(placed(narrowed)));
  });

  it('refuses a chromosome column of more than 500 names when saved, and says so when the data grew', async () => {
    const few = await dashboardOf(manyNames(500), [{ ...MANHATTAN, chromosome: 'sample' }]);
    const drawn = await dataOf(few);
    expect(drawn.body.components.g?.chromosomes).toHaveLength(500);

    const { projectId, collectionId } = await projectWithTable(
      charts.server,
      charts.ada.access_token,
      'Names',
      manyNames(501),
    );
    const refused = await create(collectionId, projectId, [{ ...MANHATTAN, chromosome: 'sample' }]);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'body.components[0].chromosome', message: expect.stringContaining('more than 500') }],
    });

    // Saved before the table had rows: the component answers the same message in its slot.
    const later = await createProjectWithUpload(charts.server, charts.ada.access_token, 'Names later', manyNames(501));
    const saved = await create(later.collectionId, later.projectId, [{ ...MANHATTAN, chromosome: 'sample' }, COUNT]);
    expect(saved.status, saved.text).toBe(201);
    await upsert(charts.server, charts.ada.access_token, later.collectionId);
    const answer = await dataOf(saved.body.dashboard_id);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.components.g).toEqual({
      error: { code: 'unsuitable_column', message: expect.stringContaining('more than 500'), field: 'chromosome' },
    });
    expect(answer.body.components.n).toEqual({ value: 501, unfiltered_value: 501 });
  });

  it('draws one contig of a coverage track, the first by default, with min and max per bucket', async () => {
    // Saved before the table had rows: an unknown contig is the component's error, not the save's.
    const later = await createProjectWithUpload(
      charts.server,
      charts.ada.access_token,
      `Contigs ${++contigs}`,
      CONTIGS_CSV,
    );
    const created = await create(later.collectionId, later.projectId, [
      COVERAGE,
      { ...COVERAGE, component_id: 'two', contig: 'chr2' },
      { ...COVERAGE, component_id: 'mt', contig: 'M' },
      { ...COVERAGE, component_id: 'none', contig: 'chr9' },
    ]);
    expect(created.status, created.text).toBe(201);
    await upsert(charts.server, charts.ada.access_token, later.collectionId);
    const answer = await dataOf(created.body.dashboard_id);
    expect(answer.status, answer.text).toBe(200);
    const { c, two, mt, none } = answer.body.components as Record<string, Record<string, unknown>>;
    const buckets = (data: Record<string, unknown> | undefined) =>
      rowsOf(data ?? {}).map((row) => [row.x_low, row.x_high, row.min, row.max]);
    // chr1: buckets of 1.5 positions: [1, 2.5) holds depths 5, 1; [2.5, 4] holds 9, 2.
    expect(c).toMatchObject({ contigs: ['1', '2', 'MT'], contig: '1', total_rows: 11, bucket_width: 1.5 });
    expect(buckets(c)).toEqual([
      [1, 2.5, 1, 5],
      [2.5, 4, 2, 9],
    ]);
    // chr2: [1, 3.5) holds 3, 3, 0; [3.5, 6] holds 8, 4, 4.
    expect(two).toMatchObject({ contig: '2', total_rows: 11, bucket_width: 2.5 });
    expect(buckets(two)).toEqual([
      [1, 3.5, 0, 3],
      [3.5, 6, 4, 8],
    ]);
    // MT: one position, no buckets.
    expect(mt).toMatchObject({ contig: 'MT', bucket_width: 0 });
    expect(buckets(mt)).toEqual([[1, 1, 7, 7]]);
    expect(none).toEqual({
      error: { code: 'unsuitable_column', message: expect.stringContaining('no contig "chr9"'), field: 'contig' },
    });
  });

  it('refuses a contig the table lacks when saved, naming the field', async () => {
    const { projectId, collectionId } = await projectWithTable(
      charts.server,
      charts.ada.access_token,
      'Contigs',
      CONTIGS_CSV,
    );
    const refused = await create(collectionId, projectId, [{ ...COVERAGE, contig: 'chr9' }]);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toMatchObject({
      errors: [{ path: 'body.components[0].contig', message: expect.stringContaining('no contig "chr9"') }],
    });
    const saved = await create(collectionId, projectId, [{ ...COVERAGE, contig: 'chrM' }]);
    expect(saved.status, saved.text).toBe(201);
  });

  it('filters by a brush along a contig: a genomic interval on it', async () => {
    const id = await dashboardOf(CONTIGS_CSV, [{ ...COVERAGE, contig: '2' }, COUNT]);
    const answer = await dataOf(id, [{ component_id: 'c', value: ['2', 2, '2', 4] }]);
    expect(answer.status, answer.text).toBe(200);
    // chr2 at 2, 3 and 4; not chr1 at the same positions.
    expect(answer.body.components.n).toEqual({ value: 3, unfiltered_value: 11 });
    const refused = await dataOf(id, [{ component_id: 'c', value: [2, 4] }]);
    expect(refused.status).toBe(400);
  });
});
