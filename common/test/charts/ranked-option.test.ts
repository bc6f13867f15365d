import * as echarts from 'echarts';
import { describe, expect, it } from 'vitest';
import {
  brushedRange,
  chartOption,
  clickedCategory,
  type FigureComponent,
  type FigureData,
  selectedIndices,
} from '../../src/index.js';

const base = { type: 'figure', data_collection_id: 'dc' } as const;
const double = (name: string, column: string | null) => ({ name, type: 'double', column });
const text = (name: string, column: string) => ({ name, type: 'string', column });

const lollipopFigure: FigureComponent = {
  ...base,
  component_id: 'l',
  chart: 'lollipop',
  x: 'taxon',
  y: 'lfc',
  error: 'se',
};
const effects: FigureData = {
  columns: [text('x', 'taxon'), double('y', 'lfc'), double('error', 'se')],
  rows: [
    ['a', 2, 0.5],
    ['e', 1, null],
    ['b', -2, 0.25],
  ],
  sampled: true,
  total_rows: 7,
  not_shown: 2,
};

const stackFigure: FigureComponent = {
  ...base,
  component_id: 'st',
  chart: 'stacked_bar',
  x: 'sample',
  color: 'taxon',
  y: 'abundance',
};
const stacks: FigureData = {
  columns: [
    text('x', 'sample'),
    text('color', 'taxon'),
    double('y', 'abundance'),
    { name: 'other', type: 'boolean', column: null },
    { name: 'rank', type: 'long', column: null },
  ],
  // C's percentages sum higher than A's; A's abundance is the larger (the server's rank).
  rows: [
    ['s2', 'A', 25, false, 1],
    ['s2', null, 75, true, 3],
    ['s3', 'C', 100, false, 2],
    ['s1', 'A', 60, false, 1],
    ['s1', 'C', 10, false, 2],
    ['s1', null, 30, true, 3],
  ],
  sampled: false,
  total_rows: 7,
  not_shown: 2,
  samples_not_shown: 0,
};

const densityFigure: FigureComponent = { ...base, component_id: 'dc', chart: 'density_contour', x: 'x', y: 'y' };
/** One dense cell in the middle of a 3 × 3 grid. */
const density: FigureData = {
  columns: [double('x', 'x'), double('y', 'y'), { name: 'count', type: 'long', column: null }, double('density', null)],
  rows: [[1.5, 1.5, 4, 1]],
  sampled: false,
  total_rows: 4,
  grid: { x_low: 0, y_low: 0, x_step: 1, y_step: 1, x_bins: 3, y_bins: 3, placed: 4 },
};

const build = (component: FigureComponent, data: FigureData) => {
  const option = chartOption(component, data, { theme: 'light' });
  // Plain JSON: the export serves it as is.
  const json = JSON.parse(JSON.stringify(option));
  expect(json).toStrictEqual(option);
  return json as {
    series: Record<string, unknown>[];
    title: { subtext?: string };
    yAxis: { data?: string[]; jitter?: number };
  };
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

describe('the ranked and distribution charts’ options', () => {
  it('lollipop: sticks and heads, the largest effect at the top, whiskers where there is an error', () => {
    const option = build(lollipopFigure, effects);
    expect(option.yAxis.data).toEqual(['b', 'e', 'a']);
    expect(option.series.map((series) => series.type)).toEqual(['bar', 'scatter']);
    expect((option.series[1]?.markLine as { data: unknown[] } | undefined)?.data).toEqual([
      [{ coord: [1.5, 'a'] }, { coord: [2.5, 'a'] }],
      [{ coord: [-2.25, 'b'] }, { coord: [-1.75, 'b'] }],
    ]);
    expect(option.title.subtext).toBe('top 3 by |effect|; 2 more categories not shown');
    expect(drawnCounts(lollipopFigure, effects)).toEqual([3, 3]);
  });

  it('diverging bar: each bar coloured by its sign', () => {
    const option = build({ ...lollipopFigure, chart: 'diverging_bar', error: undefined }, effects);
    const colors = ((option.series[0]?.data ?? []) as { itemStyle: { color: string } }[]).map(
      (item) => item.itemStyle.color,
    );
    expect(colors[0]).toBe(colors[1]);
    expect(colors[2]).not.toBe(colors[0]);
  });

  it('a click on a lollipop or bar filters by its category, and shows it selected', () => {
    expect(clickedCategory(lollipopFigure, effects, { seriesIndex: 1, dataIndex: 2 })).toEqual({ value: 'b' });
    expect(clickedCategory(lollipopFigure, effects, { seriesIndex: 0, dataIndex: 0 })).toEqual({ value: 'a' });
    expect(selectedIndices(lollipopFigure, effects, ['e', 'b'])).toEqual([1, 2]);
  });

  it('stacked bar: a series per taxon, largest first and Other last; a click filters by its taxon', () => {
    const option = build(stackFigure, stacks);
    expect(option.series.map((series) => series.name)).toEqual(['A', 'C', 'Other']);
    // Samples in the server's order (by sort_by): s2, s3, s1.
    expect(option.series.map((series) => series.data)).toEqual([
      [25, 0, 60],
      [0, 100, 10],
      [75, 0, 30],
    ]);
    expect(option.title.subtext).toBe('2 more values of taxon in Other');
    expect(clickedCategory(stackFigure, stacks, { seriesIndex: 1, dataIndex: 0 })).toEqual({ value: 'C' });
    expect(clickedCategory(stackFigure, stacks, { seriesIndex: 2, dataIndex: 0 })).toBeUndefined();
  });

  it('strip: jittered points on the strips’ band, brushed along the values', () => {
    const figure: FigureComponent = { ...base, component_id: 's', chart: 'strip', x: 'shannon', y: 'habitat' };
    const data: FigureData = {
      columns: [double('x', 'shannon'), text('y', 'habitat')],
      rows: [
        [5.8, 'Groundwater'],
        [6.5, 'Riverwater'],
        [6.6, 'Riverwater'],
      ],
      sampled: false,
      total_rows: 3,
    };
    const option = build(figure, data);
    expect(option.yAxis.data).toEqual(['Groundwater', 'Riverwater']);
    expect(option.yAxis.jitter).toBe(40);
    expect(drawnCounts(figure, data)).toEqual([3]);
    expect(brushedRange(figure, data, [{ coordRange: [6.6, 6] }])).toEqual([6, 6.6]);
  });

  it('ecdf: a step line per group starting at 0', () => {
    const figure: FigureComponent = { ...base, component_id: 'e', chart: 'ecdf', x: 'v', color: 'g' };
    const data: FigureData = {
      columns: [double('x', 'v'), text('color', 'g'), double('share', null)],
      rows: [
        [1, 'p', 0.5],
        [3, 'p', 1],
        [2, 'q', 1],
      ],
      sampled: false,
      total_rows: 3,
    };
    const option = build(figure, data);
    expect(option.series.map((series) => [series.name, series.step, series.data])).toEqual([
      [
        'p',
        'end',
        [
          [1, 0],
          [1, 0.5],
          [3, 1],
        ],
      ],
      [
        'q',
        'end',
        [
          [2, 0],
          [2, 1],
        ],
      ],
    ]);
  });

  it('density: closed contours around the dense cell, in the data’s coordinates', () => {
    const option = build(densityFigure, density);
    expect(option.title.subtext).toBe('4 rows on a 3 × 3 grid');
    // Smoothed, the centre cell holds 4/16 of its density, its edge neighbours 2/16, corners 1/16:
    // the 90 % contour (0.225) circles the centre alone, crossing each edge toward the neighbours.
    const level90 = ((option.series[4]?.data ?? []) as unknown[]).filter((point) => point !== '-') as number[][];
    expect(level90.length).toBe(8);
    for (const [x, y] of level90) {
      expect(x).toBeGreaterThan(1);
      expect(x).toBeLessThan(2);
      expect(y).toBeGreaterThan(1);
      expect(y).toBeLessThan(2);
    }
    expect(brushedRange(densityFigure, density, [{ coordRange: [0.5, 1.25] }])).toEqual([0.5, 1.25]);
  });
});
