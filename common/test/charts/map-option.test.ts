import * as echarts from 'echarts';
import { beforeAll, describe, expect, it } from 'vitest';
import world from 'world-atlas/countries-110m.json' with { type: 'json' };
import { registerWorldMap } from '../../src/charts/world-map.js';
import {
  chartDescription,
  chartOption,
  clickedRegion,
  type FigureComponent,
  type FigureData,
  figureComponentSchema,
  selectedRegions,
  toggleRegion,
  usesWorldMap,
} from '../../src/index.js';

const base = { type: 'figure', data_collection_id: 'sites' } as const;
const col = (name: string, type: string, column: string | null) => ({ name, type, column });

const choropleth: FigureComponent = {
  ...base,
  component_id: 'm',
  title: 'Sites',
  chart: 'choropleth',
  region: 'country',
};
const choroplethData: FigureData = {
  columns: [
    col('region', 'string', 'country'),
    col('code', 'string', null),
    col('y', 'long', null),
    col('rows', 'long', null),
    col('codes', 'array<string>', 'country'),
  ],
  rows: [
    ['Brazil', 'BRA', 1, 1, ['BR']],
    ['France', 'FRA', 3, 3, ['FRA', 'France', 'fr']],
    ['United States of America', 'USA', 2, 2, ['840', 'USA']],
  ],
  sampled: false,
  total_rows: 8,
  unmatched: { rows: 1, values: 1, examples: [{ code: 'XX', rows: 1 }], missing: 1 },
};

const points: FigureComponent = {
  ...base,
  component_id: 'p',
  title: 'Where',
  chart: 'point_map',
  latitude: 'lat',
  longitude: 'lon',
  color: 'kind',
};
const pointData: FigureData = {
  columns: [col('x', 'double', 'lon'), col('y', 'double', 'lat'), col('color', 'string', 'kind')],
  rows: [
    [2.3, 48.8, 'soil'],
    [-74, 40.7, 'water'],
    [-46.6, -23.5, 'soil'],
  ],
  sampled: true,
  total_rows: 9000,
};

interface Models {
  getModel(): { getSeries(): { getData(): { count(): number } }[] };
}

/** Draws an option with ECharts itself (server-side SVG), as the export page does after JSON. */
function drawn(component: FigureComponent, data: FigureData, theme: 'light' | 'dark' = 'light') {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 640, height: 400, locale: 'EN' });
  try {
    chart.setOption(JSON.parse(JSON.stringify(chartOption(component, data, { theme }))));
    const counts = (chart as unknown as Models)
      .getModel()
      .getSeries()
      .map((series) => series.getData().count());
    return { svg: chart.renderToSVGString(), counts };
  } finally {
    chart.dispose();
  }
}

describe('map options', () => {
  beforeAll(() => registerWorldMap(world));

  it('colours the countries of a choropleth by their value, with every country of the map drawn', () => {
    const option = chartOption(choropleth, choroplethData, { theme: 'light' });
    expect(usesWorldMap(option)).toBe(true);
    const [series] = option.series as { type: string; map: string; data: { name: string; value: number }[] }[];
    expect(series).toMatchObject({ type: 'map', map: 'world', roam: true });
    expect(series?.data).toEqual([
      { name: 'Brazil', value: 1 },
      { name: 'France', value: 3 },
      { name: 'United States of America', value: 2 },
    ]);
    expect(option.visualMap).toMatchObject({ min: 1, max: 3 });
    const { svg, counts } = drawn(choropleth, choroplethData, 'dark');
    // The map series holds every country of the map (177), three of them with values.
    expect(counts).toEqual([177]);
    expect(svg).toContain('1 row with codes not on the map (XX)');
    expect(chartDescription(choropleth, choroplethData)).toBe(
      'Sites. World map of count by country: 3 countries coloured. 1 row with codes not on the map (XX).',
    );
  });

  it('places the points on the map, grouped by colour, and says they are sampled', () => {
    const option = chartOption(points, pointData, { theme: 'light' });
    expect(usesWorldMap(option)).toBe(true);
    // The reader zooms and moves it (the wheel, a drag once "Move" is chosen: FigureView).
    expect(option.geo).toMatchObject({ map: 'world', roam: true, scaleLimit: { min: 1, max: 16 } });
    expect(option.brush).toMatchObject({ geoIndex: 0, brushType: 'rect' });
    expect(option.xAxis).toBeUndefined();
    const series = option.series as { coordinateSystem: string; encode: { lng: string; lat: string } }[];
    expect(series.map((item) => item.coordinateSystem)).toEqual(['geo', 'geo']);
    expect(series[0]?.encode).toMatchObject({ lng: 'x', lat: 'y' });
    const { svg, counts } = drawn(points, pointData);
    expect(counts).toEqual([2, 1]);
    expect(svg).toContain('sampled: 3 of 9,000 points');
    expect(chartDescription(points, pointData)).toContain('World map of 3 points at lat and lon, coloured by kind');
  });

  it('draws a density grid as a heatmap over the countries, and says what is off the map', () => {
    const density: FigureData = {
      columns: [col('x', 'double', 'lon'), col('y', 'double', 'lat'), col('n', 'long', null)],
      rows: [
        [-72.5, 42.5, 50],
        [2.5, 47.5, 100],
      ],
      sampled: false,
      total_rows: 152,
      density: { cell: 5, points: 150 },
      off_map: { rows: 1, examples: [{ latitude: 95, longitude: 10, rows: 1 }], missing: 1 },
    };
    const option = chartOption(points, density, { theme: 'light' });
    expect(usesWorldMap(option)).toBe(true);
    expect(option.geo).toMatchObject({ map: 'world', roam: true });
    expect(option.brush).toMatchObject({ geoIndex: 0, brushType: 'rect' });
    expect(option.series).toEqual([
      expect.objectContaining({
        type: 'heatmap',
        coordinateSystem: 'geo',
        data: [
          [-72.5, 42.5, 50],
          [2.5, 47.5, 100],
        ],
      }),
    ]);
    expect(option.visualMap).toMatchObject({ min: 50, max: 100, seriesIndex: 0 });
    expect(chartDescription(points, density)).toBe(
      'Where. World map of 150 points at lat and lon, counted in 2 cells of 5°. ' +
        'Density: 150 points in 2 cells of 5° · 1 row with coordinates off the map (95, 10).',
    );
    // Points under the budget say what they left off the map too.
    const offMap = { ...pointData, sampled: false, off_map: density.off_map };
    expect(chartDescription(points, offMap)).toContain('1 row with coordinates off the map (95, 10)');
  });

  it('turns a click on a country into its codes, toggled, and shows the selected countries', () => {
    expect(clickedRegion(choroplethData, { name: 'France' })).toEqual(['FRA', 'France', 'fr']);
    expect(clickedRegion(choroplethData, { name: 'Chad' })).toBeUndefined();
    const france = toggleRegion(null, ['FRA', 'France', 'fr']);
    expect(france).toEqual(['FRA', 'France', 'fr']);
    const both = toggleRegion(france, ['840', 'USA']);
    expect(selectedRegions(choroplethData, both)).toEqual(['France', 'United States of America']);
    expect(toggleRegion(toggleRegion(both, ['FRA', 'France', 'fr']), ['840', 'USA'])).toBeNull();
  });

  it('checks the fields each map needs', () => {
    expect(figureComponentSchema.safeParse(choropleth).success).toBe(true);
    const noRegion = figureComponentSchema.safeParse({ ...choropleth, region: undefined });
    expect(noRegion.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['region']);
    const misplaced = figureComponentSchema.safeParse({ ...points, region: 'country', latitude: undefined });
    expect(misplaced.error?.issues.map((issue) => issue.path.join('.')).sort()).toEqual(['latitude', 'region']);
  });
});
