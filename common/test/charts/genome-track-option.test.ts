import * as echarts from 'echarts';
import { describe, expect, it } from 'vitest';
import { brushedRange, chartOption, type FigureComponent, type FigureData } from '../../src/index.js';

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
});
