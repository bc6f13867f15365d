import { describe, expect, it } from 'vitest';
import { assignColors, chartOption, type FigureData, PALETTES } from '../../src/index.js';
import * as fixture from './fixtures.js';

/** The colour of each named series (or pie slice) in an option, as ECharts will draw it. */
function colorsByName(option: object): Record<string, unknown> {
  const json = JSON.parse(JSON.stringify(option)) as {
    series: { name?: string; color?: string; data?: { name: string; itemStyle?: { color?: string } }[] }[];
  };
  const colors: Record<string, unknown> = {};
  for (const series of json.series) {
    if (series.data !== undefined) for (const slice of series.data) colors[slice.name] = slice.itemStyle?.color;
    else if (series.name !== undefined && series.color !== undefined) colors[series.name] = series.color;
  }
  return colors;
}

const figures = [
  { component: fixture.scatterFigure, data: fixture.scatterData },
  { component: fixture.pieFigure, data: fixture.pieData },
  { component: fixture.violinFigure, data: fixture.violinData },
  { component: fixture.barFigure, data: fixture.barData },
];
const series = PALETTES.light.series;

describe('one colour per value across a dashboard', () => {
  it('assigns positions in order of first appearance, components in order, folded rows left out', () => {
    expect([...assignColors(figures)]).toEqual([
      ['Adelie', 0],
      ['Chinstrap', 1],
      ['Gentoo', 2],
      ['(missing)', 3],
      ['female', 4],
      ['male', 5],
    ]);
    // Heatmaps and boxes tell no values apart by colour; the order of the dashboard decides.
    expect([...assignColors([{ component: fixture.heatmapFigure, data: fixture.heatmapData }])]).toEqual([]);
    expect([...assignColors([...figures].reverse())].slice(0, 2)).toEqual([
      ['female', 0],
      ['male', 1],
    ]);
  });

  it('gives a value the same colour in a scatter, a pie and a violin, before and after a filter', () => {
    const colors = assignColors(figures);
    const scatter = colorsByName(chartOption(fixture.scatterFigure, fixture.scatterData, { theme: 'light', colors }));
    const pie = colorsByName(chartOption(fixture.pieFigure, fixture.pieData, { theme: 'light', colors }));
    const violin = colorsByName(chartOption(fixture.violinFigure, fixture.violinData, { theme: 'light', colors }));
    expect(scatter).toMatchObject({ Adelie: series[0], Chinstrap: series[1], Gentoo: series[2] });
    expect(pie).toEqual({ Adelie: series[0], Gentoo: series[2], Other: PALETTES.light.other });
    expect(violin).toEqual({ Adelie: series[0], Gentoo: series[2] });

    // A filter leaves only Gentoo: it keeps its colour instead of taking the first one.
    const filtered: FigureData = { ...fixture.pieData, rows: [['Gentoo', 124, false]], total_rows: 124 };
    expect(colorsByName(chartOption(fixture.pieFigure, filtered, { theme: 'light', colors }))).toEqual({
      Gentoo: series[2],
    });
    // Without the dashboard's assignment the chart colours its own values in order (the old way).
    expect(colorsByName(chartOption(fixture.pieFigure, filtered, { theme: 'light' }))).toEqual({ Gentoo: series[0] });
  });

  it('keeps the positions in the dark theme, with its own shades', () => {
    const colors = assignColors(figures);
    const dark = colorsByName(chartOption(fixture.scatterFigure, fixture.scatterData, { theme: 'dark', colors }));
    expect(dark).toMatchObject({ Adelie: PALETTES.dark.series[0], Gentoo: PALETTES.dark.series[2] });
  });

  it('gives a value the assignment does not know the next free colours, in the chart order', () => {
    const colors = assignColors([{ component: fixture.pieFigure, data: fixture.pieData }]);
    const brought: FigureData = {
      ...fixture.pieData,
      rows: [
        ['Chinstrap', 68, false],
        ['Gentoo', 124, false],
        ['Macaroni', 2, false],
      ],
    };
    expect(colorsByName(chartOption(fixture.pieFigure, brought, { theme: 'light', colors }))).toEqual({
      Chinstrap: series[2],
      Gentoo: series[1],
      Macaroni: series[3],
    });
  });

  it('cycles through the palette beyond its last colour', () => {
    const many: FigureData = {
      ...fixture.pieData,
      rows: Array.from({ length: series.length + 2 }, (_, index) => [`v${index}`, 1, false]),
    };
    const drawn = colorsByName(
      chartOption(fixture.pieFigure, many, {
        theme: 'light',
        colors: assignColors([{ component: fixture.pieFigure, data: many }]),
      }),
    );
    expect(drawn[`v${series.length}`]).toBe(series[0]);
    expect(drawn[`v${series.length + 1}`]).toBe(series[1]);
  });
});
