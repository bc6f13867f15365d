import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, rowsOf, serverWithPeople } from './analytics-table.js';

/*
 * Issue 24: a MultiQC table as viralrecon writes it, NaN for missing numbers (and ±Infinity),
 * made the overview generator fail with "STDDEV_SAMP is out of range". docs/data.md: NaN and
 * ±Infinity count as values, but statistics, bins and axes leave them out as they leave out null.
 */
const MULTIQC_CSV = [
  'sample,metric,val_raw,reads',
  'S1,coverage,1.5,10',
  'S2,coverage,NaN,20',
  'S3,mapped,2.5,30',
  'S4,mapped,Infinity,40',
  'S5,dup,-Infinity,50',
  'S6,dup,,60',
  '',
].join('\n');

const FIGURES = [
  { chart: 'scatter', x: 'val_raw', y: 'reads' },
  { chart: 'line', x: 'val_raw', y: 'reads', agg: 'mean' },
  { chart: 'area', x: 'metric', y: 'val_raw', agg: 'sum' },
  { chart: 'bar', x: 'metric', y: 'val_raw', agg: 'mean' },
  { chart: 'pie', color: 'metric', y: 'val_raw', agg: 'max' },
  { chart: 'histogram', x: 'val_raw' },
  { chart: 'histogram', x: 'val_raw', log_x: true },
  { chart: 'box', x: 'metric', y: 'val_raw' },
  { chart: 'violin', y: 'val_raw' },
  { chart: 'heatmap', x: 'val_raw', y: 'metric', color: 'val_raw', agg: 'median' },
];
const CARD_AGGS = ['count', 'count_distinct', 'sum', 'mean', 'median', 'min', 'max'];

describeEachDialect('NaN and ±Infinity in a double column', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let projectId: string;
  let collectionId: string;

  beforeAll(async () => {
    const people = await serverWithPeople(dialect);
    server = people.server;
    ada = await people.session('ada@example.org');
    ({ projectId, collectionId } = await projectWithTable(server, ada.access_token, 'MultiQC', MULTIQC_CSV));
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  const data = async (dashboardId: string, json: Record<string, unknown> = {}) => {
    const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
      token: ada.access_token,
      json,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.text).not.toMatch(/internal_error/);
    return answer.body.components;
  };

  it('stores the values as read; statistics leave them out and count them', async () => {
    const summary = await call<{ columns: Record<string, unknown>[] }>(
      server,
      'GET',
      `/datacollections/${collectionId}/summary`,
      { token: ada.access_token },
    );
    expect(summary.status, summary.text).toBe(200);
    const valRaw = summary.body.columns.find((column) => column.name === 'val_raw');
    expect(valRaw).toMatchObject({ type: 'double', count: 5, nulls: 1, non_finite: 3, min: 1.5, max: 2.5, mean: 2 });
    expect(valRaw?.std as number).toBeCloseTo(Math.SQRT1_2, 12);
    const rows = await call<{ rows: Record<string, unknown>[] }>(
      server,
      'GET',
      `/datacollections/${collectionId}/preview?sort=sample`,
      { token: ada.access_token },
    );
    expect(rows.status, rows.text).toBe(200);
    expect(rows.body.rows.map((row) => row.val_raw)).toEqual([1.5, 'NaN', 2.5, 'Infinity', '-Infinity', null]);
  });

  it('makes the overview dashboard, and every component of it answers', async () => {
    const created = await call<{
      dashboard_id: string;
      components: { component_id: string; type: string; x?: string }[];
    }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: projectId, title: 'Overview', template: 'overview' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.components.some((component) => component.x === 'val_raw')).toBe(true);
    const components = await data(created.body.dashboard_id);
    const answering = created.body.components.filter((component) => !['text', 'section'].includes(component.type));
    expect(Object.keys(components).sort()).toEqual(answering.map((component) => component.component_id).sort());
  });

  it('draws every chart kind, card and filter widget over the column, axes from the finite values', async () => {
    const table = { data_collection_id: collectionId };
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: {
        project_id: projectId,
        title: 'Everything',
        components: [
          ...FIGURES.map((figure, index) => ({ component_id: `f${index}`, type: 'figure', ...figure, ...table })),
          ...CARD_AGGS.map((agg) => ({ component_id: `card_${agg}`, type: 'card', agg, column: 'val_raw', ...table })),
          { component_id: 'range', type: 'interactive', widget: 'range', column: 'val_raw', ...table },
          { component_id: 'pick', type: 'interactive', widget: 'select', column: 'val_raw', ...table },
          { component_id: 'rows', type: 'table', sort: [{ column: 'sample', direction: 'asc' }], ...table },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.dashboard_id;
    const all = await data(id);
    expect(all.card_count).toMatchObject({ value: 5 });
    expect(all.card_count_distinct).toMatchObject({ value: 5 });
    expect(all.card_sum).toMatchObject({ value: 4 });
    expect(all.card_mean).toMatchObject({ value: 2 });
    expect(all.card_median).toMatchObject({ value: 2 });
    expect(all.card_min).toMatchObject({ value: 1.5 });
    expect(all.card_max).toMatchObject({ value: 2.5 });
    expect(all.range).toEqual({ min: 1.5, max: 2.5 });
    const histogram = rowsOf(all.f5 ?? {});
    expect(histogram[0]?.x_low).toBe(1.5);
    expect(histogram.at(-1)?.x_high).toBe(2.5);
    expect(histogram.reduce((sum, bin) => sum + Number(bin.count), 0)).toBe(2);
    // The scatter draws the two rows with finite coordinates only.
    expect(rowsOf(all.f0 ?? {}).map((point) => point.x)).toEqual([1.5, 2.5]);
    const picked = all.pick as { options: { value: unknown; count: number }[] };
    expect(picked.options.map((option) => option.value)).toEqual(
      expect.arrayContaining(['NaN', 'Infinity', '-Infinity', 1.5, 2.5, null]),
    );

    // A select picks NaN by the text it shows; a range never holds NaN.
    const pickNaN = await data(id, { filters: [{ component_id: 'pick', value: ['NaN'] }], components: ['card_count'] });
    expect(pickNaN.card_count).toMatchObject({ value: 1 });
    const open = await data(id, { filters: [{ component_id: 'range', value: [2, null] }], components: ['card_count'] });
    expect(open.card_count).toMatchObject({ value: 2 }); // 2.5 and Infinity; not NaN
  });

  it('writes NaN and ±Infinity into CSV downloads as the answers show them', async () => {
    const response = await fetch(`${server.url}/service/api/v1/datacollections/${collectionId}/download?format=csv`, {
      headers: { authorization: `Bearer ${ada.access_token}` },
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const cells = text
      .trim()
      .split(/\r?\n/)
      .slice(1)
      .map((line) => line.split(',')[2]);
    expect(cells.sort()).toEqual(['-Infinity', '1.5', '2.5', 'Infinity', 'NaN', ''].sort());
  });
});
