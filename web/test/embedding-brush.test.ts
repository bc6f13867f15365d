import { chartOption, type FigureComponent, type FigureData } from '@service/common';
import * as echarts from 'echarts';
import { describe, expect, it } from 'vitest';
import { brushedBox, brushedIds, isBoxBrush, isIdBrush } from '../src/dashboard/brushed-ids.js';
import { filterChips } from '../src/dashboard/chips.js';

/*
 * Issue 28: a rectangle brushed over an embedding of given coordinates is that rectangle in them
 * (the server selects every row inside); over a computed PCA with ids it selects the ids of the
 * points drawn inside it, in any panel of a 3-D embedding's pairs; beyond 1,000 ids it sets no filter and says
 * how many were brushed. ECharts lays the option out (server-side rendering) and places the points.
 */

const base = { type: 'figure', data_collection_id: 'dc', component_id: 'e' } as const;
const double = (name: string) => ({ name, type: 'double', column: name });

const flat: FigureComponent = { ...base, chart: 'embedding', x: 'a', y: 'b', label: 'id' };
const deep: FigureComponent = { ...flat, z: 'c' };
const pcaWithIds: FigureComponent = { ...base, chart: 'embedding', pca_columns: ['a', 'b', 'c'], label: 'id' };

function dataOf(points: [number, number, number, string][], withZ: boolean): FigureData {
  return {
    columns: [
      double('x'),
      double('y'),
      ...(withZ ? [double('z')] : []),
      { name: 'label', type: 'string', column: 'id' },
    ],
    rows: points.map(([x, y, z, id]) => (withZ ? [x, y, z, id] : [x, y, id])),
    sampled: false,
    total_rows: points.length,
  };
}

function drawn(component: FigureComponent, data: FigureData) {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 900, height: 400 });
  chart.setOption(chartOption(component, data, { theme: 'light' }) as echarts.EChartsOption);
  const toPixel = (panel: number, point: [number, number]) =>
    chart.convertToPixel({ gridIndex: panel }, point) as [number, number] | undefined;
  return { chart, toPixel };
}

/** A pixel rectangle around two points of a panel, as ECharts' rect brush reports it. */
function around(
  toPixel: (panel: number, point: [number, number]) => [number, number] | undefined,
  panel: number,
  from: [number, number],
  to: [number, number],
) {
  const a = toPixel(panel, from) ?? [Number.NaN, Number.NaN];
  const b = toPixel(panel, to) ?? [Number.NaN, Number.NaN];
  const [left, right] = [Math.min(a[0], b[0]) - 2, Math.max(a[0], b[0]) + 2];
  const [top, bottom] = [Math.min(a[1], b[1]) - 2, Math.max(a[1], b[1]) + 2];
  return [
    {
      range: [
        [left, right],
        [top, bottom],
      ],
    },
  ];
}

const POINTS: [number, number, number, string][] = [
  [0, 0, 10, 's1'],
  [1, 1, 0, 's2'],
  [5, 5, 5, 's3'],
  [9, 9, 10, 's4'],
];

describe('a brush over an embedding with ids', () => {
  it('selects the ids of the points inside the rectangle', () => {
    const data = dataOf(POINTS, false);
    const { chart, toPixel } = drawn(flat, data);
    expect(chartOption(flat, data, { theme: 'light' }).brush).toMatchObject({ brushType: 'rect' });
    expect(brushedIds(data, around(toPixel, 0, [0, 0], [1, 1]), toPixel)).toEqual({ value: ['s1', 's2'] });
    expect(brushedIds(data, [], toPixel)).toEqual({ value: null });
    chart.dispose();
  });

  it('draws a 3-D embedding as three pairs and selects in any of them', () => {
    const data = dataOf(POINTS, true);
    const option = chartOption(deep, data, { theme: 'light' });
    expect(option.grid).toHaveLength(3);
    expect((option.series as unknown[]).length).toBe(3);
    const { chart, toPixel } = drawn(deep, data);
    // In the y–z panel (the third): y from 0 to 1 and z from 0 to 10 hold s1 and s2.
    expect(brushedIds(data, around(toPixel, 2, [0, 0], [1, 10]), toPixel)).toEqual({ value: ['s1', 's2'] });
    // In the x–z panel: x from 5 to 9, z from 5 to 10: s3 and s4.
    expect(brushedIds(data, around(toPixel, 1, [5, 5], [9, 10]), toPixel)).toEqual({ value: ['s3', 's4'] });
    chart.dispose();
  });

  it('sets no filter beyond 1,000 ids, saying how many were brushed', () => {
    const many = Array.from({ length: 1001 }, (_, i): [number, number, number, string] => [i % 10, i % 7, 0, `s${i}`]);
    const data = dataOf(many, false);
    const { chart, toPixel } = drawn(flat, data);
    expect(brushedIds(data, around(toPixel, 0, [0, 0], [9, 6]), toPixel)).toEqual({ tooMany: 1001 });
    chart.dispose();
  });

  it('reads as its ids on the chip (a PCA) or as its rectangle (given coordinates)', () => {
    const pcaChips = filterChips([{ component_id: 'e', value: ['s1', 's2', 's3', 's4', 's5'] }], [pcaWithIds]);
    expect(pcaChips.map((chip) => chip.text)).toEqual(['id = s1, s2, s3 or 2 more']);
    const boxChips = filterChips([{ component_id: 'e', value: [1, 2, 3, 4] }], [flat]);
    expect(boxChips.map((chip) => chip.text)).toEqual(['a 1–2, b 3–4']);
  });
});

describe('a brush over an embedding of given coordinates', () => {
  /** The chart's pixel→axes conversion and panel test, as FigureView reads them. */
  function converters(chart: echarts.ECharts) {
    return {
      fromPixel: (panel: number, pixel: [number, number]) =>
        chart.convertFromPixel({ gridIndex: panel }, pixel) as [number, number] | undefined,
      inPanel: (panel: number, pixel: [number, number]) => chart.containPixel({ gridIndex: panel }, pixel),
    };
  }

  it('is the rectangle in its coordinates, whatever points are drawn', () => {
    expect(isBoxBrush(flat)).toBe(true);
    expect(isIdBrush(flat)).toBe(false);
    expect(isIdBrush(pcaWithIds)).toBe(true);
    const data = dataOf(POINTS, false);
    const { chart, toPixel } = drawn(flat, data);
    const { fromPixel, inPanel } = converters(chart);
    const box = brushedBox(flat, around(toPixel, 0, [1, 1], [5, 5]), fromPixel, inPanel);
    // The rectangle around (1, 1) and (5, 5), two pixels wider on each side.
    expect(box).toHaveLength(4);
    const [xLow, xHigh, yLow, yHigh] = box as number[];
    expect(xLow).toBeLessThan(1);
    expect(xLow).toBeGreaterThan(0.5);
    expect(xHigh).toBeGreaterThan(5);
    expect(xHigh).toBeLessThan(5.5);
    expect(yLow).toBeLessThan(1);
    expect(yHigh).toBeGreaterThan(5);
    expect(brushedBox(flat, [], fromPixel, inPanel)).toBeNull();
    chart.dispose();
  });

  it('of a 3-D embedding leaves open the axis its panel does not show', () => {
    const data = dataOf(POINTS, true);
    const { chart, toPixel } = drawn(deep, data);
    const { fromPixel, inPanel } = converters(chart);
    // The x–z panel: x and z bounded, y open.
    const box = brushedBox(deep, around(toPixel, 1, [5, 5], [9, 10]), fromPixel, inPanel) as (number | null)[];
    expect(box).toHaveLength(6);
    expect(box[2]).toBeNull();
    expect(box[3]).toBeNull();
    expect(box[0]).toBeLessThan(5);
    expect(box[5]).toBeGreaterThan(10);
    chart.dispose();
  });
});
