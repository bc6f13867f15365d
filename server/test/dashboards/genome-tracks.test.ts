import { dashboardDataAnswerSchema } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, rowsOf, serverWithPeople } from './analytics-table.js';

/*
 * Issue 28, the genome tracks: coverage (min/max per bucket) and trees. The expected numbers were
 * worked out by hand from the small tables below, not by the code under test.
 */

/**
 * Two samples along positions 1…10 and a third at one position. With 4 buckets over [1, 10] (each
 * 2.25 wide) the positions fall in {1, 2, 3}, {4, 5}, {6, 7}, {8, 9, 10}.
 */
const COVERAGE_CSV = [
  'sample,pos,depth',
  'a,1,10',
  'a,2,12',
  'a,3,0', // a dropout
  'a,4,11',
  'a,5,50', // a peak
  'a,6,10',
  'a,7,9',
  'a,8,8',
  'a,9,', // left out: no depth
  'a,10,7',
  ...Array.from({ length: 10 }, (_, i) => `b,${i + 1},${i + 1}`),
  'c,5,3',
  'c,,4', // left out: no position
  '',
].join('\n');

describeEachDialect('the genome tracks', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let tables = 0;

  beforeAll(async () => {
    const people = await serverWithPeople(dialect);
    server = people.server;
    ada = await people.session('ada@example.org');
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  async function draw(csv: string, components: Record<string, unknown>[], filters: unknown[] = []) {
    const { projectId, collectionId } = await projectWithTable(server, ada.access_token, `Tracks ${++tables}`, csv);
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: {
        project_id: projectId,
        title: 'Tracks',
        components: components.map((component) => ({ data_collection_id: collectionId, ...component })),
      },
    });
    expect(created.status, created.text).toBe(201);
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${created.body.dashboard_id}/data`, {
      token: ada.access_token,
      json: { filters },
    });
    expect(answer.status, answer.text).toBe(200);
    const encoded = JSON.parse(JSON.stringify(dashboardDataAnswerSchema.encode(answer.body as never)));
    expect(answer.body).toEqual(encoded);
    return answer.body.components;
  }

  const track = { type: 'figure', chart: 'coverage', position: 'pos', y: 'depth', color: 'sample' };

  it('keeps the lowest and highest depth of each bucket, per sample', async () => {
    const { c } = await draw(COVERAGE_CSV, [{ component_id: 'c', ...track, buckets: 4 }]);
    expect(c).toMatchObject({ total_rows: 22, sampled: true, bucket_width: 2.25, left_out_series: 0 });
    const rows = rowsOf(c as Record<string, unknown>).map((row) => [
      row.color,
      row.x_low,
      row.x_high,
      row.min,
      row.max,
      Math.round((row.mean as number) * 1000) / 1000,
    ]);
    expect(rows).toEqual([
      ['a', 1, 3.25, 0, 12, 7.333],
      ['a', 3.25, 5.5, 11, 50, 30.5],
      ['a', 5.5, 7.75, 9, 10, 9.5],
      ['a', 7.75, 10, 7, 8, 7.5],
      ['b', 1, 3.25, 1, 3, 2],
      ['b', 3.25, 5.5, 4, 5, 4.5],
      ['b', 5.5, 7.75, 6, 7, 6.5],
      ['b', 7.75, 10, 8, 10, 9],
      ['c', 3.25, 5.5, 3, 3, 3],
    ]);
  });

  it('sends every position when they fit the buckets; leaves out samples beyond max_categories', async () => {
    const { c } = await draw(COVERAGE_CSV, [{ component_id: 'c', ...track, max_categories: 2 }]);
    expect(c).toMatchObject({ total_rows: 22, sampled: true, bucket_width: 0, left_out_series: 1 });
    const rows = rowsOf(c as Record<string, unknown>);
    expect(rows.map((row) => row.color)).toEqual([...Array(9).fill('a'), ...Array(10).fill('b')]);
    expect(rows.filter((row) => row.color === 'a').map((row) => [row.x_low, row.min, row.max])).toEqual([
      [1, 10, 10],
      [2, 12, 12],
      [3, 0, 0],
      [4, 11, 11],
      [5, 50, 50],
      [6, 10, 10],
      [7, 9, 9],
      [8, 8, 8],
      [10, 7, 7],
    ]);
  });

  it('narrows a card by a brushed range of positions', async () => {
    const answer = await draw(
      COVERAGE_CSV,
      [
        { component_id: 'c', ...track },
        { component_id: 'n', type: 'card', agg: 'count' },
      ],
      [{ component_id: 'c', value: [4, 7] }],
    );
    // Positions 4…7: four rows of a, four of b, one of c.
    expect(answer.n).toEqual({ value: 9, unfiltered_value: 22 });
    expect(answer.c).toMatchObject({ total_rows: 22 });
  });

  it('refuses a coverage track without its depth, or with a text depth, naming the field', async () => {
    const { projectId, collectionId } = await projectWithTable(server, ada.access_token, 'Bad', COVERAGE_CSV);
    const cases: [Record<string, unknown>, string][] = [
      [{ chart: 'coverage', position: 'pos' }, 'y'],
      [{ chart: 'coverage', position: 'pos', y: 'sample' }, 'y'],
      [{ chart: 'coverage', position: 'sample', y: 'depth' }, 'position'],
    ];
    for (const [figure, field] of cases) {
      const answer = await call<{ code: string; errors: { path: string }[] }>(server, 'POST', '/dashboards', {
        token: ada.access_token,
        json: {
          project_id: projectId,
          title: 'Bad',
          components: [{ component_id: 'f', type: 'figure', data_collection_id: collectionId, ...figure }],
        },
      });
      expect(answer.status, JSON.stringify(figure)).toBe(400);
      expect(answer.body.code).toBe('validation_failed');
      expect(answer.body.errors.map((error) => error.path)).toEqual([`body.components[0].${field}`]);
    }
  });
});
