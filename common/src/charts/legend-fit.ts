import type { EChartsOption } from 'echarts';
import { CATEGORY_LABEL_WIDTH, TURNED_LABELS, turnedNameGap } from './parts.js';

/*
 * What common/'s option fits to the width it is drawn at, once that width is known (the web
 * app's cell, the exported page, an image); the option alone cannot know it.
 *
 * Legends that wrap where there is room: the option puts a one-line legend (paging through its
 * entries) above the plot. `fitLegend` lets the entries wrap onto up to `MAX_LEGEND_ROWS` lines
 * and moves the plot down by the lines added, so the legend never covers it. More lines than that
 * would squeeze the plot: the legend keeps paging.
 *
 * Category labels that would run together: the option turns an x axis's labels past eight
 * categories. `fitCategories` also turns a few that do not fit their bands at this width (four
 * habitats under the box plots of a third of a row), as ECharts writes every one of them.
 */

/** Lines a legend may wrap onto before it pages instead. */
export const MAX_LEGEND_ROWS = 3;
/** The height one more line of legend takes: an entry (14 px) and the gap under it (10 px). */
export const LEGEND_ROW_HEIGHT = 24;
/** An entry's mark, the gap to its name and the gap to the next entry (ECharts' defaults), in pixels. */
const ENTRY_CHROME = 25 + 5 + 10;
/** The width of a character of a 12 px name, generously (wide letters and digits included). */
const CHARACTER_WIDTH = 7;
/** The legend's own padding on each side (ECharts' default). */
const LEGEND_PADDING = 5;

type Option = Record<string, unknown>;
const asList = (value: unknown): Option[] =>
  value === undefined ? [] : ((Array.isArray(value) ? value : [value]) as Option[]);

/** The names a legend lists: each series', and each slice's of a pie or funnel (ECharts' own rule). */
function legendNames(option: EChartsOption): string[] {
  const names = new Set<string>();
  for (const series of asList(option.series)) {
    if (series.type === 'pie' || series.type === 'funnel') {
      for (const item of asList(series.data)) if (typeof item.name === 'string') names.add(item.name);
    } else if (typeof series.name === 'string') names.add(series.name);
  }
  return [...names];
}

/**
 * The lines the option's legend takes at `width` pixels wide: 0 without a legend, 1 when it keeps
 * to one line or pages (no width known, or more than MAX_LEGEND_ROWS lines of entries).
 */
export function legendRows(option: EChartsOption, width: number | undefined): number {
  const legend = asList(option.legend)[0];
  if (legend === undefined || legend.show === false) return 0;
  if (width === undefined || width <= 0) return 1;
  const room = width - 2 * LEGEND_PADDING;
  let rows = 1;
  let used = 0;
  for (const name of legendNames(option)) {
    const entry = ENTRY_CHROME + name.length * CHARACTER_WIDTH;
    if (used > 0 && used + entry > room) {
      rows += 1;
      used = 0;
    }
    used += entry;
  }
  return rows > MAX_LEGEND_ROWS ? 1 : rows;
}

/** Moves a component placed `top` pixels down by `by` (one placed by percent or not at all stays). */
function lowered(component: Option, by: number): Option {
  return typeof component.top === 'number' ? { ...component, top: component.top + by } : component;
}

/**
 * The option with its legend on `rows` lines (`legendRows`): a plain legend, which ECharts wraps,
 * and the grids, visual maps and pies below it moved down by the lines added. One line or none:
 * the option as it is.
 */
export function fitLegend(option: EChartsOption, rows: number): EChartsOption {
  if (rows <= 1) return option;
  const by = (rows - 1) * LEGEND_ROW_HEIGHT;
  const fitted: Option = { ...option, legend: { ...(option.legend as Option), type: 'plain' } };
  if (option.grid !== undefined) {
    const grids = asList(option.grid).map((grid) => lowered(grid, by));
    fitted.grid = Array.isArray(option.grid) ? grids : grids[0];
  }
  if (option.visualMap !== undefined) {
    const maps = asList(option.visualMap).map((map) => lowered(map, by));
    fitted.visualMap = Array.isArray(option.visualMap) ? maps : maps[0];
  }
  if (option.series !== undefined) {
    const series = asList(option.series).map((one) => {
      if (one.type !== 'pie' && one.type !== 'funnel') return lowered(one, by);
      // A pie is laid out in its box: the box starts under the legend.
      return { ...one, top: (typeof one.top === 'number' ? one.top : 0) + by };
    });
    fitted.series = Array.isArray(option.series) ? series : series[0];
  }
  return fitted as EChartsOption;
}

/** Pixels of a chart's width that are not its plot: the y axis's labels and name, the margins. */
const PLOT_MARGINS = 100;

/**
 * Whether the option's x axis names categories upright that would not fit their bands at `width`
 * pixels (each is as wide as its longest word, at most `CATEGORY_LABEL_WIDTH`): then they are turned.
 */
export function categoriesTurned(option: EChartsOption, width: number | undefined): boolean {
  const axis = option.xAxis;
  if (width === undefined || width <= 0 || axis === undefined || Array.isArray(axis)) return false;
  const { type, data, axisLabel } = axis as Option;
  if (type !== 'category' || !Array.isArray(data) || data.length === 0) return false;
  if ((axisLabel as Option | undefined)?.rotate !== undefined) return false;
  const band = (width - PLOT_MARGINS) / data.length;
  const widest = Math.max(...data.map((label) => labelWidth(String(label))));
  return widest > band;
}

/** A category label's width upright: its longest word (it wraps between words), at most the label width. */
function labelWidth(label: string): number {
  const longestWord = Math.max(0, ...label.split(/\s+/).map((word) => word.length));
  return Math.min(longestWord * CHARACTER_WIDTH, CATEGORY_LABEL_WIDTH);
}

/** The option with its x axis's category labels turned (`categoriesTurned`), the axis name below them. */
export function fitCategories(option: EChartsOption, turned: boolean): EChartsOption {
  if (!turned) return option;
  const axis = option.xAxis as Option;
  const labels = (axis.data as unknown[]).map(String);
  return {
    ...option,
    xAxis: { ...axis, axisLabel: { ...(axis.axisLabel as Option), ...TURNED_LABELS }, nameGap: turnedNameGap(labels) },
  } as EChartsOption;
}
