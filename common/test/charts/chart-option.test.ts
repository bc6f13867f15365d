import { describe, expect, it } from 'vitest';
import {
  brushedRange,
  chartDescription,
  chartOption,
  clickedCategory,
  type FigureComponent,
  type FigureData,
  selectedIndices,
  toggleCategory,
} from '../../src/index.js';
import * as fixture from './fixtures.js';

/** Follows keys and indexes into the option's JSON (a wrong path gives undefined, failing its expectation). */
function path(value: unknown, ...keys: (string | number)[]): unknown {
  let at = value;
  for (const key of keys)
    at = at !== null && typeof at === 'object' ? (at as Record<string | number, unknown>)[key] : undefined;
  return at;
}
/** The list at a path (empty when there is none). */
function list(value: unknown, ...keys: (string | number)[]): unknown[] {
  const at = path(value, ...keys);
  return Array.isArray(at) ? at : [];
}
/** The option as plain data (what the export serves), for reading its parts. */
const build = (component: FigureComponent, data: FigureData, theme: 'light' | 'dark' = 'light'): unknown => {
  const option = chartOption(component, data, { theme });
  // No functions, undefined or Dates: the option survives JSON unchanged.
  const json: unknown = JSON.parse(JSON.stringify(option));
  expect(json).toStrictEqual(option);
  return json;
};
const seriesTypes = (option: unknown) => list(option, 'series').map((series) => path(series, 'type'));

describe('ECharts options of figures', () => {
  it('pie: every slice labelled outside on a leader line, long names wrapped, none hidden', () => {
    const option = build(fixture.pieFigure, fixture.pieData);
    expect(path(option, 'series', 0, 'label')).toMatchObject({ position: 'outside', overflow: 'break', width: 110 });
    expect(path(option, 'series', 0, 'labelLine')).toMatchObject({ length: 10, length2: 8 });
    expect(path(option, 'series', 0, 'labelLayout')).toEqual({ hideOverlap: false });
  });

  it('category axes show every label: a few wrap, many are turned; values keep their spacing', () => {
    const few = build(fixture.barFigure, fixture.barData);
    expect(path(few, 'xAxis', 'axisLabel')).toMatchObject({ interval: 0, width: 96, overflow: 'break' });
    expect(path(few, 'xAxis', 'axisLabel', 'rotate')).toBeUndefined();
    expect(path(few, 'xAxis', 'nameGap')).toBe(28);
    expect(path(few, 'yAxis', 'axisLabel')).toMatchObject({ hideOverlap: true });
    expect(path(few, 'yAxis', 'minInterval')).toBe(1);
    const islands = Array.from({ length: 12 }, (_, i) => `Island number ${i}`);
    const many = build(fixture.barFigure, {
      ...fixture.barData,
      rows: islands.map((island, i) => [island, 'female', i + 1, false]),
    });
    expect(path(many, 'xAxis', 'data')).toEqual(islands);
    expect(path(many, 'xAxis', 'axisLabel')).toMatchObject({
      interval: 0,
      rotate: 40,
      width: 96,
      overflow: 'truncate',
    });
    // The axis name below the turned labels: 16 characters (the most that fit 96 px) at 4.5 px.
    expect(path(many, 'xAxis', 'nameGap')).toBe(28 + 16 * 4.5);
    // Categories up the side each keep to their row's one line: cut, not wrapped into the next.
    const heatmap = build(fixture.heatmapFigure, fixture.heatmapData);
    expect(path(heatmap, 'yAxis', 'axisLabel')).toMatchObject({ interval: 0, width: 96, overflow: 'truncate' });
    expect(path(heatmap, 'xAxis', 'axisLabel')).toMatchObject({ overflow: 'break' });
  });

  it('scatter: a dataset and a series per color group, value axes named by their columns, zoom and brush on x', () => {
    const option = build(fixture.scatterFigure, fixture.scatterData);
    expect(seriesTypes(option)).toEqual(['scatter', 'scatter', 'scatter', 'scatter']);
    expect(list(option, 'series').map((series) => path(series, 'name'))).toEqual([
      'Adelie',
      'Chinstrap',
      'Gentoo',
      '(missing)',
    ]);
    expect(list(option, 'dataset').map((dataset) => path(dataset, 'source'))).toEqual([
      [
        [39.1, 18.7, 'Adelie'],
        [40.3, 18, 'Adelie'],
      ],
      [[46.5, 17.9, 'Chinstrap']],
      [[50, 15.2, 'Gentoo']],
      [[null, null, null]],
    ]);
    expect(path(option, 'series', 1)).toMatchObject({ datasetIndex: 1, encode: { x: 'x', y: 'y' } });
    expect(path(option, 'xAxis')).toMatchObject({ type: 'value', name: 'bill_length_mm' });
    expect(path(option, 'yAxis')).toMatchObject({ type: 'value', name: 'bill_depth_mm' });
    expect(path(option, 'legend', 'show')).toBe(true);
    expect(path(option, 'title')).toMatchObject({ text: 'Bills', subtext: 'sampled: 5 of 12,000 points' });
    expect(list(option, 'dataZoom').map((zoom) => path(zoom, 'type'))).toEqual(['inside', 'slider']);
    expect(path(option, 'brush')).toMatchObject({ xAxisIndex: 0, brushType: 'lineX', brushMode: 'single' });
    expect(path(option, 'backgroundColor')).toBe('transparent');
    expect(path(option, 'aria')).toEqual({
      enabled: true,
      label: {
        description:
          'Bills. Scatter plot of bill_depth_mm against bill_length_mm, 5 points in 4 groups by species (Adelie, Chinstrap, Gentoo, (missing)). Sampled: 5 of 12,000 points.',
      },
    });
  });

  it('scatter: log axes, and size through a hidden visual map over the size column', () => {
    const data: FigureData = {
      columns: [...fixture.scatterData.columns.slice(0, 2), { name: 'size', type: 'long', column: 'flipper' }],
      rows: [
        [1, 2, 180],
        [10, 20, 230],
      ],
      sampled: false,
      total_rows: 2,
    };
    const option = build(
      { ...fixture.scatterFigure, color: undefined, size: 'flipper', log_x: true, log_y: true },
      data,
    );
    expect(path(option, 'xAxis', 'type')).toBe('log');
    expect(path(option, 'yAxis', 'type')).toBe('log');
    expect(path(option, 'title', 'subtext')).toBeUndefined();
    expect(path(option, 'legend', 'show')).toBe(false);
    expect(path(option, 'series')).toHaveLength(1);
    expect(path(option, 'visualMap')).toMatchObject({
      show: false,
      dimension: 2,
      min: 180,
      max: 230,
      inRange: { symbolSize: [4, 22] },
    });
  });

  it('line: a time axis for dates ticking whole days, the aggregate rounded to 6 digits and named', () => {
    const option = build(fixture.lineFigure, fixture.lineData);
    expect(seriesTypes(option)).toEqual(['line']);
    expect(path(option, 'series', 0, 'name')).toBe('mean body_mass_g');
    expect(path(option, 'series', 0, 'areaStyle')).toBeUndefined();
    expect(path(option, 'xAxis')).toMatchObject({ type: 'time', name: 'observed_on', minInterval: 86_400_000 });
    expect(path(option, 'yAxis')).toMatchObject({ type: 'value', name: 'mean body_mass_g' });
    expect(path(option, 'dataset', 0, 'source')).toEqual([
      ['2007-11-10', 3750.33],
      ['2007-11-11', 3800],
      ['2007-11-12', 4201.75],
    ]);
    expect(path(option, 'tooltip', 'trigger')).toBe('axis');
    expect(path(option, 'brush', 'brushType')).toBe('lineX');
  });

  it('area: filled lines from zero; a text x is a category axis in the answer’s order', () => {
    const data: FigureData = {
      columns: [{ name: 'x', type: 'string', column: 'month' }, fixture.lineData.columns[1]!],
      rows: [
        ['Jan', 1],
        ['Feb', 2],
        [null, 3],
      ],
      sampled: false,
      total_rows: 6,
    };
    const option = build({ ...fixture.lineFigure, chart: 'area' }, data);
    expect(path(option, 'series', 0)).toMatchObject({ type: 'line', areaStyle: { opacity: 0.25 } });
    expect(path(option, 'xAxis')).toMatchObject({ type: 'category', data: ['Jan', 'Feb', '(missing)'] });
    expect(path(option, 'yAxis', 'scale')).toBe(false);
    expect(path(option, 'dataset', 0, 'source')).toEqual([
      ['Jan', 1],
      ['Feb', 2],
      ['(missing)', 3],
    ]);
  });

  it('line: a few whole-number x values (years) are categories written without commas; a brush reads them back', () => {
    const data: FigureData = {
      columns: [{ name: 'x', type: 'long', column: 'year' }, fixture.lineData.columns[1]!],
      rows: [
        [2007, 1],
        [2008, 2],
        [2009, 3],
      ],
      sampled: false,
      total_rows: 9,
    };
    const option = build(fixture.lineFigure, data);
    expect(path(option, 'xAxis')).toMatchObject({ type: 'category', data: ['2007', '2008', '2009'] });
    expect(path(option, 'dataset', 0, 'dimensions', 0)).toMatchObject({ name: 'x', type: 'ordinal' });
    expect(brushedRange(fixture.lineFigure, data, [{ coordRange: [1, 2] }])).toEqual([2008, 2009]);
    const scatter = build({ ...fixture.scatterFigure, color: undefined }, { ...data, total_rows: 3 });
    expect(path(scatter, 'xAxis')).toMatchObject({ type: 'value', minInterval: 1 });
  });

  it('line: a numeric x (whole numbers with gaps, or not years) is a value axis, spaced as its numbers', () => {
    const lengths: FigureData = {
      columns: [{ name: 'x', type: 'long', column: 'flipper_length_mm' }, fixture.lineData.columns[1]!],
      rows: [
        [172, 1],
        [180, 2],
        [181, 4],
        [195, 3],
      ],
      sampled: false,
      total_rows: 10,
    };
    const option = build(fixture.lineFigure, lengths);
    expect(path(option, 'xAxis')).toMatchObject({ type: 'value', minInterval: 1 });
    expect(path(option, 'xAxis', 'data')).toBeUndefined();
    expect(path(option, 'dataset', 0, 'dimensions', 0)).toMatchObject({ name: 'x', type: 'float' });
    expect(path(option, 'dataset', 0, 'source', 3)).toEqual([195, 3]);
    const small = {
      ...lengths,
      rows: [
        [1, 1],
        [2, 2],
        [3, 3],
      ],
    };
    expect(path(build(fixture.lineFigure, small), 'xAxis', 'type')).toBe('value');
    const decimals = { ...lengths, columns: [{ name: 'x', type: 'double', column: 'bill' }, lengths.columns[1]!] };
    expect(path(build(fixture.lineFigure, decimals), 'xAxis', 'type')).toBe('value');
  });

  it('bar: a row per category with the folded ones as "Other", a stacked series per color', () => {
    const option = build(fixture.barFigure, fixture.barData);
    expect(seriesTypes(option)).toEqual(['bar', 'bar', 'bar']);
    expect(
      list(option, 'series').map((series) => [
        path(series, 'name'),
        path(series, 'stack'),
        path(series, 'encode', 'y'),
      ]),
    ).toEqual([
      ['female', 'total', 'g0'],
      ['male', 'total', 'g1'],
      ['(missing)', 'total', 'g2'],
    ]);
    expect(path(option, 'xAxis')).toMatchObject({
      type: 'category',
      name: 'island',
      data: ['Biscoe', 'Dream', 'Other'],
    });
    expect(path(option, 'yAxis')).toMatchObject({ type: 'value', name: 'count', scale: false });
    expect(path(option, 'dataset', 0, 'source')).toEqual([
      ['Biscoe', 80, 83, null],
      ['Dream', 61, null, 1],
      ['Other', 28, 23, null],
    ]);
    expect(path(option, 'dataZoom')).toBeUndefined();
    expect(path(option, 'brush')).toBeUndefined();
  });

  it('histogram: a bar per bin at its middle on a value axis spanning the bins, log counts', () => {
    const option = build(fixture.histogramFigure, fixture.histogramData);
    expect(seriesTypes(option)).toEqual(['bar']);
    expect(path(option, 'xAxis')).toMatchObject({ type: 'value', name: 'body_mass_g', min: 2700, max: 6300 });
    expect(path(option, 'yAxis')).toMatchObject({ type: 'log', name: 'count' });
    expect(path(option, 'dataset', 0, 'source')).toEqual([
      [3300, 2700, 3900, 150],
      [4500, 3900, 5100, 120],
      [5700, 5100, 6300, 72],
    ]);
    expect(path(option, 'series', 0, 'encode')).toEqual({ x: 'x', y: 'g0', tooltip: ['x_low', 'x_high', 'g0'] });
    expect(path(option, 'title', 'text')).toBe('');
    expect(path(option, 'brush', 'xAxisIndex')).toBe(0);
    expect(path(option, 'dataZoom')).toHaveLength(2);
  });

  it('box: a boxplot from the whiskers and quartiles, and the extremes beyond the whiskers as points', () => {
    const option = build(fixture.boxFigure, fixture.boxData);
    expect(seriesTypes(option)).toEqual(['boxplot', 'scatter']);
    expect(path(option, 'series', 0, 'encode', 'y')).toEqual(['whisker_low', 'q1', 'median', 'q3', 'whisker_high']);
    expect(path(option, 'dataset', 0, 'source', 0)).toEqual([
      'Adelie',
      2850,
      3350,
      3700,
      4000,
      4775,
      151,
      3700.66,
      2850,
      4775,
    ]);
    expect(path(option, 'series', 1, 'data')).toEqual([
      ['Chinstrap', 2700],
      ['Chinstrap', 4800],
    ]);
    expect(path(option, 'xAxis')).toMatchObject({ type: 'category', data: ['Adelie', 'Gentoo', 'Chinstrap'] });
    expect(path(option, 'yAxis')).toMatchObject({ type: 'value', name: 'body_mass_g' });
    expect(path(option, 'title', 'subtext')).toBeUndefined();
    // Quartiles from a sample: the boxes are all drawn, their statistics say where they come from.
    const sampled = build(fixture.boxFigure, { ...fixture.boxData, sampled: true, total_rows: 12_000_000 });
    expect(path(sampled, 'title', 'subtext')).toBe("quartiles from a sample of each box's values, of 12,000,000 rows");
  });

  it('violin: two stacked lines per group over hidden axes, ~6 round ticks on a value y over the bins', () => {
    const option = build(fixture.violinFigure, fixture.violinData);
    expect(seriesTypes(option)).toEqual(['line', 'line', 'line', 'line']);
    expect(list(option, 'xAxis').map((axis) => path(axis, 'type'))).toEqual(['category', 'value']);
    expect(path(option, 'xAxis', 0, 'data')).toEqual(['Adelie', 'Gentoo']);
    expect(path(option, 'xAxis', 1)).toMatchObject({ show: false, min: -0.5, max: 1.5 });
    expect(path(option, 'yAxis', 0)).toMatchObject({
      type: 'category',
      data: ['2,700', '3,900', '5,100'],
      show: false,
    });
    // The bins span 2,700 to 6,300: the visible axis over that span ticks round values only.
    expect(path(option, 'yAxis', 1)).toMatchObject({
      type: 'value',
      name: 'body_mass_g',
      position: 'left',
      min: 2700,
      max: 6300,
      splitNumber: 6,
      axisLabel: { showMinLabel: false, showMaxLabel: false },
    });
    expect(
      list(option, 'series').map((series) => [
        path(series, 'stack'),
        path(series, 'xAxisIndex'),
        path(series, 'areaStyle') !== undefined,
      ]),
    ).toEqual([
      ['violin0', 1, false],
      ['violin0', 1, true],
      ['violin1', 1, false],
      ['violin1', 1, true],
    ]);
    // The widest bin spans 0.8 of a category; others in proportion to their count.
    expect(path(option, 'dataset', 0, 'source')).toEqual([
      ['2,700', -0.4, 0.8, 100, 2700, 3900],
      ['3,900', -0.204, 0.408, 51, 3900, 5100],
      ['5,100', 0, 0, 0, 5100, 6300],
    ]);
    expect(path(option, 'dataset', 1, 'source', 0)).toEqual(['2,700', 1, 0, 0, 2700, 3900]);
  });

  it('heatmap: two category axes in numeric order and a visual map over the values', () => {
    const option = build(fixture.heatmapFigure, fixture.heatmapData, 'dark');
    expect(seriesTypes(option)).toEqual(['heatmap']);
    expect(path(option, 'xAxis')).toMatchObject({ type: 'category', data: ['Dream', 'Biscoe'] });
    expect(path(option, 'yAxis')).toMatchObject({ type: 'category', data: ['180', '200'] });
    expect(path(option, 'visualMap')).toMatchObject({ type: 'continuous', dimension: 2, min: 3300, max: 4700.25 });
    expect(path(option, 'dataset', 0, 'source')).toContainEqual(['Biscoe', '200', 4700.25]);
    expect(path(option, 'series', 0, 'name')).toBe('mean body_mass_g');
  });

  it('heatmap: binned time and number axes are labelled by their bins’ low edges, shortly', () => {
    const data: FigureData = {
      columns: [
        { name: 'x', type: 'timestamp', column: 'observed_at' },
        { name: 'y', type: 'double', column: 'bill_length_mm' },
        { name: 'value', type: 'long', column: null },
      ],
      rows: [
        ['2007-11-10T12:30:00.000Z', 32.1 + 1 / 3, 2],
        ['2007-11-10T00:00:00.000Z', 32.1, 1],
      ],
      sampled: false,
      total_rows: 3,
    };
    const option = chartOption({ ...fixture.heatmapFigure, agg: 'count', color: undefined }, data, { theme: 'light' });
    expect(path(option, 'xAxis', 'data')).toEqual(['2007-11-10', '2007-11-10 12:30']);
    // Bins a third apart: two decimals tell them apart.
    expect(path(option, 'yAxis', 'data')).toEqual(['32.10', '32.43']);
    expect(list(option, 'dataset', 0, 'source')).toEqual([
      ['2007-11-10 12:30', '32.43', 2],
      ['2007-11-10', '32.10', 1],
    ]);
  });

  it('pie: a slice per color, the folded ones as a grey "Other", a legend of the slices', () => {
    const option = build(fixture.pieFigure, fixture.pieData);
    expect(seriesTypes(option)).toEqual(['pie']);
    expect(path(option, 'series', 0, 'data')).toEqual([
      { name: 'Adelie', value: 152, itemStyle: { color: '#228be6' } },
      { name: 'Gentoo', value: 124, itemStyle: { color: '#fd7e14' } },
      { name: 'Other', value: 68, itemStyle: { color: '#adb5bd' } },
    ]);
    expect(path(option, 'legend', 'show')).toBe(true);
    expect(path(option, 'xAxis')).toBeUndefined();
    expect(chartDescription(fixture.pieFigure, fixture.pieData)).toBe(
      'Species. Pie chart of count by species: 3 slices (Adelie, Gentoo, Other).',
    );
  });

  it('follows the theme: dark text and lines on a transparent background', () => {
    const light = build(fixture.barFigure, fixture.barData, 'light');
    const dark = build(fixture.barFigure, fixture.barData, 'dark');
    expect(path(light, 'textStyle', 'color')).toBe('#000000');
    expect(path(dark, 'textStyle', 'color')).toBe('#c9c9c9');
    expect(path(dark, 'xAxis', 'axisLine', 'lineStyle', 'color')).toBe('#424242');
    expect(path(dark, 'backgroundColor')).toBe('transparent');
    expect(path(dark, 'color', 0)).toBe('#4dabf7');
  });

  it('leaves the title out of the plot on request, but not out of its description', () => {
    const option = chartOption(fixture.pieFigure, fixture.pieData, { theme: 'light', title: false });
    expect(path(option, 'title', 'text')).toBe('');
    expect(path(option, 'aria', 'label', 'description')).toMatch(/^Species\. Pie chart/);
  });

  it('says how a line was thinned: binned along a numeric or time x, cut to the first values of a text x', () => {
    const binned = build(fixture.lineFigure, { ...fixture.lineData, sampled: true, total_rows: 20000 });
    expect(path(binned, 'title', 'subtext')).toBe('binned: 3 points from 20,000 rows');
    const text: FigureData = {
      ...fixture.lineData,
      columns: [{ name: 'x', type: 'string', column: 'name' }, fixture.lineData.columns[1]!],
      sampled: true,
      total_rows: 9000,
    };
    expect(path(build(fixture.lineFigure, text), 'title', 'subtext')).toBe(
      'the first 3 values of name, from 9,000 rows',
    );
  });

  it('says when no rows match the filters', () => {
    const option = build(fixture.barFigure, { ...fixture.barData, rows: [], total_rows: 0 });
    expect(path(option, 'title', 'subtext')).toBe('no rows match the filters');
    expect(path(option, 'dataset', 0, 'source')).toEqual([]);
  });

  it('says there was no data yet when the table did not exist (no columns)', () => {
    const option = build(fixture.barFigure, { columns: [], rows: [], sampled: false, total_rows: 0 });
    expect(path(option, 'title', 'subtext')).toBe('no data yet at this time');
  });
});

describe('cross-filter values from chart events', () => {
  it('a bar filters by its x category as the table holds it; "Other" filters nothing', () => {
    expect(clickedCategory(fixture.barFigure, fixture.barData, { seriesIndex: 1, dataIndex: 1 })).toEqual({
      value: 'Dream',
    });
    expect(clickedCategory(fixture.barFigure, fixture.barData, { seriesIndex: 0, dataIndex: 2 })).toBeUndefined();
    const numeric: FigureData = {
      ...fixture.barData,
      columns: [{ name: 'x', type: 'long', column: 'year' }, ...fixture.barData.columns.slice(1)],
      rows: [[2007, 'male', 3, false]],
    };
    expect(clickedCategory(fixture.barFigure, numeric, { dataIndex: 0 })).toEqual({ value: 2007 });
  });

  it('a pie slice filters by its color category; nulls too; "Other" nothing; other charts nothing', () => {
    expect(clickedCategory(fixture.pieFigure, fixture.pieData, { dataIndex: 1 })).toEqual({ value: 'Gentoo' });
    expect(clickedCategory(fixture.pieFigure, fixture.pieData, { dataIndex: 2 })).toBeUndefined();
    const withNull = { ...fixture.pieData, rows: [[null, 3, false]] };
    expect(clickedCategory(fixture.pieFigure, withNull, { dataIndex: 0 })).toEqual({ value: null });
    expect(clickedCategory(fixture.scatterFigure, fixture.scatterData, { dataIndex: 0 })).toBeUndefined();
  });

  it('clicking a selected category again takes it out; the last one out clears the filter', () => {
    expect(toggleCategory(undefined, 'Dream')).toEqual(['Dream']);
    expect(toggleCategory(['Dream'], 'Biscoe')).toEqual(['Dream', 'Biscoe']);
    expect(toggleCategory(['Dream', 'Biscoe'], 'Dream')).toEqual(['Biscoe']);
    expect(toggleCategory(['Dream'], 'Dream')).toBeNull();
  });

  it('the categories of a click filter are the items shown selected', () => {
    expect(selectedIndices(fixture.barFigure, fixture.barData, ['Dream', 'Torgersen'])).toEqual([1]);
    expect(selectedIndices(fixture.pieFigure, fixture.pieData, ['Gentoo', null])).toEqual([1]);
    expect(selectedIndices(fixture.pieFigure, fixture.pieData, null)).toEqual([]);
    expect(selectedIndices(fixture.histogramFigure, fixture.histogramData, [1, 2])).toEqual([]);
    const option = chartOption(fixture.pieFigure, fixture.pieData, { theme: 'light' });
    expect(path(option, 'series', 0, 'selectedMode')).toBe('multiple');
  });

  it('a log_x histogram puts each bar at the geometric middle of its bin', () => {
    const data: FigureData = {
      ...fixture.histogramData,
      rows: [
        [1, 100, 3],
        [100, 10000, 4],
      ],
    };
    const option = chartOption({ ...fixture.histogramFigure, log_x: true }, data, { theme: 'light' });
    expect(path(option, 'xAxis', 'type')).toBe('log');
    expect(list(option, 'dataset', 0, 'source').map((row) => path(row, 0))).toEqual([10, 1000]);
  });

  it('a brush gives [low, high] of x: numbers, dates, timestamps, categories; a cleared brush null', () => {
    expect(brushedRange(fixture.scatterFigure, fixture.scatterData, [{ coordRange: [45.123456789, 40] }])).toEqual([
      40, 45.1235,
    ]);
    expect(brushedRange(fixture.histogramFigure, fixture.histogramData, [{ coordRange: [3000, 4000] }])).toEqual([
      3000, 4000,
    ]);
    expect(brushedRange(fixture.scatterFigure, fixture.scatterData, [])).toBeNull();
    const day = new Date(2007, 10, 11).getTime();
    expect(brushedRange(fixture.lineFigure, fixture.lineData, [{ coordRange: [day, day + 86_400_000] }])).toEqual([
      '2007-11-11',
      '2007-11-12',
    ]);
    const stamped = {
      ...fixture.lineData,
      columns: [{ name: 'x', type: 'timestamp', column: 'at' }, fixture.lineData.columns[1]!],
    };
    expect(brushedRange(fixture.lineFigure, stamped, [{ coordRange: [0, 1000] }])).toEqual([
      '1970-01-01T00:00:00.000Z',
      '1970-01-01T00:00:01.000Z',
    ]);
    const months = {
      ...fixture.lineData,
      columns: [{ name: 'x', type: 'string', column: 'month' }, fixture.lineData.columns[1]!],
      rows: [
        ['Jan', 1],
        ['Feb', 2],
        ['Mar', 3],
      ],
    };
    expect(brushedRange({ ...fixture.lineFigure, chart: 'area' }, months, [{ coordRange: [0.2, 1.4] }])).toEqual([
      'Jan',
      'Feb',
    ]);
    expect(brushedRange(fixture.barFigure, fixture.barData, [{ coordRange: [0, 1] }])).toBeNull();
  });
});
