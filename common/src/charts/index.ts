import type { EChartsOption, SeriesOption } from 'echarts';
import type { ChartType, FigureComponent } from '../dashboard-components.js';
import type { FigureData } from '../dashboard-data.js';
import { isHierarchySetChart } from '../figure-fields/hierarchy-sets.js';
import {
  isRankedDistributionChart,
  RANGE_BRUSH_CHARTS,
  type RankedDistributionChart,
} from '../figure-fields/ranked-distributions.js';
import { type ChartBody, type ChartInput, chartInput, plural, UPDATE_MS } from './body.js';
import { bar, histogram, line, scatter } from './cartesian.js';
import { clusteredHeatmap, heatmapCellCount } from './clustered-heatmap.js';
import type { ColorAssignment } from './colors.js';
import { FigureColumns } from './columns.js';
import { box, violin } from './distribution.js';
import { embedding } from './embedding.js';
import { fieldSubtitle, ma, manhattan, qq, volcano } from './field.js';
import { coverage, coverageSubtitle } from './genome-tracks.js';
import { heatmap, pie } from './heatmap-pie.js';
import { hierarchySetSubtitle, sankey, sunburst, treemap } from './hierarchy-sets.js';
import { choropleth, mapSubtitle, pointMap } from './maps.js';
import { type ChartTheme, PALETTES } from './palette.js';
import {
  axis,
  brush,
  dataZoom,
  geoBrush,
  grid,
  type Header,
  headerHeight,
  legend,
  rectBrush,
  title,
  tooltip,
} from './parts.js';
import { divergingBar, dot, funnel, lollipop, rankedSubtitle, stackedBar } from './ranked.js';
import { oncoplot, rarefaction } from './sample-plots.js';
import { sampleSubtitle } from './sample-subtitle.js';
import { densityContour, ecdf, spreadSubtitle, strip } from './spreads.js';
import { tree, treeSubtitle } from './tree.js';
import { upset } from './upset.js';

export { heatmapCellCount, heatmapCellRows } from './clustered-heatmap.js';
export { assignColors, type ColorAssignment, colorAssignment, extendColors, type FigureAnswer } from './colors.js';
export { MISSING_LABEL, OTHER_LABEL } from './columns.js';
export {
  brushedRange,
  type ChartBrushArea,
  type ChartClick,
  clickedCategory,
  selectedIndices,
  toggleCategory,
} from './filters.js';
export { brushedInterval, describeGenomicInterval, intervalPositions } from './genome-interval.js';
export { clickedItemFilter, describeItemFilter, type ItemClick } from './hierarchy-sets.js';
export {
  categoriesTurned,
  fitCategories,
  fitLegend,
  LEGEND_ROW_HEIGHT,
  legendRows,
  MAX_LEGEND_ROWS,
} from './legend-fit.js';
export { clickedRegion, selectedRegions, toggleRegion, usesWorldMap, WORLD_MAP } from './maps.js';
export { multiqcDescription, multiqcOption, SAMPLES_IN_VIEW, sampleColor } from './multiqc.js';
export { type MultiqcCellBar, multiqcCellBars, multiqcScale } from './multiqc-scale.js';
export { type ChartPalette, type ChartTheme, PALETTES } from './palette.js';
export { cladeTips, MAX_CLADE_TIPS, toggleClade } from './tree.js';

export interface ChartOptions {
  theme: ChartTheme;
  /** Draw the figure's title above the plot (default); false where the page heads the chart with it. */
  title?: boolean;
  /** The dashboard's colour per value (`assignColors` of its unfiltered answers); else the chart's own order. */
  colors?: ColorAssignment;
}

const BUILDERS: Record<ChartType, (input: ChartInput) => ChartBody> = {
  scatter,
  line: (input) => line(input, false),
  area: (input) => line(input, true),
  bar,
  histogram,
  box,
  violin,
  heatmap,
  pie,
  volcano,
  ma,
  manhattan,
  qq,
  coverage,
  sunburst,
  treemap,
  sankey,
  upset,
  clustered_heatmap: clusteredHeatmap,
  embedding,
  rarefaction,
  oncoplot,
  tree,
  lollipop,
  diverging_bar: divergingBar,
  dot,
  stacked_bar: stackedBar,
  strip,
  ecdf,
  density_contour: densityContour,
  funnel,
  choropleth,
  point_map: pointMap,
};

const FIELD_CHARTS: ReadonlySet<ChartType> = new Set(['volcano', 'ma', 'manhattan', 'qq']);

/** The marks a figure's answer draws: its rows, or a clustered heatmap's cells (its matrix's, not rows). */
export function drawnItems(data: FigureData): number {
  return data.matrix === undefined ? data.rows.length : heatmapCellCount(data.matrix);
}

/**
 * The line under the title: a sample says how much of the table it shows; no rows say so. Box
 * plots and medians are "sampled" in their statistics, not in what is drawn: they say that.
 */
function subtitle(component: FigureComponent, data: FigureData): string | undefined {
  // No columns: the server found no table at all (before its first version, or never built).
  if (data.columns.length === 0) return 'no data yet at this time';
  if (drawnItems(data) === 0) return 'no rows match the filters';
  if (FIELD_CHARTS.has(component.chart)) return fieldSubtitle(component, data);
  if (component.chart === 'coverage') return coverageSubtitle(data);
  if (isHierarchySetChart(component.chart)) return hierarchySetSubtitle(data);
  const sampleNote = sampleSubtitle(component, data);
  if (sampleNote !== null) return sampleNote;
  if (component.chart === 'tree') return treeSubtitle(data);
  if (component.chart === 'choropleth' || component.chart === 'point_map') return mapSubtitle(component, data);
  if (RANGE_BRUSH_CHARTS.includes(component.chart as RankedDistributionChart)) return spreadSubtitle(component, data);
  if (isRankedDistributionChart(component.chart)) return rankedSubtitle(component, data);
  if (!data.sampled) return undefined;
  const shown = data.rows.length.toLocaleString('en-US');
  if (component.chart === 'line' || component.chart === 'area') {
    // The server bins a numeric or time x beyond the budget, and keeps the first values of a text x.
    const columns = new FigureColumns(data);
    return columns.axisKind('x') !== 'category'
      ? `binned: ${shown} points from ${plural(data.total_rows, 'row')}`
      : `the first ${shown} values of ${columns.label('x')}, from ${plural(data.total_rows, 'row')}`;
  }
  if (component.chart === 'box')
    return `quartiles from a sample of each box's values, of ${plural(data.total_rows, 'row')}`;
  if (component.chart !== 'scatter') return `approximate medians over ${plural(data.total_rows, 'row')}`;
  return `sampled: ${shown} of ${plural(data.total_rows, 'point')}`;
}

/**
 * The complete ECharts option of a figure with its data inlined: the web app draws it and the
 * export serves it (docs/architecture.md "Dashboards"), so it is plain JSON — no functions; tooltips and labels
 * use ECharts' template strings.
 */
export function chartOption(component: FigureComponent, data: FigureData, options: ChartOptions): EChartsOption {
  const palette = PALETTES[options.theme];
  const body = BUILDERS[component.chart](chartInput(component, data, palette, options.colors));
  const shownTitle = options.title === false ? '' : (component.title ?? '');
  const header: Header = { title: shownTitle, subtitle: subtitle(component, data), legend: body.legend };
  const option: EChartsOption = {
    backgroundColor: 'transparent',
    animationDuration: 300,
    animationDurationUpdate: UPDATE_MS,
    ...(body.still ? { animation: false } : {}),
    color: palette.series,
    textStyle: { color: palette.text },
    title: title(header, palette),
    legend: legend(header, palette),
    tooltip: tooltip(body.trigger, palette),
    aria: { enabled: true, label: { description: describe(component, data, body) } },
    dataset: body.dataset,
    series: body.still ? body.series.map(still) : body.series,
  };
  if (body.mapAt) {
    Object.assign(option, body.mapAt(headerHeight(header) + 8));
  } else if (body.frameAt) {
    Object.assign(option, body.frameAt(headerHeight(header) + 8));
  } else if (body.x && body.y) {
    option.grid = grid(header, body.zoom || body.visualMap !== undefined);
    const x = axis(body.x, palette, 'x');
    option.xAxis = body.extraX ? [x, axis(body.extraX, palette, 'x')] : x;
    const y = axis(body.y, palette, 'y');
    option.yAxis = body.extraY ? [y, { ...axis(body.extraY, palette, 'y'), position: 'left' }] : y;
  }
  if (body.frame) Object.assign(option, body.frame);
  if (body.visualMap) {
    // A frame's maps of categories come after the body's continuous one (series 0's).
    option.visualMap = option.visualMap === undefined ? body.visualMap : [body.visualMap, ...asList(option.visualMap)];
  }
  if (body.zoom) option.dataZoom = dataZoom(palette);
  if (body.zoom || body.brush) {
    option.brush =
      body.brush === 'rect' ? rectBrush(palette) : body.brush === 'geo' ? geoBrush(palette) : brush(palette);
    // ECharts adds brush buttons to a toolbox; the web app turns the brush on itself (FigureView).
    option.toolbox = { show: false };
  }
  return option;
}

/**
 * A series of a still chart: no animation of its own either. A treemap's series animates by default
 * whatever the option says (for 0.9 s, each frame painting every rectangle again).
 */
const still = (series: SeriesOption): SeriesOption => ({ ...series, animation: false });

const asList = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

function describe(component: FigureComponent, data: FigureData, body: ChartBody): string {
  const note = subtitle(component, data);
  return [component.title, body.description, note && `${note[0]?.toUpperCase()}${note.slice(1)}.`]
    .filter(Boolean)
    .join('. ')
    .replace('..', '.');
}

/** A figure's accessible description (the chart's `aria` label), for the element that draws it. */
export function chartDescription(component: FigureComponent, data: FigureData): string {
  return describe(component, data, BUILDERS[component.chart](chartInput(component, data, PALETTES.light)));
}
