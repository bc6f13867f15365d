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

  it('names a sankey’s last column on the left of its nodes, inside the chart, the others on their right', () => {
    const links = [
      { level: 0, from: 'Bacteria', to: 'Proteobacteria', value: 3 },
      { level: 1, from: 'Proteobacteria', to: 'Betaproteobacteria', value: 3 },
    ];
    const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 600, height: 400, locale: 'EN' });
    try {
      chart.setOption({ ...chartOption(sankeyFigure, { ...sankeyData, links }, { theme: 'light' }), animation: false });
      const svg = chart.renderToSVGString();
      // A node's name carries one zero-width space per level (names apart per level).
      const anchorOf = (name: string) =>
        svg.match(new RegExp(`<text[^>]*text-anchor="(\\w+)"[^>]*>${name}\u200b*</text>`))?.[1];
      expect(anchorOf('Bacteria')).toBe('start');
      expect(anchorOf('Proteobacteria')).toBe('start');
      expect(anchorOf('Betaproteobacteria')).toBe('end');
    } finally {
      chart.dispose();
    }
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
    chart.setOption({ ...option, animation: false });
    expect(chart.renderToSVGString()).toContain('<svg');
    chart.dispose();
    // Each set's size is written at its bar, grouped; the bars take half their grid's width at most.
    const large = { ...upsetData, set_sizes: { a: 12_408, b: 3_907, c: 1 } };
    const big = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 600, height: 400, locale: 'EN' });
    big.setOption({ ...chartOption(upsetFigure, large, { theme: 'light' }), animation: false });
    const svg = big.renderToSVGString();
    big.dispose();
    for (const size of ['12,408', '3,907', '1']) expect(svg).toContain(`>${size}</text>`);
    expect((chartOption(upsetFigure, large, { theme: 'light' }).xAxis as { max?: number }[])[2]?.max).toBe(24_816);
  });

  it('draws the children under 1/720 of the whole as one piece per parent, which filters nothing', () => {
    const nodes: NonNullable<FigureData['nodes']> = [
      { path: ['A'], value: 1000 },
      { path: ['B'], value: 1 },
      { path: ['A', 'x'], value: 990 },
      { path: ['A', 'p'], value: 0.5 },
      { path: ['A', 'q'], value: 1 },
      { path: ['A', 'r'], value: 3 },
      { path: ['A', 'x', 'deep'], value: 990 },
      { path: ['B', 'only'], value: 1 },
    ];
    const data: FigureData = { ...sunburstData, nodes, folded: [] };
    for (const chart of ['sunburst', 'treemap'] as const) {
      const option = chartOption({ ...sunburstFigure, chart }, data, { theme: 'light' });
      const roots = seriesOf(option)[0]?.data as Item[];
      // Whole: 1,001; the smallest drawn alone is 1,001 / 720 ≈ 1.39. B (1) is the only small root: kept.
      expect(roots.map((root) => [root.name, root.value, root.filter])).toEqual([
        ['A', 1000, ['A']],
        ['B', 1, ['B']],
      ]);
      // r (3) is drawn; p and q (0.5 and 1) are one piece, after the parent's other children.
      expect(roots[0]?.children?.map((child) => [child.name, child.value, child.filter])).toEqual([
        ['x', 990, ['A', 'x']],
        ['r', 3, ['A', 'r']],
        ['2 smaller values', 1.5, null],
      ]);
      expect(roots[0]?.children?.[0]?.children?.map((child) => child.name)).toEqual(['deep']);
      expect(roots[1]?.children?.map((child) => child.name)).toEqual(['only']);
      expect(JSON.stringify(option.aria)).toContain('2 values under 1/720 of the whole drawn as one per parent');
    }
  });

  it('leaves a sankey’s flows under 1/720 of their levels undrawn, its nodes at their full size', () => {
    const links: NonNullable<FigureData['links']> = [
      { level: 0, from: 'A', to: 'U', value: 1000 },
      { level: 0, from: 'A', to: 'V', value: 1 },
      { level: 0, from: 'B', to: 'V', value: 1 },
    ];
    const columns = ['level', 'from', 'to', 'value'].map((name) => ({ name, type: 'string', column: null }));
    const rows = links.map((link) => [link.level, link.from, link.to, link.value]);
    const option = chartOption(sankeyFigure, { ...sankeyData, columns, rows, links }, { theme: 'light' });
    const [series] = seriesOf(option);
    const drawn = (series?.links ?? []) as { filter: unknown }[];
    expect(drawn.map((link) => link.filter)).toEqual([[0, 'A', 'U']]);
    const nodes = series?.data as { filter: unknown; value: number }[];
    expect(nodes.map((node) => [node.filter, node.value])).toEqual([
      [[0, 'A'], 1001],
      [[1, 'U'], 1000],
      [[1, 'V'], 2],
      [[0, 'B'], 1],
    ]);
    expect(JSON.stringify(option.title)).toContain('2 flows under half a pixel not drawn');
    expect(JSON.stringify(option.aria)).toContain('3 flows between 4 nodes; 2 flows under half a pixel not drawn');
  });

  it('draws a sunburst or treemap of many nodes without transitions, its series too', () => {
    const many: NonNullable<FigureData['nodes']> = Array.from({ length: 2_001 }, (_, index) => ({
      path: [`n${index}`],
      value: 1,
    }));
    for (const chart of ['sunburst', 'treemap'] as const) {
      const few = chartOption({ ...sunburstFigure, chart }, sunburstData, { theme: 'light' });
      expect(few.animation).toBeUndefined();
      // Their series' own defaults (0.5 s, 0.9 s) give way to the option's short transitions.
      expect(seriesOf(few)[0]?.animationDurationUpdate).toBe(200);
      const still = chartOption(
        { ...sunburstFigure, chart },
        { ...sunburstData, nodes: many, folded: [] },
        { theme: 'light' },
      );
      expect(still.animation).toBe(false);
      expect(seriesOf(still)[0]?.animation).toBe(false);
    }
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
