import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Session, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, rowsOf, serverWithPeople } from './analytics-table.js';

/**
 * Line charts over dates counted by a time grain (DuckDB's date_trunc): each grain's buckets with
 * exact counts and sums, worked out by hand from the calendar (2023-01-02 is a Monday; a week
 * starts on Monday), the default grain from the span, and the grain refused where it means nothing.
 */
const EVENTS = [
  'day,at,v',
  '2023-01-02,2023-01-02 08:00:00,1',
  '2023-01-08,2023-01-02 09:30:00,2',
  '2023-01-09,2023-01-02 10:00:00,4',
  '2023-02-15,2023-01-02 10:00:00,8',
  '2023-03-31,2023-01-02 17:00:00,16',
  '2023-04-01,2023-01-03 08:00:00,32',
  '2024-12-31,2023-01-03 09:00:00,64',
  '',
].join('\n');

describe('time grains of a line chart', () => {
  let server: TestServer;
  let ada: Session;
  let project: { projectId: string; collectionId: string };

  beforeAll(async () => {
    const started = await serverWithPeople('sqlite');
    server = started.server;
    ada = await started.session('ada@example.org');
    project = await projectWithTable(server, ada.access_token, 'Events', EVENTS);
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  const dashboard = (specs: Record<string, Record<string, unknown>>) =>
    call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: {
        project_id: project.projectId,
        title: 'Grains',
        components: Object.entries(specs).map(([component_id, spec]) => ({
          component_id,
          type: 'figure',
          data_collection_id: project.collectionId,
          ...spec,
        })),
      },
    });
  const figures = async (specs: Record<string, Record<string, unknown>>) => {
    const created = await dashboard(specs);
    expect(created.status, created.text).toBe(201);
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${created.body.dashboard_id}/data`, {
      token: ada.access_token,
      json: {},
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.components;
  };
  const points = (data: Record<string, unknown> | undefined) => rowsOf(data ?? {}).map((row) => [row.x, row.y]);

  it('counts and sums each day, week, month, quarter and year from its first day', async () => {
    const data = await figures({
      day: { chart: 'line', x: 'day', time_grain: 'day' },
      week: { chart: 'line', x: 'day', time_grain: 'week' },
      month: { chart: 'area', x: 'day', y: 'v', agg: 'sum', time_grain: 'month' },
      quarter: { chart: 'line', x: 'day', time_grain: 'quarter' },
      year: { chart: 'line', x: 'day', y: 'v', agg: 'sum', time_grain: 'year' },
    });
    expect(points(data.day)).toHaveLength(7);
    expect(points(data.week)).toEqual([
      ['2023-01-02', 2],
      ['2023-01-09', 1],
      ['2023-02-13', 1],
      ['2023-03-27', 2],
      ['2024-12-30', 1],
    ]);
    expect(points(data.month)).toEqual([
      ['2023-01-01', 7],
      ['2023-02-01', 8],
      ['2023-03-01', 16],
      ['2023-04-01', 32],
      ['2024-12-01', 64],
    ]);
    expect(points(data.quarter)).toEqual([
      ['2023-01-01', 5],
      ['2023-04-01', 1],
      ['2024-10-01', 1],
    ]);
    expect(points(data.year)).toEqual([
      ['2023-01-01', 63],
      ['2024-01-01', 64],
    ]);
    for (const grain of ['day', 'week', 'month', 'quarter', 'year'])
      expect(data[grain]).toMatchObject({ time_grain: grain, sampled: false, total_rows: 7 });
    expect(data.week?.columns).toContainEqual({ name: 'x', type: 'date', column: 'day' });
  });

  it('chooses the grain from the span when none is set; timestamps within two days keep their instants', async () => {
    const data = await figures({
      // 2023-01-02 to 2024-12-31: 729 days, over 200; 105 weeks, under.
      dates: { chart: 'line', x: 'day' },
      instants: { chart: 'line', x: 'at' },
      days: { chart: 'line', x: 'at', y: 'v', agg: 'sum', time_grain: 'day' },
    });
    expect(data.dates).toMatchObject({ time_grain: 'week' });
    expect(points(data.dates)).toHaveLength(5);
    expect(data.instants?.time_grain).toBeUndefined();
    expect(points(data.instants)).toHaveLength(6);
    expect(points(data.days)).toEqual([
      ['2023-01-02T00:00:00Z', 31],
      ['2023-01-03T00:00:00Z', 96],
    ]);
  });

  it('refuses a time grain on a numeric x or on a chart that is no line or area', async () => {
    const numeric = await dashboard({ v: { chart: 'line', x: 'v', time_grain: 'month' } });
    expect(numeric.status, numeric.text).toBe(400);
    expect(numeric.text).toContain('a time grain needs a date or timestamp column');
    const bar = await dashboard({ bar: { chart: 'bar', x: 'day', time_grain: 'month' } });
    expect(bar.status, bar.text).toBe(400);
    expect(bar.text).toContain('a time grain is for line and area charts');
  });
});
