import { describe, expect, it } from 'vitest';
import { type OverviewCollection, overviewComponents } from '../src/dashboard-overview.js';
import { createDashboardRequestSchema } from '../src/dashboards.js';
import { columnRole, keyCandidates, type OverviewColumn } from '../src/overview-columns.js';
import { detectJoins } from '../src/overview-joins.js';
import { measureFormat } from '../src/overview-table.js';

/**
 * The generated overview's choices (docs/dashboards.md "Overview dashboards"), per shape of table:
 * from column statistics alone, what a data scientist would draw.
 */

const PROJECT = { name: 'study', description: '' };
const text = (name: string, distinct: number, count = 100): OverviewColumn => ({
  name,
  type: 'string',
  distinct,
  count,
});
const num = (name: string, distinct: number, min: number, max: number, type = 'double'): OverviewColumn => ({
  name,
  type,
  distinct,
  count: 100,
  min,
  max,
  std: max === min ? 0 : 1,
});
const table = (
  tag: string,
  columns: OverviewColumn[],
  extra: Partial<OverviewCollection> = {},
): OverviewCollection => ({
  data_collection_id: `id-${tag}`,
  tag,
  type: 'table',
  summary: { rows: 100, version: 0, columns: [{ name: '_run_id', type: 'string', distinct: 1 }, ...columns] },
  ...extra,
});

const of = (collections: OverviewCollection[], joins: Parameters<typeof overviewComponents>[2] = []) => {
  const made = overviewComponents(PROJECT, collections, joins);
  // Whatever it makes is a dashboard the server accepts.
  const parsed = createDashboardRequestSchema.safeParse({ project_id: 'p', title: 'Overview', ...made });
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  return made;
};
const kinds = (made: ReturnType<typeof of>) =>
  made.components.map((component) =>
    component.type === 'figure'
      ? `${component.chart}:${component.x ?? component.latitude ?? component.region ?? ''}`
      : component.type,
  );

describe('column roles', () => {
  it('tells ids, measures, categories, times, coordinates and nothing apart', () => {
    expect(columnRole(text('sample', 100), 100)).toBe('id');
    expect(columnRole(text('comment', 98), 100)).toBe('id');
    expect(columnRole(text('species', 3), 100)).toBe('category');
    expect(columnRole(text('species', 1), 100)).toBe('none');
    expect(columnRole(num('row', 100, 1, 100, 'long'), 100)).toBe('id');
    expect(columnRole(num('mass', 80, 3000, 6000), 100)).toBe('measure');
    expect(columnRole(num('constant', 1, 5, 5), 100)).toBe('none');
    expect(columnRole(num('latitude', 50, -40, 60), 100)).toBe('latitude');
    expect(columnRole(num('lon', 50, -170, 60), 100)).toBe('longitude');
    expect(columnRole(num('latitude', 50, -400, 60), 100)).toBe('measure');
    expect(columnRole({ name: 'day', type: 'date', distinct: 30, count: 100 }, 100)).toBe('time');
    expect(columnRole(text('country', 12), 100)).toBe('country');
    expect(columnRole(text('_file_id', 3), 100)).toBe('bookkeeping');
    expect(columnRole(text('path', 12), 12, true)).toBe('bookkeeping');
  });

  it('writes a fraction as a percentage and sizes decimals by the numbers', () => {
    expect(measureFormat(num('gc_fraction', 50, 0.2, 0.7))).toEqual({ style: 'percent', decimals: 1 });
    expect(measureFormat(num('mass', 50, 3000, 6000))).toEqual({ decimals: 0 });
    expect(measureFormat(num('ratio', 50, 0.5, 4))).toEqual({ decimals: 2 });
    expect(measureFormat(num('reads', 50, 1e5, 9e6))).toEqual({ style: 'si', decimals: 1 });
  });
});

describe('the overview of one table', () => {
  it('draws nothing but the count and the table of only ids', () => {
    const made = of([table('ids', [text('sample_id', 100), num('index', 100, 0, 99, 'long')])]);
    expect(kinds(made)).toEqual(['text', 'section', 'card', 'table']);
  });

  it('counts the categories of only text, and leaves near-unique text out', () => {
    const made = of([table('notes', [text('comment', 100), text('status', 3), text('author', 5)])]);
    expect(kinds(made)).toEqual([
      'text',
      'section',
      'card',
      'interactive',
      'interactive',
      'bar:status',
      'bar:author',
      'table',
    ]);
  });

  it('draws a wide numeric table as cards, histograms and its correlated pairs', () => {
    const columns = Array.from({ length: 10 }, (_, n) => num(`m${n}`, 90, 0, 10 + n));
    const correlations = [
      { x: 'm0', y: 'm1', r: 0.95 },
      { x: 'm0', y: 'm2', r: -0.7 },
      { x: 'm1', y: 'm2', r: 0.2 },
    ];
    const made = of([table('wide', columns, { correlations })]);
    const figures = kinds(made).filter((kind) => kind.includes(':'));
    expect(figures).toEqual([...Array.from({ length: 6 }, (_, n) => `histogram:m${n}`), 'scatter:m0', 'scatter:m0']);
    const cards = made.components.filter((component) => component.type === 'card');
    expect(cards.map((card) => [card.agg, card.column])).toEqual([
      ['count', undefined],
      ['mean', 'm0'],
      ['mean', 'm1'],
    ]);
  });

  it('draws a time series and a date filter when there is a date', () => {
    const made = of([
      table('daily', [
        { name: 'day', type: 'date', distinct: 60, count: 100 },
        text('site', 4),
        num('value', 90, 0, 5),
      ]),
    ]);
    expect(kinds(made)).toEqual(expect.arrayContaining(['line:day', 'interactive', 'histogram:value', 'bar:site']));
    const widgets = made.components.flatMap((component) =>
      component.type === 'interactive' ? [component.widget] : [],
    );
    expect(widgets).toEqual(['multiselect', 'date_range']);
  });

  it('maps coordinates and countries', () => {
    const made = of([
      table('sites', [
        num('latitude', 40, -30, 60),
        num('longitude', 40, -100, 100),
        text('country', 8),
        text('habitat', 3),
      ]),
    ]);
    expect(kinds(made)).toEqual(expect.arrayContaining(['point_map:latitude', 'choropleth:country']));
    expect(kinds(made)).not.toContain('histogram:latitude');
  });

  it('compares the cards with the previous version when the table has one', () => {
    const first = of([table('t', [num('m', 50, 0, 9)])]);
    expect(first.components.filter((component) => component.type === 'card' && 'comparison' in component)).toEqual([]);
    const later = of([
      table('t', [num('m', 50, 0, 9)], { summary: { rows: 100, version: 3, columns: [num('m', 50, 0, 9)] } }),
    ]);
    const cards = later.components.filter((component) => component.type === 'card');
    expect(cards.map((card) => card.comparison)).toEqual([
      { against: 'previous_version' },
      { against: 'previous_version' },
    ]);
  });

  it('shows an image collection as a gallery captioned by its named groups', () => {
    const images: OverviewCollection = {
      data_collection_id: 'img',
      tag: 'plots',
      type: 'image',
      summary: {
        rows: 12,
        version: 0,
        columns: [
          { name: 'image_id', type: 'string', distinct: 12, count: 12 },
          { name: 'path', type: 'string', distinct: 12, count: 12 },
          { name: 'width', type: 'long', distinct: 3, count: 12, min: 400, max: 600, std: 80 },
          text('sample', 4, 12),
          text('kind', 3, 12),
        ],
      },
    };
    const made = of([images]);
    expect(kinds(made)).toEqual(['text', 'section', 'card', 'card', 'interactive', 'image']);
    expect(made.components.at(-1)).toMatchObject({ type: 'image', caption_columns: ['sample', 'kind'] });
  });

  it('shows a MultiQC report as its sample filter, general statistics and each module’s main plot', () => {
    const made = of([
      {
        data_collection_id: 'mqc',
        tag: 'multiqc',
        type: 'multiqc',
        summary: null,
        multiqc: {
          plots: [
            { anchor: 'general_stats_table', plot_type: 'table', module: 'general_stats' },
            { anchor: 'fastqc_table', plot_type: 'table', module: 'fastqc' },
            { anchor: 'fastqc_counts', plot_type: 'bar', module: 'fastqc' },
          ],
        },
      },
    ]);
    expect(made.components.map((component) => component.component_id)).toEqual([
      'overview',
      'c1-section',
      'c1-samples',
      'c1-general',
      'c1-plot-1',
    ]);
  });
});

describe('collections together', () => {
  const samples = table('samples', [text('sample', 100), text('habitat', 4)]);
  const counts = table('counts', [text('sample', 40), text('gene', 20), num('count', 90, 0, 1000)]);

  it('finds join keys shared by name and declares the joins whose values overlap', () => {
    const candidates = keyCandidates(
      [samples, counts].map((collection) => ({
        data_collection_id: collection.data_collection_id,
        rows: 100,
        image: false,
        columns: collection.summary?.columns ?? [],
      })),
    );
    expect(candidates).toEqual([
      { data_collection_id: 'id-samples', column: 'sample' },
      { data_collection_id: 'id-counts', column: 'sample' },
    ]);
    const values = ['S1', 'S2', 'S3', 'S4'];
    expect(
      detectJoins([
        { data_collection_id: 'id-samples', column: 'sample', values },
        { data_collection_id: 'id-counts', column: 'sample', values: ['S1', 'S2', 'S9'] },
      ]),
    ).toEqual([{ left: 'id-samples', right: 'id-counts', column: 'sample' }]);
    // No value in common, or a join already declared: none.
    expect(
      detectJoins([
        { data_collection_id: 'a', column: 'sample', values },
        { data_collection_id: 'b', column: 'sample', values: ['X1', 'X2'] },
      ]),
    ).toEqual([]);
    expect(
      detectJoins(
        [
          { data_collection_id: 'a', column: 'sample', values },
          { data_collection_id: 'b', column: 'sample', values },
        ],
        [{ left: 'b', right: 'a' }],
      ),
    ).toEqual([]);
  });

  it('puts one filter per join key at the top, on the first collection that has it', () => {
    const made = of([samples, counts], [{ left: 'id-samples', right: 'id-counts', column: 'sample' }]);
    expect(made.components[1]).toMatchObject({
      component_id: 'key-1',
      type: 'interactive',
      column: 'sample',
      data_collection_id: 'id-counts',
    });
    expect(made.tabs).toEqual([]);
    expect(made.components.filter((component) => component.type === 'section')).toHaveLength(2);
  });

  it('gives each collection a tab of its own when there are many, and keeps within 100 components', () => {
    const many = Array.from({ length: 30 }, (_, n) =>
      table(`t${String(n).padStart(2, '0')}`, [
        text('site', 4),
        ...Array.from({ length: 8 }, (_, m) => num(`m${m}`, 50, 0, 9)),
      ]),
    );
    const made = of(many);
    expect(made.tabs).toHaveLength(20);
    expect(made.tabs[0]).toEqual({ tab_id: 'overview', title: 'Overview' });
    expect(made.tabs.at(-1)?.title).toBe('t18 and more');
    expect(made.components.length).toBeLessThanOrEqual(100);
    // The overview tab holds every collection's row count.
    const first = made.components.filter((component) => component.tab_id === 'overview');
    expect(first.filter((component) => component.type === 'card')).toHaveLength(30);
    // Each tab's layout is its own grid, starting at the top.
    for (const tab of made.tabs) {
      const ids = new Set(
        made.components.filter((component) => component.tab_id === tab.tab_id).map((c) => c.component_id),
      );
      const rows = made.layout.filter((item) => ids.has(item.component_id)).map((item) => item.y);
      expect(Math.min(...rows)).toBe(0);
    }
  });

  it('keeps a few collections in one tab, a section each', () => {
    const made = of([samples, counts, table('third', [num('m', 50, 0, 9)])]);
    expect(made.tabs).toEqual([]);
    const sections = made.layout.filter((item) => item.component_id.endsWith('-section'));
    expect(sections.every((item) => item.x === 0 && item.w === 12)).toBe(true);
  });
});
