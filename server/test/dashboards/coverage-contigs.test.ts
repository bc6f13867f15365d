import { expect, it } from 'vitest';
import { call, describeEachDialect } from '../../../test/support/test-server.js';
import { chartHarness, type DataAnswer, rowsOf } from './analytics-table.js';
import { CONTIGS_CSV, COVERAGE } from './contig-table.js';

/*
 * Issue 28: a reader picks the contig a coverage track draws (`contigs` of `POST
 * /dashboards/{id}/data`, the address bar's `?contigs=`). Only that contig is read; the other
 * components, and the track's own list of contigs, stay as they were. Buckets worked out by hand.
 */

const COUNT = { component_id: 'n', type: 'card', agg: 'count' };
const PLAIN = { ...COVERAGE, component_id: 'plain', chromosome: undefined };

describeEachDialect('a reader’s contig of a coverage track', (dialect) => {
  const charts = chartHarness(dialect, 'Reader contigs');
  const read = (dashboardId: string, contigs: Record<string, string>, filters: unknown[] = []) =>
    call<DataAnswer & { code: string; errors: { path: string }[] }>(
      charts.server,
      'POST',
      `/dashboards/${dashboardId}/data`,
      { token: charts.ada.access_token, json: { filters, contigs } },
    );
  const buckets = (data: unknown) =>
    rowsOf((data ?? {}) as Record<string, unknown>).map((row) => [row.x_low, row.x_high, row.min, row.max]);

  it('draws the contig the reader chose, in any spelling, and only that track', async () => {
    const { dashboardId } = await charts.dashboardOf(CONTIGS_CSV, [
      COVERAGE,
      { ...COVERAGE, component_id: 'two', contig: 'chr2' },
      COUNT,
    ]);
    const chosen = await read(dashboardId, { c: 'chr2' });
    expect(chosen.status, chosen.text).toBe(200);
    const { c, two, n } = chosen.body.components as Record<string, Record<string, unknown>>;
    // chr2: [1, 3.5) holds 3, 3, 0; [3.5, 6] holds 8, 4, 4. The list of contigs is the whole table's.
    expect(c).toMatchObject({ contigs: ['1', '2', 'MT'], contig: '2', total_rows: 11, bucket_width: 2.5 });
    expect(buckets(c)).toEqual([
      [1, 3.5, 0, 3],
      [3.5, 6, 4, 8],
    ]);
    // A contig is no filter: the card still counts every row; the other track keeps its own.
    expect(n).toEqual({ value: 11, unfiltered_value: 11 });
    expect(two).toMatchObject({ contig: '2' });

    // M is MT; a reader's choice stands in for the saved one too.
    const both = await read(dashboardId, { c: 'M', two: '1' });
    expect(both.status, both.text).toBe(200);
    expect(both.body.components.c).toMatchObject({ contig: 'MT', bucket_width: 0 });
    expect(buckets(both.body.components.c)).toEqual([[1, 1, 7, 7]]);
    // chr1: [1, 2.5) holds 5, 1; [2.5, 4] holds 9, 2.
    expect(buckets(both.body.components.two)).toEqual([
      [1, 2.5, 1, 5],
      [2.5, 4, 2, 9],
    ]);

    // Without a choice, the default again (an answer cached for one contig is not another's).
    const plain = await charts.dataOf(dashboardId);
    expect(plain.body.components.c).toMatchObject({ contig: '1' });
    expect(plain.body.components.two).toMatchObject({ contig: '2' });
  });

  it('draws the reader’s contig under the filters of the others', async () => {
    const { dashboardId } = await charts.dashboardOf(CONTIGS_CSV, [COVERAGE, { ...COVERAGE, component_id: 'two' }]);
    // The other track brushed chr2 from 2 to 4: this one draws chr2's depths 3, 0, 8 there.
    const answer = await read(dashboardId, { c: '2' }, [{ component_id: 'two', value: ['2', 2, '2', 4] }]);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.components.c).toMatchObject({ contig: '2', bucket_width: 1 });
    expect(buckets(answer.body.components.c)).toEqual([
      [2, 3, 3, 3],
      [3, 4, 0, 8],
    ]);
  });

  it('answers a contig the table lacks in the track’s slot, and refuses one for another component', async () => {
    const { dashboardId } = await charts.dashboardOf(CONTIGS_CSV, [COVERAGE, PLAIN, COUNT]);
    const stale = await read(dashboardId, { c: 'chr9' });
    expect(stale.status, stale.text).toBe(200);
    expect(stale.body.components.c).toEqual({
      error: { code: 'unsuitable_column', message: expect.stringContaining('no contig "chr9"'), field: 'contig' },
    });
    expect(stale.body.components.n).toEqual({ value: 11, unfiltered_value: 11 });
    for (const id of ['n', 'plain', 'nope']) {
      const refused = await read(dashboardId, { [id]: '2' });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.code).toBe('validation_failed');
      expect(refused.body.errors.map((error) => error.path)).toEqual([`body.contigs.${id}`]);
    }
    const empty = await read(dashboardId, { c: ' ' });
    expect(empty.status).toBe(400);
  });
});
