import * as echarts from 'echarts';
import { describe, expect, it } from 'vitest';
import {
  chartOption,
  clickedItemFilter,
  describeItemFilter,
  type FigureComponent,
  type FigureData,
  filterValueProblem,
} from '../../src/index.js';

const base = { type: 'figure', data_collection_id: 'dc' } as const;

const sunburstFigure: FigureComponent = { ...base, component_id: 's', chart: 'sunburst', levels: ['k', 'p'] };
const sunburstData: FigureData = {
  columns: [
    { name: 'level_0', type: 'string', column: 'k' },
    { name: 'level_1', type: 'string', column: 'p' },
    { name: 'value', type: 'double', column: null },
  ],
  rows: [
    ['A', 'x', 6],
    ['A', 'Other', 4],
    ['B', null, 5],
  ],
  sampled: true,
  total_rows: 15,
  nodes: [
    { path: ['A'], value: 10 },
    { path: ['B'], value: 5 },
    { path: ['A', 'x'], value: 6 },
    { path: ['B', null], value: 5 },
    { path: ['A', 'Other'], value: 4, other: true },
  ],
  folded: [{ level: 1, values: 3 }],
};

const sankeyFigure: FigureComponent = { ...base, component_id: 'k', chart: 'sankey', levels: ['k', 'p', 'c'] };
const sankeyData: FigureData = {
  columns: [],
  rows: [],
  sampled: false,
  total_rows: 4,
  links: [
    { level: 0, from: 'A', to: 'U', value: 3 },
    { level: 1, from: 'U', to: 'U', value: 2 },
  ],
};

const upsetFigure: FigureComponent = { ...base, component_id: 'u', chart: 'upset', sets: ['a', 'b', 'c'] };
const upsetData: FigureData = {
  columns: [
    { name: 'sets', type: 'string', column: null },
    { name: 'count', type: 'long', column: null },
  ],
  rows: [
    ['a', 2],
    ['a & b', 2],
  ],
  sampled: true,
  total_rows: 7,
  set_sizes: { a: 4, b: 4, c: 1 },
  intersections: [
    { sets: ['a'], count: 2 },
    { sets: ['a', 'b'], count: 2 },
  ],
  left_out: { intersections: 2, rows: 2 },
};

type Item = { name: string; value: number; filter: unknown; children?: Item[] };
const seriesOf = (option: ReturnType<typeof chartOption>) => option.series as Record<string, unknown>[];

describe('sunburst, treemap, sankey and UpSet options', () => {
  it('nests a sunburst’s nodes; folded ones carry no filter; the subtitle says what was folded', () => {
    const option = chartOption(sunburstFigure, sunburstData, { theme: 'light' });
    const [series] = seriesOf(option);
    expect(series?.type).toBe('sunburst');
    const roots = series?.data as Item[];
    expect(roots.map((root) => [root.name, root.value])).toEqual([
      ['A', 10],
      ['B', 5],
    ]);
    expect(roots[0]?.children?.map((child) => [child.name, child.filter])).toEqual([
      ['x', ['A', 'x']],
      ['Other', null],
    ]);
    expect(roots[1]?.children?.[0]).toMatchObject({ name: '(missing)', filter: ['B', null] });
    expect(JSON.stringify(option.title)).toContain('3 smaller values folded into “Other”');
    const treemap = chartOption({ ...sunburstFigure, chart: 'treemap' }, sunburstData, { theme: 'dark' });
    expect(seriesOf(treemap)[0]?.type).toBe('treemap');
  });

  it('names a sankey’s nodes apart per level and gives each flow its filter', () => {
    const [series] = seriesOf(chartOption(sankeyFigure, sankeyData, { theme: 'light' }));
    const nodes = series?.data as { name: string; filter: unknown }[];
    // U at level 1 and U at level 2 are two nodes.
    expect(nodes.map((node) => node.filter)).toEqual([
      [0, 'A'],
      [1, 'U'],
      [2, 'U'],
    ]);
    expect(new Set(nodes.map((node) => node.name)).size).toBe(3);
    expect(((series?.links ?? []) as { filter: unknown }[]).map((link) => link.filter)).toEqual([
      [0, 'A', 'U'],
      [1, 'U', 'U'],
    ]);
  });

  it('draws an UpSet plot as bars over a matrix, with set sizes, and says what was left out', () => {
    const option = chartOption(upsetFigure, upsetData, { theme: 'light' });
    const [bars, , dots, sizes] = seriesOf(option);
    expect(((bars?.data ?? []) as { value: number; filter: string[] }[]).map((bar) => [bar.value, bar.filter])).toEqual(
      [
        [2, ['a']],
        [2, ['a', 'b']],
      ],
    );
    expect(dots?.data).toHaveLength(6);
    expect(((sizes?.data ?? []) as { value: number }[]).map((bar) => bar.value)).toEqual([4, 4, 1]);
    expect(option.grid).toHaveLength(3);
    expect(JSON.stringify(option.title)).toContain('2 others (2 rows) left out');
    // ECharts takes the whole option (grids, axes and series agree).
    const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 600, height: 400, locale: 'EN' });
    chart.setOption(option);
    expect(chart.renderToSVGString()).toContain('<svg');
    chart.dispose();
  });

  it('turns a click into the filter, and a second click on the same item clears it', () => {
    expect(clickedItemFilter({ data: { filter: ['A', 'x'] } }, null)).toEqual(['A', 'x']);
    expect(clickedItemFilter({ data: { filter: ['A', 'x'] } }, ['A', 'x'])).toBeNull();
    expect(clickedItemFilter({ data: { filter: null } }, null)).toBeUndefined();
    expect(clickedItemFilter({}, null)).toBeUndefined();
    expect(describeItemFilter('sunburst', ['A', 'x'])).toBe('A › x');
    expect(describeItemFilter('sankey', [0, 'A', 'U'])).toBe('A → U');
    expect(describeItemFilter('upset', ['a', 'b'])).toBe('exactly a & b');
  });

  it('checks a filter value against the chart’s levels and sets', () => {
    expect(filterValueProblem(sunburstFigure, ['A', 'x'])).toBeNull();
    expect(filterValueProblem(sunburstFigure, ['A', 'x', 'y'])).not.toBeNull();
    expect(filterValueProblem(sankeyFigure, [1, 'U', 'V'])).toBeNull();
    expect(filterValueProblem(sankeyFigure, [2, 'U', 'V'])).not.toBeNull();
    expect(filterValueProblem(sankeyFigure, [2, 'U'])).toBeNull();
    expect(filterValueProblem(upsetFigure, ['a', 'c'])).toBeNull();
    expect(filterValueProblem(upsetFigure, ['a', 'a'])).not.toBeNull();
    expect(filterValueProblem(upsetFigure, ['d'])).not.toBeNull();
  });
});
