import type { EChartsOption } from 'echarts';
import { describe, expect, it } from 'vitest';
import {
  categoriesTurned,
  chartOption,
  type FigureData,
  fitCategories,
  fitLegend,
  LEGEND_ROW_HEIGHT,
  legendRows,
} from '../../src/index.js';
import * as fixture from './fixtures.js';

/** A scatter with one colour group per name (a legend entry each). */
function groups(names: string[]): EChartsOption {
  const data: FigureData = {
    ...fixture.scatterData,
    rows: names.map((name, i) => [i, i, name]),
    total_rows: names.length,
  };
  return chartOption({ ...fixture.scatterFigure, size: undefined }, data, { theme: 'light' });
}

const FIVE = ['Site A', 'Site B', 'Site C', 'Site D', 'Site E'];

describe('legends that wrap where there is room', () => {
  it('keeps one line when the entries fit, or when no width is known (the legend pages)', () => {
    const option = groups(FIVE);
    expect(legendRows(option, 1200)).toBe(1);
    expect(legendRows(option, undefined)).toBe(1);
    expect(fitLegend(option, 1)).toBe(option);
    expect(option.legend).toMatchObject({ type: 'scroll' });
  });

  it('wraps onto the lines a narrow chart needs and moves the plot down by them', () => {
    const option = groups(FIVE);
    // Five entries of 82 px (mark, gaps, 6 letters of 7 px) in 350 px less the padding: 4 and 1.
    expect(legendRows(option, 350)).toBe(2);
    const fitted = fitLegend(option, 2);
    expect(fitted.legend).toMatchObject({ type: 'plain' });
    const top = (option.grid as { top: number }).top;
    expect((fitted.grid as { top: number }).top).toBe(top + LEGEND_ROW_HEIGHT);
    // The option it came from is untouched (the cell keeps it for other widths).
    expect((option.grid as { top: number }).top).toBe(top);
  });

  it('pages beyond three lines rather than squeeze the plot', () => {
    const many = Array.from({ length: 12 }, (_, i) => `Sampling site number ${i + 1}`);
    expect(legendRows(groups(many), 1000)).toBe(3);
    expect(legendRows(groups(many), 390)).toBe(1);
  });

  it('moves a pie down in its box under a wrapped legend; no legend takes no line', () => {
    const pie = chartOption(fixture.pieFigure, fixture.pieData, { theme: 'light' });
    const fitted = fitLegend(pie, 3);
    expect((fitted.series as { top?: number }[])[0]?.top).toBe(2 * LEGEND_ROW_HEIGHT);
    expect(legendRows(chartOption(fixture.boxFigure, fixture.boxData, { theme: 'light' }), 300)).toBe(0);
  });
});

describe('category labels that would run together', () => {
  /** Box plots of body mass by `names` (upright labels: fewer than nine categories). */
  const boxes = (names: string[]) =>
    chartOption(
      fixture.boxFigure,
      { ...fixture.boxData, rows: names.map((name, at) => [name, ...(fixture.boxData.rows[at % 3] ?? []).slice(1)]) },
      { theme: 'light' },
    );
  const HABITATS = ['Groundwater', 'Riverwater', 'Sediment', 'Soil'];

  it('turns upright labels wider than their bands at this width, the axis name below them', () => {
    const option = boxes(HABITATS);
    // 300 px less 100 for the y axis and margins: bands of 50 px; "Groundwater" is 77 px.
    expect(categoriesTurned(option, 300)).toBe(true);
    const fitted = fitCategories(option, true) as { xAxis: Record<string, unknown> };
    expect(fitted.xAxis.axisLabel).toMatchObject({ interval: 0, rotate: 40, width: 96, overflow: 'truncate' });
    expect(fitted.xAxis.nameGap).toBe(28 + 11 * 4.5);
    expect(fitted.xAxis.data).toEqual(HABITATS);
  });

  it('keeps them upright where they fit, when no width is known, and leaves turned ones as they are', () => {
    expect(categoriesTurned(boxes(HABITATS), 1200)).toBe(false);
    expect(categoriesTurned(boxes(HABITATS), undefined)).toBe(false);
    expect(fitCategories(boxes(HABITATS), false)).toStrictEqual(boxes(HABITATS));
    // A label wraps between its words: only its longest word must fit ("Torgersen", 63 px, in 66).
    expect(categoriesTurned(boxes(['Biscoe Island', 'Dream Island', 'Torgersen']), 300)).toBe(false);
    // Nine categories are turned by the option itself.
    const many = boxes(Array.from({ length: 9 }, (_, at) => `Island ${at}`));
    expect(categoriesTurned(many, 200)).toBe(false);
  });
});
