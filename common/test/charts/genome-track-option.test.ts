import * as echarts from 'echarts';
import { describe, expect, it } from 'vitest';
import {
  brushedRange,
  chartOption,
  cladeTips,
  type FigureComponent,
  type FigureData,
  toggleClade,
} from '../../src/index.js';

const base = { type: 'figure', data_collection_id: 'dc' } as const;
const double = (name: string, column: string | null) => ({ name, type: 'double', column });

const coverageFigure: FigureComponent = {
  ...base,
  component_id: 'c',
  chart: 'coverage',
  position: 'pos',
  y: 'depth',
  color: 'sample',
};
const coverageData: FigureData = {
  columns: [
    { name: 'color', type: 'string', column: 'sample' },
    double('x_low', 'pos'),
    double('x_high', 'pos'),
    double('min', 'depth'),
    double('max', 'depth'),
    double('mean', 'depth'),
  ],
  rows: [
    ['a', 1, 3, 0, 12, 7],
    ['a', 3, 5, 11, 50, 30],
    ['b', 1, 3, 1, 3, 2],
  ],
  sampled: true,
  total_rows: 22,
  bucket_width: 2,
  left_out_series: 1,
};

const treeFigure: FigureComponent = { ...base, component_id: 't', chart: 'tree', tip: 'tip', color: 'habitat' };
const treeData: FigureData = {
  columns: [
    { name: 'node', type: 'long', column: null },
    { name: 'parent', type: 'long', column: null },
    { name: 'name', type: 'string', column: 'tip' },
    double('length', null),
    double('support', null),
    { name: 'tips', type: 'long', column: null },
    { name: 'color', type: 'string', column: 'habitat' },
    { name: 'matched', type: 'boolean', column: null },
  ],
  rows: [
    [0, null, null, null, null, 3, null, false],
    [1, 0, null, 1, 0.9, 2, null, false],
    [2, 1, 'A', 1, null, 1, 'river', true],
    [3, 1, 'B', 2, null, 1, null, false],
    [4, 0, 'C', 2, null, 1, 'soil', true],
  ],
  sampled: false,
  total_rows: 3,
  unmatched_tips: 1,
  tree_file: 'tree.nwk',
};

const build = (component: FigureComponent, data: FigureData) => {
  const option = chartOption(component, data, { theme: 'light' });
  const json = JSON.parse(JSON.stringify(option));
  expect(json).toStrictEqual(option);
  return json as { series: Record<string, unknown>[]; title: { subtext?: string } };
};

function drawnCounts(component: FigureComponent, data: FigureData): number[] {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 480, height: 320, locale: 'EN' });
  try {
    chart.setOption(build(component, data) as echarts.EChartsOption);
    const model = (
      chart as unknown as { getModel(): { getSeries(): { getData(): { count(): number } }[] } }
    ).getModel();
    return model.getSeries().map((series) => series.getData().count());
  } finally {
    chart.dispose();
  }
}

describe('the genome tracks’ options', () => {
  it('coverage: per sample a band from the lowest to the highest depth, and the mean', () => {
    const option = build(coverageFigure, coverageData);
    expect(option.series.map((series) => series.name)).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
    // The band: the lowest depth, then the span above it stacked on it; the mean at the bucket's middle.
    expect(option.series[0]?.data).toEqual([
      [2, 0],
      [4, 11],
    ]);
    expect(option.series[1]?.data).toEqual([
      [2, 12],
      [4, 39],
    ]);
    expect(option.series[1]?.stack).toBe(option.series[0]?.stack);
    expect(option.series[2]?.data).toEqual([
      [2, 7],
      [4, 30],
    ]);
    expect(option.title.subtext).toBe('lowest to highest depth per 2 positions · 1 sample left out');
    expect(drawnCounts(coverageFigure, coverageData)).toEqual([2, 2, 2, 1, 1, 1]);
  });

  it('coverage: a brush selects a range of positions', () => {
    expect(brushedRange(coverageFigure, coverageData, [{ coordRange: [4.5, 1.5] }])).toEqual([1.5, 4.5]);
  });

  it('tree: the nodes nested for ECharts, tips coloured, the unmatched grey', () => {
    const option = build(treeFigure, treeData);
    const [series] = option.series as { type: string; layout: string; data: unknown[] }[];
    expect(series?.type).toBe('tree');
    expect(series?.layout).toBe('orthogonal');
    const root = series?.data[0] as { children: { node: number; value: string; children?: unknown[] }[] };
    expect(root.children.map((child) => child.node)).toEqual([1, 4]);
    expect(root.children[0]?.value).toBe('2 tips, support 0.9');
    const [a, b] = (root.children[0]?.children ?? []) as {
      name: string;
      value: string;
      itemStyle: { color: string };
    }[];
    expect([a?.name, a?.value, b?.name, b?.value]).toEqual(['A', 'river', 'B', 'not in the table']);
    expect(a?.itemStyle.color).not.toBe(b?.itemStyle.color);
    expect(option.title.subtext).toBe('1 tip not in the table, uncoloured');
    // The legend names the colours of the tips drawn in colour, each in its tip's colour.
    const key = option.series[1] as { type: string; data: { name: string; itemStyle: { color: string } }[] };
    expect(key.type).toBe('pie');
    expect(key.data.map((item) => item.name)).toEqual(['river', 'soil']);
    expect(key.data[0]?.itemStyle.color).toBe(a?.itemStyle.color);
    expect((option as { legend?: { show?: boolean } }).legend?.show).toBe(true);
    // Five nodes, and the virtual root ECharts' tree puts above the data's; the key's two items.
    expect(drawnCounts(treeFigure, treeData)).toEqual([6, 2]);
    expect((build({ ...treeFigure, layout: 'radial' }, treeData).series[0] as { layout: string }).layout).toBe(
      'radial',
    );
  });

  it('tree: a click on a clade selects its tips, a second click clears it', () => {
    expect(cladeTips(treeData, { node: 1 })).toEqual(['A', 'B']);
    expect(cladeTips(treeData, { node: 0 })).toEqual(['A', 'B', 'C']);
    expect(cladeTips(treeData, { node: 4 })).toEqual(['C']);
    expect(cladeTips(treeData, {})).toBeUndefined();
    expect(toggleClade(null, ['A', 'B'])).toEqual(['A', 'B']);
    expect(toggleClade(['B', 'A'], ['A', 'B'])).toBeNull();
  });
});
