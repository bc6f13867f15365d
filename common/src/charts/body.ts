import type {
  DatasetComponentOption,
  EChartsOption,
  GridComponentOption,
  SeriesOption,
  VisualMapComponentOption,
} from 'echarts';
import type { FigureComponent } from '../dashboard-components.js';
import type { FigureData } from '../dashboard-data.js';
import { formatCount } from '../format/number.js';
import { assignColors, type ColorAssignment, SeriesColors } from './colors.js';
import { type AxisKind, FigureColumns } from './columns.js';
import type { ChartPalette } from './palette.js';
import type { AxisOption, AxisSpec } from './parts.js';

/**
 * For a scatter series of many points of one colour and size (volcano, MA, Manhattan, QQ, strips,
 * plain scatters): ECharts draws them as one path from 2,000 points on instead of one element each.
 * Ten volcano plots of 10,000 points each took ~20 s to finish drawing on a busy 2-CPU host, and
 * ~2 s this way; a point's own hover style is what is given up. Drawn at once, not progressively
 * (ECharts' default from 3,000 points: 400 a frame, so 50 frames for 20,000 points, each frame a
 * canvas committed again while the other charts of a filter change wait for the CPU).
 */
export const MANY_POINTS = { large: true, largeThreshold: 2_000, progressive: 0 } as const;

/**
 * `MANY_POINTS` for one of several series of a chart of `total` points (a volcano's classes, a
 * Manhattan plot's odd and even chromosomes, a strip's groups): once the chart has many, each of
 * its series is one path, also one under 2,000 points on its own. Drawn an element each, the
 * ~1,500 points of each class of a thinned volcano were animated one by one on every filter
 * change (~0.5 s of the page's CPU for one chart).
 */
export const manyPoints = (total: number) =>
  ({ ...MANY_POINTS, largeThreshold: total > MANY_POINTS.largeThreshold ? 0 : MANY_POINTS.largeThreshold }) as const;

/**
 * Whether a chart of `total` points is drawn without transitions: past `MANY_POINTS`' threshold
 * its points do not move anyway (one path), and the ~12 frames of a 0.2 s transition of its axes
 * each painted them all again, on the CPU the next charts of a filter change wait for.
 */
export const stillFor = (total: number) => total > MANY_POINTS.largeThreshold;

/**
 * A transition's length after a filter change (ms). Short: ECharts' default (1 s in, 0.3 s per
 * update, easing beyond; a treemap's 0.9 s, a sunburst's 0.5 s, set on their series) kept a filter
 * change moving for ~2 s.
 */
export const UPDATE_MS = 200;

/** What one chart type contributes to the option; `chartOption` adds the frame around it. */
export interface ChartBody {
  dataset: DatasetComponentOption[];
  series: SeriesOption[];
  x?: AxisSpec | undefined;
  y?: AxisSpec | undefined;
  /** A second x axis over the first (violins place their shapes on a hidden value axis). */
  extraX?: AxisSpec;
  /** A second y axis, drawn on the left where `y` is hidden (a violin's values over its bins). */
  extraY?: AxisSpec;
  /** More than one series (or the slices of a pie): a legend that toggles them. */
  legend: boolean;
  trigger: 'item' | 'axis';
  /**
   * No transition animation (`stillFor`): each frame of one (an axis or a threshold line moving)
   * paints every point of the chart again.
   */
  still?: boolean;
  visualMap?: VisualMapComponentOption;
  /**
   * Plots side by side (a heatmap with its dendrograms, an oncoplot with its bars): their grids and
   * axes, instead of `x` and `y`, below the header (`top`, in pixels).
   */
  frameAt?: (top: number) => {
    grid: GridComponentOption[];
    xAxis: AxisOption[];
    yAxis: AxisOption[];
    /** Visual maps of categories (annotation bars, alterations), each for the series it names. */
    visualMap?: VisualMapComponentOption[];
  };
  /** Zoom and brush along x. */
  zoom: boolean;
  /** A rectangle brush over every grid (an embedding with ids), or over a map, instead of zoom's brush along x. */
  brush?: 'rect' | 'geo';
  /** A map (maps.ts): its series and geo component placed below the header (`top`, in pixels), instead of axes. */
  mapAt?: (top: number) => Pick<EChartsOption, 'geo' | 'series'>;
  /** The accessible description after the title: what is drawn, in a sentence or two. */
  description: string;
  /** Several grids and their axes, as is (an UpSet plot's bars over its matrix), instead of `x` and `y`. */
  frame?: Pick<EChartsOption, 'grid' | 'xAxis' | 'yAxis'>;
}

export interface ChartInput {
  component: FigureComponent;
  data: FigureData;
  columns: FigureColumns;
  palette: ChartPalette;
  /** The colour of each value the chart tells apart (series, slices, violins). */
  colors: SeriesColors;
}

/** Without the dashboard's assignment, the chart's own values in their order get the palette's colours. */
export function chartInput(
  component: FigureComponent,
  data: FigureData,
  palette: ChartPalette,
  assignment: ColorAssignment = assignColors([{ component, data }]),
): ChartInput {
  return { component, data, columns: new FigureColumns(data), palette, colors: new SeriesColors(palette, assignment) };
}

/** What the y of a bar, line, area or pie shows: "count", or "mean body_mass_g". */
export function aggregateLabel(input: ChartInput, role = 'y'): string {
  const agg = input.component.agg ?? 'count';
  if (agg === 'count' || !input.columns.has(role)) return 'count';
  return `${agg.replace('_', ' ')} ${input.columns.label(role)}`;
}

/** The dataset dimension type of an axis kind: ECharts parses times and keeps categories as names. */
export function dimensionType(kind: AxisKind): 'float' | 'time' | 'ordinal' {
  return kind === 'value' ? 'float' : kind === 'time' ? 'time' : 'ordinal';
}

/** A count and its noun; grouped by hand, as the app's counts are (`format/number.ts`: an `Intl` formatter is slow to make). */
export function plural(count: number, one: string, many = `${one}s`): string {
  const shown = Number.isSafeInteger(count) ? formatCount(count) : count.toLocaleString('en-US');
  return `${shown} ${count === 1 ? one : many}`;
}
