import type {
  EChartsOption,
  GeoComponentOption,
  HeatmapSeriesOption,
  MapSeriesOption,
  ScatterSeriesOption,
} from 'echarts';
import type { FigureComponent } from '../dashboard-components.js';
import type { DashboardFilterScalar, DashboardFilterValue, FigureData } from '../dashboard-data.js';
import type { MapDensity } from '../figure-fields/maps.js';
import { aggregateLabel, type ChartBody, type ChartInput, plural } from './body.js';
import { scatter } from './cartesian.js';
import { colorScale } from './color-scale.js';
import { FigureColumns } from './columns.js';
import { WORLD_MAP } from './map-name.js';

export { WORLD_MAP };

/**
 * Maps (docs/dashboards.md "Maps"; server: analytics/components/maps.ts): a choropleth of the
 * world's countries, coloured by the aggregate of each, and points placed by latitude and
 * longitude. Both draw the countries of the map registered as `WORLD_MAP` (world-map.ts, from
 * the `world-atlas` package), which the web app and the export page register the same way.
 * Both zoom (the wheel) and move (a drag; on a point map, whose drag brushes, once the reader
 * says so: FigureView) within `ROAM`'s limits.
 */

/** How far a map zooms in (16 times: a country fills the map) and out (the whole world, no less). */
export const ROAM = { roam: true, scaleLimit: { min: 1, max: 16 } } as const;

/** Whether an option draws the world map (then its page must register it first). */
export function usesWorldMap(option: EChartsOption): boolean {
  const list = <T>(value: T | T[] | undefined): T[] =>
    value === undefined ? [] : Array.isArray(value) ? value : [value];
  return (
    list(option.geo).some((geo) => geo?.map === WORLD_MAP) ||
    list(option.series).some((series) => series?.type === 'map' && (series as MapSeriesOption).map === WORLD_MAP)
  );
}

/** A country's row of a choropleth's answer. */
interface Region {
  name: string;
  value: number | null;
  code: string | null;
  rows: number;
  codes: DashboardFilterScalar[];
}

function regions(data: FigureData): Region[] {
  const columns = new FigureColumns(data);
  return data.rows.map((row) => {
    const codes = columns.value(row, 'codes');
    const code = columns.value(row, 'code');
    return {
      name: String(columns.value(row, 'region') ?? ''),
      value: columns.number(row, 'y'),
      code: typeof code === 'string' ? code : null,
      rows: columns.number(row, 'rows') ?? 0,
      codes: Array.isArray(codes) ? (codes as DashboardFilterScalar[]) : [],
    };
  });
}

/** The countries coloured by their value along the palette's sequential colours; the others grey. */
export function choropleth(input: ChartInput): ChartBody {
  const { data, palette } = input;
  const valueName = aggregateLabel(input);
  const drawn = regions(data);
  const values = drawn.flatMap((region) => (region.value === null ? [] : [region.value]));
  const series: MapSeriesOption = {
    type: 'map',
    map: WORLD_MAP,
    name: valueName,
    ...ROAM,
    selectedMode: 'multiple',
    // No dot on each country with a value (ECharts' legend symbol): the colour says it.
    showLegendSymbol: false,
    label: { show: false },
    itemStyle: { areaColor: palette.splitLine, borderColor: palette.axisLine, borderWidth: 0.5 },
    emphasis: { label: { show: false }, itemStyle: { areaColor: palette.series[1] } },
    select: { label: { show: false }, itemStyle: { areaColor: palette.series[1] } },
    data: drawn.map((region) => ({ name: region.name, value: region.value ?? '-' })),
  };
  return {
    dataset: [],
    series: [],
    mapAt: (top) => ({ series: [{ ...series, top, bottom: 36 }] }),
    legend: false,
    trigger: 'item',
    visualMap: colorScale(palette, values, { seriesIndex: 0, calculable: false }),
    zoom: false,
    description: `World map of ${valueName} by ${input.columns.label('region')}: ${plural(drawn.length, 'country', 'countries')} coloured.`,
  };
}

/** The world's countries under a point map's points or density, grey, not clickable. */
function worldGeo(input: ChartInput, top: number, bottom: number): GeoComponentOption {
  const { palette } = input;
  return {
    map: WORLD_MAP,
    ...ROAM,
    silent: true,
    top,
    bottom,
    label: { show: false },
    itemStyle: { areaColor: palette.splitLine, borderColor: palette.axisLine, borderWidth: 0.5 },
  };
}

/**
 * A point per row on the world's countries; beyond the point budget the server counted the rows
 * per cell of a grid instead (`density`), drawn as a heatmap. A rectangle brushed filters by
 * longitude and latitude.
 */
export function pointMap(input: ChartInput): ChartBody {
  if (input.data.density !== undefined) return densityMap(input, input.data.density);
  const { columns } = input;
  const body = scatter(input);
  const tooltip = ['y', 'x', 'size'].filter((role) => columns.has(role));
  const series = body.series.map(
    (item): ScatterSeriesOption => ({
      ...(item as ScatterSeriesOption),
      coordinateSystem: 'geo',
      geoIndex: 0,
      encode: { lng: 'x', lat: 'y', tooltip },
      symbolSize: 5,
    }),
  );
  return {
    ...body,
    series: [],
    x: undefined,
    y: undefined,
    mapAt: (top) => ({ geo: worldGeo(input, top, 24), series }),
    zoom: false,
    brush: 'geo',
    description: `World map of ${plural(input.data.rows.length, 'point')} at ${columns.label('y')} and ${columns.label('x')}${columns.has('color') ? `, coloured by ${columns.label('color')}` : ''}.`,
  };
}

/** A point map's density: each cell's count (`n`) at its centre, blurred into a heatmap over the countries. */
function densityMap(input: ChartInput, density: MapDensity): ChartBody {
  const { data, palette, columns } = input;
  const cells = data.rows.map((row) => [columns.number(row, 'x'), columns.number(row, 'y'), columns.number(row, 'n')]);
  const counts = cells.flatMap(([, , n]) => (n === null || n === undefined ? [] : [n]));
  const series: HeatmapSeriesOption = {
    type: 'heatmap',
    coordinateSystem: 'geo',
    geoIndex: 0,
    name: 'points',
    data: cells as number[][],
    pointSize: 6,
    blurSize: 8,
  };
  return {
    dataset: [],
    series: [],
    mapAt: (top) => ({ geo: worldGeo(input, top, 36), series: [series] }),
    legend: false,
    trigger: 'item',
    visualMap: colorScale(palette, counts, { seriesIndex: 0, calculable: false }),
    zoom: false,
    brush: 'geo',
    description: `World map of ${plural(density.points, 'point')} at ${columns.label('y')} and ${columns.label('x')}, counted in ${plural(cells.length, 'cell')} of ${density.cell}°.`,
  };
}

/** The line under a map's title: how much of the table it shows, and what it could not place. */
export function mapSubtitle(component: FigureComponent, data: FigureData): string | undefined {
  if (component.chart === 'point_map') {
    const notes: string[] = [];
    if (data.density !== undefined) {
      notes.push(
        `density: ${plural(data.density.points, 'point')} in ${plural(data.rows.length, 'cell')} of ${data.density.cell}°`,
      );
    } else if (data.sampled) {
      notes.push(`sampled: ${data.rows.length.toLocaleString('en-US')} of ${plural(data.total_rows, 'point')}`);
    }
    const off = data.off_map;
    if (off !== undefined && off.rows > 0) {
      const examples = off.examples.slice(0, 2).map((example) => `${example.latitude}, ${example.longitude}`);
      const more = off.examples.length > examples.length ? '; …' : '';
      notes.push(`${plural(off.rows, 'row')} with coordinates off the map (${examples.join('; ')}${more})`);
    }
    return notes.length === 0 ? undefined : notes.join(' · ');
  }
  const unmatched = data.unmatched;
  if (unmatched === undefined || unmatched.rows === 0) return undefined;
  const examples = unmatched.examples.map((example) => String(example.code)).slice(0, 3);
  return `${plural(unmatched.rows, 'row')} with codes not on the map (${examples.join(', ')}${unmatched.values > examples.length ? ', …' : ''})`;
}

/** The codes of the country clicked on a choropleth, or undefined when it has no rows. */
export function clickedRegion(data: FigureData, click: { name?: unknown }): DashboardFilterScalar[] | undefined {
  const region = regions(data).find((item) => item.name === click.name);
  return region === undefined || region.codes.length === 0 ? undefined : region.codes;
}

/**
 * A choropleth's filter after a click on a country: its codes added, or taken out when they were
 * all selected; null when none is left.
 */
export function toggleRegion(
  current: DashboardFilterValue | null | undefined,
  codes: readonly DashboardFilterScalar[],
): DashboardFilterValue | null {
  const selected = Array.isArray(current) ? current : [];
  const all = codes.every((code) => selected.includes(code));
  const next = all
    ? selected.filter((code) => !codes.includes(code as DashboardFilterScalar))
    : [...new Set([...selected, ...codes])];
  return next.length === 0 ? null : next;
}

/** The names of the countries a choropleth's filter selects (every one whose codes it lists). */
export function selectedRegions(data: FigureData, value: DashboardFilterValue | null | undefined): string[] {
  if (!Array.isArray(value)) return [];
  return regions(data)
    .filter((region) => region.codes.length > 0 && region.codes.every((code) => value.includes(code)))
    .map((region) => region.name);
}
