import * as echarts from 'echarts';
import { describe, expect, it } from 'vitest';
import { chartOption, type FigureComponent, type FigureData } from '../../src/index.js';
import * as fixture from './fixtures.js';

interface SeriesModels {
  getModel(): { getSeries(): { getData(): { count(): number } }[] };
}

/** Draws an option with ECharts itself (server-side SVG), as an export's page would after JSON. */
function drawn(component: FigureComponent, data: FigureData, theme: 'light' | 'dark' = 'light') {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 480, height: 320, locale: 'EN' });
  try {
    chart.setOption(JSON.parse(JSON.stringify(chartOption(component, data, { theme }))));
    // The data items each series holds once ECharts has read the option (its model is not public API).
    const model = (chart as unknown as SeriesModels).getModel();
    const counts = model.getSeries().map((series) => series.getData().count());
    return { svg: chart.renderToSVGString(), counts };
  } finally {
    chart.dispose();
  }
}

describe('figure options drawn by ECharts', () => {
  it('draws every chart type with its data items', () => {
    expect(drawn(fixture.scatterFigure, fixture.scatterData).counts).toEqual([2, 1, 1, 1]);
    expect(drawn(fixture.lineFigure, fixture.lineData).counts).toEqual([3]);
    expect(drawn({ ...fixture.lineFigure, chart: 'area' }, fixture.lineData).counts).toEqual([3]);
    expect(drawn(fixture.barFigure, fixture.barData).counts).toEqual([3, 3, 3]);
    expect(drawn(fixture.histogramFigure, fixture.histogramData).counts).toEqual([3]);
    expect(drawn(fixture.boxFigure, fixture.boxData).counts).toEqual([3, 2]);
    expect(drawn(fixture.violinFigure, fixture.violinData).counts).toEqual([3, 3, 3, 3]);
    expect(drawn(fixture.heatmapFigure, fixture.heatmapData).counts).toEqual([4]);
    expect(drawn(fixture.pieFigure, fixture.pieData, 'dark').counts).toEqual([3]);
  });

  it('writes the title, the sampled line, axis names and the "Other" category', () => {
    const scatter = drawn(fixture.scatterFigure, fixture.scatterData).svg;
    expect(scatter).toContain('sampled: 5 of 12,000 points');
    expect(scatter).toContain('bill_length_mm');
    expect(drawn(fixture.barFigure, fixture.barData).svg).toContain('>Other<');
    expect(drawn(fixture.pieFigure, fixture.pieData).svg).toContain('>Other<');
  });
});
