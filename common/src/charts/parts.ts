import type {
  BrushComponentOption,
  DataZoomComponentOption,
  GridComponentOption,
  LegendComponentOption,
  TitleComponentOption,
  TooltipComponentOption,
  XAXisComponentOption,
  YAXisComponentOption,
} from 'echarts';
import type { AxisKind } from './columns.js';
import type { ChartPalette } from './palette.js';

/** An x or y axis (the two share every field this module sets). */
export type AxisOption = XAXisComponentOption & YAXisComponentOption;

export interface AxisSpec {
  /** The table column it shows: the axis name. */
  name: string;
  kind: AxisKind;
  log?: boolean;
  /** A category axis's labels, in order. */
  categories?: string[];
  /** A value axis that starts at 0 (bars and areas measure from it). */
  fromZero?: boolean;
  min?: number;
  max?: number;
  show?: boolean;
  /** A time axis of dates: no ticks between days. */
  days?: boolean;
  /** A time axis of points a grain apart (weeks, months): no ticks closer than this, in days. */
  grainDays?: number;
  /** A value axis of integers: no ticks between whole numbers. */
  integer?: boolean;
  /** About this many round ticks (ECharts' splitNumber); labels only at them, not at `min` and `max`. */
  ticks?: number;
  /** A category axis whose scatter points spread across their band, this many pixels (a strip plot). */
  jitter?: number;
  /**
   * False: a value axis without numbers, ticks or lines at them, its places named by the chart's
   * own marks (a Manhattan plot's chromosomes, whose positions laid end to end mean nothing).
   */
  labels?: false;
}

export function axis(spec: AxisSpec, palette: ChartPalette, position: 'x' | 'y'): AxisOption {
  const type = spec.kind === 'value' && spec.log ? 'log' : spec.kind;
  return {
    type,
    name: spec.name,
    nameLocation: 'middle',
    nameGap: position === 'x' ? (rotated(spec, position) ? turnedNameGap(spec.categories ?? []) : 28) : 44,
    nameTextStyle: { color: palette.dimmed },
    ...(spec.categories ? { data: spec.categories } : {}),
    // Values need not start at 0 (body masses, years) unless the marks measure from it.
    ...(type === 'value' ? { scale: !spec.fromZero } : {}),
    ...(spec.min !== undefined ? { min: spec.min } : {}),
    ...(spec.max !== undefined ? { max: spec.max } : {}),
    ...(spec.show === false ? { show: false } : {}),
    ...(spec.days || spec.grainDays ? { minInterval: 86_400_000 * Math.floor(spec.grainDays ?? 1) } : {}),
    ...(spec.integer && type !== 'category' ? { minInterval: 1 } : {}),
    ...(spec.ticks ? { splitNumber: spec.ticks } : {}),
    ...(spec.jitter ? { jitter: spec.jitter, jitterOverlap: true } : {}),
    // On the plot's edge, not where the other axis crosses 0 (violins centre a group on 0).
    axisLine: { show: true, onZero: false, lineStyle: { color: palette.axisLine } },
    axisTick: { show: spec.labels !== false, lineStyle: { color: palette.axisLine } },
    axisLabel: spec.labels === false ? { show: false } : axisLabel(spec, palette, position),
    splitLine: { show: type !== 'category' && spec.labels !== false, lineStyle: { color: palette.splitLine } },
  } as AxisOption;
}

/** Categories on an x axis beyond which their labels are turned, so each keeps its room. */
const UPRIGHT_CATEGORIES = 8;
/** The width (px) a category label wraps or is cut at. */
export const CATEGORY_LABEL_WIDTH = 96;
/** How far turned category labels are turned (degrees). */
const TURNED_BY = 40;

function rotated(spec: AxisSpec, position: 'x' | 'y'): boolean {
  return position === 'x' && spec.kind === 'category' && (spec.categories?.length ?? 0) > UPRIGHT_CATEGORIES;
}

/** The characters of the longest of `labels`, at most what fits `CATEGORY_LABEL_WIDTH`. */
function longestCharacters(labels: readonly string[]): number {
  const longest = Math.max(0, ...labels.map((label) => label.length));
  return Math.min(longest, CATEGORY_LABEL_WIDTH / 6);
}

/** How an x axis's category labels are turned, each cut at its width: they need not fit their bands. */
export const TURNED_LABELS = {
  interval: 0,
  rotate: TURNED_BY,
  width: CATEGORY_LABEL_WIDTH,
  overflow: 'truncate',
} as const;

/** The gap from an x axis to its name under labels turned by `TURNED_LABELS` (4.5 px a character). */
export const turnedNameGap = (labels: readonly string[]) => 28 + longestCharacters(labels) * 4.5;

/**
 * A category axis shows every label (ECharts would otherwise skip some where they crowd): on an x
 * axis a few wrap under their bars, many are turned by 40°; on a y axis each is cut to one line
 * ("…"), as its row is one line high (a wrapped name ran into its neighbours' on a ranked chart
 * of twenty categories). Values keep ECharts' own spacing, overlaps hidden.
 */
function axisLabel(spec: AxisSpec, palette: ChartPalette, position: 'x' | 'y') {
  if (spec.kind !== 'category') {
    // Bounds set to odd values (a violin's bins) would be labelled too: only the round ticks are.
    const edges = spec.ticks ? { showMinLabel: false, showMaxLabel: false } : {};
    return { color: palette.dimmed, hideOverlap: true, ...edges };
  }
  if (rotated(spec, position)) return { color: palette.dimmed, ...TURNED_LABELS };
  const overflow = position === 'y' ? 'truncate' : 'break';
  return { color: palette.dimmed, interval: 0, width: CATEGORY_LABEL_WIDTH, overflow };
}

/** Room above the plot: the title, the "sampled" line and the legend, stacked. */
export interface Header {
  title: string;
  subtitle?: string;
  legend: boolean;
}

const TITLE_HEIGHT = 28;
const SUBTITLE_HEIGHT = 18;
const LEGEND_HEIGHT = 26;

export function headerHeight(header: Header): number {
  return (
    (header.title ? TITLE_HEIGHT : 4) + (header.subtitle ? SUBTITLE_HEIGHT : 0) + (header.legend ? LEGEND_HEIGHT : 0)
  );
}

export function title(header: Header, palette: ChartPalette): TitleComponentOption {
  return {
    text: header.title,
    ...(header.subtitle ? { subtext: header.subtitle } : {}),
    left: 0,
    top: 4,
    padding: 0,
    itemGap: 4,
    textStyle: { color: palette.text, fontSize: 14, fontWeight: 'bold', lineHeight: 20 },
    subtextStyle: { color: palette.dimmed, fontSize: 12, lineHeight: 16 },
  };
}

export function legend(header: Header, palette: ChartPalette): LegendComponentOption {
  return {
    show: header.legend,
    type: 'scroll',
    left: 0,
    top: headerHeight(header) - LEGEND_HEIGHT + 2,
    textStyle: { color: palette.text },
    pageTextStyle: { color: palette.dimmed },
    pageIconColor: palette.text,
    pageIconInactiveColor: palette.axisLine,
    inactiveColor: palette.axisLine,
  };
}

export function grid(header: Header, slider: boolean): GridComponentOption {
  return {
    left: 8,
    right: 24,
    top: headerHeight(header) + 12,
    bottom: slider ? 44 : 8,
    // Labels and axis names inside the cell, however long the numbers.
    outerBoundsMode: 'same',
    outerBoundsContain: 'all',
  };
}

export function tooltip(trigger: 'item' | 'axis', palette: ChartPalette): TooltipComponentOption {
  return {
    trigger,
    confine: true,
    backgroundColor: palette.tooltipBackground,
    borderColor: palette.axisLine,
    textStyle: { color: palette.text },
    ...(trigger === 'axis' ? { axisPointer: { type: 'shadow' } } : {}),
  };
}

/**
 * Zoom along x: a slider under the plot, and the wheel with Shift (a bare wheel scrolls the
 * dashboard; a drag brushes, see `brush`).
 */
export function dataZoom(palette: ChartPalette): DataZoomComponentOption[] {
  return [
    {
      type: 'inside',
      xAxisIndex: 0,
      filterMode: 'none',
      zoomOnMouseWheel: 'shift',
      moveOnMouseWheel: false,
      moveOnMouseMove: false,
    },
    {
      type: 'slider',
      xAxisIndex: 0,
      filterMode: 'none',
      height: 18,
      bottom: 6,
      borderColor: palette.axisLine,
      textStyle: { color: palette.dimmed },
    },
  ];
}

/** A range of x, one at a time: the figure's cross-filter (`brushFilterValue`). */
export function brush(palette: ChartPalette): BrushComponentOption {
  return {
    xAxisIndex: 0,
    brushType: 'lineX',
    brushMode: 'single',
    throttleType: 'debounce',
    throttleDelay: 300,
    brushStyle: { borderWidth: 1, color: 'rgba(76, 110, 245, 0.15)', borderColor: palette.series[9] },
    outOfBrush: { colorAlpha: 0.3 },
    toolbox: ['lineX', 'clear'],
  };
}

/** A rectangle over any of the figure's grids: the points inside it (an embedding's ids) filter the others. */
export function rectBrush(palette: ChartPalette): BrushComponentOption {
  return { ...brush(palette), xAxisIndex: 'all', yAxisIndex: 'all', brushType: 'rect', toolbox: ['rect', 'clear'] };
}

/** A rectangle over a map's countries: the longitudes and latitudes inside it filter the others. */
export function geoBrush(palette: ChartPalette): BrushComponentOption {
  const { xAxisIndex: _x, ...rest } = brush(palette);
  return { ...rest, geoIndex: 0, brushType: 'rect', toolbox: ['rect', 'clear'] };
}
