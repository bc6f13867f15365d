import {
  type ChartBrushArea,
  clickedRegion,
  type DashboardFilterValue,
  type FigureComponent,
  type FigureData,
  toggleRegion,
} from '@service/common';
import type { EChartsType } from '@service/common/echarts-registry';
import type { EChartsOption } from 'echarts';

/**
 * How a reader filters with a map (docs/dashboards.md "Maps"): a click on a country of a
 * choropleth toggles its codes in the filter; a rectangle brushed over a point map is the filter
 * `[longitude_low, longitude_high, latitude_low, latitude_high]`, read from the map's pixels.
 */

/** The choropleth's next filter after a click on a country, or undefined when the country has no rows. */
export function mapClickFilter(
  data: FigureData,
  current: DashboardFilterValue | null | undefined,
  click: { name?: unknown },
): DashboardFilterValue | null | undefined {
  const codes = clickedRegion(data, click);
  return codes === undefined ? undefined : toggleRegion(current, codes);
}

/** The longitudes and latitudes of the rectangle brushed over a point map, or null when it was cleared. */
export function brushedGeoBox(instance: EChartsType, areas: readonly ChartBrushArea[] | undefined): number[] | null {
  const range = (areas?.[0] as { range?: unknown } | undefined)?.range;
  if (!Array.isArray(range) || range.length !== 2) return null;
  const [[left, right] = [], [top, bottom] = []] = range as number[][];
  const corner = (pixel: [number, number]) => instance.convertFromPixel({ geoIndex: 0 }, pixel) as number[] | undefined;
  const a = corner([Number(left), Number(bottom)]);
  const b = corner([Number(right), Number(top)]);
  if (a === undefined || b === undefined) return null;
  const [lonA, latA, lonB, latB] = [a[0], a[1], b[0], b[1]].map(Number) as [number, number, number, number];
  const box = [Math.min(lonA, lonB), Math.max(lonA, lonB), Math.min(latA, latB), Math.max(latA, latB)];
  const rounded = box.map((end) => Math.round(end * 1e4) / 1e4);
  return rounded.every((end) => Number.isFinite(end)) ? rounded : null;
}

/**
 * Where each country with rows is on a choropleth (its largest part's centre), for a test or an
 * assistive tool to click it on the canvas: the element's `data-chart-targets`.
 */
export function regionTargets(
  component: FigureComponent,
  option: EChartsOption,
  instance: EChartsType,
): { label: string; x: number; y: number }[] {
  if (component.chart !== 'choropleth') return [];
  const [series] = Array.isArray(option.series) ? option.series : [];
  const names = ((series as { data?: { name?: string }[] } | undefined)?.data ?? []).map((item) => item.name ?? '');
  return names.flatMap((label) => {
    const point = instance.convertToPixel({ seriesIndex: 0 }, label as never) as unknown;
    if (!Array.isArray(point)) return [];
    const [x, y] = point.map(Number);
    return x === undefined || y === undefined || !Number.isFinite(x) || !Number.isFinite(y)
      ? []
      : [{ label, x: Math.round(x), y: Math.round(y) }];
  });
}

/** Where a reader took a map: its zoom and centre (longitude, latitude) as ECharts keeps them. */
export interface MapView {
  zoom: number;
  center: unknown;
}

type RoamedOption = { geo?: Partial<MapView>[]; series?: ({ type?: string } & Partial<MapView>)[] };

/** The map's view (a point map's geo, a choropleth's map series), or undefined before the reader moved it. */
export function mapView(instance: EChartsType): MapView | undefined {
  const option = instance.getOption() as RoamedOption | undefined;
  const roamed = option?.geo?.[0] ?? option?.series?.find((series) => series.type === 'map');
  if (roamed?.center === undefined || roamed.center === null) return undefined;
  return { zoom: roamed.zoom ?? 1, center: roamed.center };
}

/** The option drawn at a view the reader chose (new data keeps the map where the reader took it). */
export function atMapView(option: EChartsOption, view: MapView | undefined): EChartsOption {
  if (view === undefined) return option;
  if (option.geo !== undefined) {
    const geo = Array.isArray(option.geo) ? option.geo[0] : option.geo;
    return { ...option, geo: { ...geo, ...view } } as EChartsOption;
  }
  const series = Array.isArray(option.series) ? option.series : [];
  return {
    ...option,
    series: series.map((item) => (item.type === 'map' ? { ...item, ...view } : item)),
  } as EChartsOption;
}

/** How far a map is zoomed in (1: the whole world), as ECharts keeps it after the reader's wheel or drag. */
export function mapZoom(instance: EChartsType): number {
  const option = instance.getOption() as RoamedOption | undefined;
  const zoom = option?.geo?.[0]?.zoom ?? option?.series?.find((series) => series.type === 'map')?.zoom ?? 1;
  return Math.round(zoom * 10_000) / 10_000;
}
