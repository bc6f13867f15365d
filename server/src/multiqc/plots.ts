import type {
  MultiqcBand,
  MultiqcBarData,
  MultiqcBoxData,
  MultiqcData,
  MultiqcHeatmapData,
  MultiqcLineData,
  MultiqcPlotType,
} from '@service/common';
import {
  asArray,
  asObject,
  colorOf,
  isObject,
  type JsonObject,
  numberOf,
  objectAt,
  type PlotOptions,
  pick,
  plotHeader,
  plotTitle,
  stringAt,
} from './plot-input.js';
import { dataTable, tableData } from './tables.js';

/**
 * One MultiQC plot's data in the shapes of docs/dashboards.md ("MultiQC plots"), from the plot
 * input MultiQC wrote (the JSON of `plot_input_data`), keeping only the samples a dashboard's
 * filters leave. Pure: no I/O, so every plot type is tested on its own.
 */

/** MultiQC's plot type → how we draw it; its tables are written as "violin plot". */
export { plotTitle };

export function drawnAs(plotType: string, input: JsonObject): MultiqcPlotType {
  if (isObject(input.dt)) return 'table';
  switch (plotType) {
    case 'bar plot':
      return 'bar';
    case 'x/y line':
      return 'line';
    case 'heatmap':
      return 'heatmap';
    case 'scatter plot':
      return 'scatter';
    case 'box plot':
      return 'box';
    default:
      return 'table';
  }
}

/** The labels of the plot's datasets (MultiQC's switch buttons); empty when there is one. */
export function datasetLabels(input: JsonObject): string[] {
  const labels = objectAt(input, 'pconfig').data_labels;
  if (!Array.isArray(labels) || labels.length < 2) return [];
  return labels.map((label, index) =>
    typeof label === 'string' ? label : (stringAt(asObject(label), 'name') ?? `Dataset ${index + 1}`),
  );
}

/** The plot's data for the samples shown. */
export function plotData(plotType: string, input: JsonObject, anchor: string, options: PlotOptions): MultiqcData {
  switch (drawnAs(plotType, input)) {
    case 'bar':
      return barData(input, anchor, options);
    case 'line':
      return lineData(input, anchor, options, 'line');
    case 'scatter':
      return scatterData(input, anchor, options);
    case 'heatmap':
      return heatmapData(input, anchor, options);
    case 'box':
    case 'violin':
      return boxData(input, anchor, options);
    case 'table':
      return isObject(input.dt) ? tableData(input, anchor, options) : dataTable(input, anchor, options);
  }
}

/** A bar plot: one series per category, one value per sample (stacked); percentages of each sample's total on request. */
function barData(input: JsonObject, anchor: string, options: PlotOptions): MultiqcBarData {
  const data = asObject(pick(input.data, options.dataset));
  const cats = asObject(pick(input.cats, options.dataset));
  const all = Object.keys(data);
  const samples = all.filter(options.shown);
  const categories = Object.keys(cats).length > 0 ? Object.keys(cats) : categoriesOf(data, samples);
  const values = categories.map((category) => samples.map((sample) => numberOf(asObject(data[sample])[category])));
  if (options.percentages) {
    const totals = samples.map((_, index) => values.reduce((sum, row) => sum + (row[index] ?? 0), 0));
    for (const row of values) {
      row.forEach((value, index) => {
        const total = totals[index] ?? 0;
        row[index] = value === null || total === 0 ? value : (value / total) * 100;
      });
    }
  }
  const series = categories.map((category, index) => {
    const meta = asObject(cats[category]);
    return {
      name: stringAt(meta, 'name') ?? category,
      color: colorOf(stringAt(meta, 'color')),
      values: values[index] ?? [],
    };
  });
  const kept = series.filter((entry) => entry.values.some((value) => value !== null));
  return {
    plot_type: 'bar',
    ...plotHeader(input, anchor, samples, all.length),
    series: kept,
    percentages: options.percentages,
  };
}

function categoriesOf(data: JsonObject, samples: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const sample of samples) for (const key of Object.keys(asObject(data[sample]))) seen.add(key);
  return [...seen];
}

/** A line plot: one series per sample with its points, and MultiQC's coloured bands behind. */
function lineData(input: JsonObject, anchor: string, options: PlotOptions, type: 'line' | 'scatter'): MultiqcLineData {
  const lines = asArray(pick(input.data, options.dataset)).map(asObject);
  const all = lines.map((line) => stringAt(line, 'name') ?? '');
  const shown = lines.filter((line) => options.shown(stringAt(line, 'name') ?? ''));
  const pconfig = objectAt(input, 'pconfig');
  let categorical = pconfig.categories === true;
  const series = shown.map((line) => {
    const points = asArray(line.pairs).flatMap((pair): [number | string, number | null][] => {
      const [x, y] = asArray(pair);
      if (typeof x === 'string') categorical = true;
      return typeof x === 'number' || typeof x === 'string' ? [[x, numberOf(y)]] : [];
    });
    const name = stringAt(line, 'name') ?? '';
    return { name, color: colorOf(stringAt(line, 'color') ?? stringAt(objectAt(pconfig, 'colors'), name)), points };
  });
  const summarize = type === 'line' && !categorical && series.length > LINE_SAMPLES;
  return {
    plot_type: type,
    ...plotHeader(
      input,
      anchor,
      series.map((entry) => entry.name),
      all.length,
    ),
    series: summarize ? summarized(series) : series,
    summarized: summarize ? series.length : null,
    bands: [...bandsOf(pconfig, 'x'), ...bandsOf(pconfig, 'y')],
    categorical_x: categorical,
  };
}

/**
 * Lines drawn one per sample up to this many; beyond, the samples are summarized per x (their
 * range, quartiles and median): 2,000 lines are neither readable nor small (MultiQC itself turns
 * such plots into flat images). Filtering down to this many shows each sample again.
 */
export const LINE_SAMPLES = 100;

const SUMMARY = [
  ['min', 0],
  ['25th percentile', 0.25],
  ['median', 0.5],
  ['75th percentile', 0.75],
  ['max', 1],
] as const;

/** The samples' lines as five: at each x, the minimum, quartiles, median and maximum of their y. */
function summarized(series: readonly { points: readonly [number | string, number | null][] }[]) {
  const byX = new Map<number, number[]>();
  for (const entry of series) {
    for (const [x, y] of entry.points) {
      if (typeof x !== 'number' || y === null) continue;
      const values = byX.get(x) ?? [];
      values.push(y);
      byX.set(x, values);
    }
  }
  const xs = [...byX.keys()].sort((a, b) => a - b);
  const sorted = xs.map((x) => (byX.get(x) ?? []).sort((a, b) => a - b));
  return SUMMARY.map(([name, p]) => ({
    name,
    color: null,
    points: xs.map((x, index): [number, number | null] => [x, quantile(sorted[index] ?? [], p)]),
  }));
}

function bandsOf(pconfig: JsonObject, axis: 'x' | 'y'): MultiqcBand[] {
  return asArray(pconfig[`${axis}_bands`]).flatMap((entry) => {
    const band = asObject(entry);
    const from = numberOf(band.from_ ?? band.from);
    const to = numberOf(band.to);
    const color = colorOf(stringAt(band, 'color'));
    return from === null || to === null || color === null ? [] : [{ axis, from, to, color }];
  });
}

/** A scatter plot: MultiQC gives each sample one point or a list of points `{x, y}`. */
function scatterData(input: JsonObject, anchor: string, options: PlotOptions): MultiqcLineData {
  const data = asObject(pick(input.data, options.dataset));
  const lines = Object.entries(data).map(([name, value]) => {
    const points = (Array.isArray(value) ? value : [value]).map(asObject);
    return {
      name,
      color: stringAt(points[0] ?? {}, 'color'),
      pairs: points.map((point) => [point.x ?? null, point.y ?? null]),
    };
  });
  return lineData({ ...input, data: [lines] }, anchor, { ...options, dataset: 0 }, 'scatter');
}

/** A heatmap; its sample axis (MultiQC's `ycats_samples`/`xcats_samples`) is narrowed to the samples shown. */
function heatmapData(input: JsonObject, anchor: string, options: PlotOptions): MultiqcHeatmapData {
  const pconfig = objectAt(input, 'pconfig');
  const xcats = asArray(input.xcats).map(String);
  const ycats = asArray(input.ycats).map(String);
  const rows = asArray(input.rows).map((row) => asArray(row).map(numberOf));
  const yKeep = ycats.map((name) => pconfig.ycats_samples === false || options.shown(name));
  const xKeep = xcats.map((name) => pconfig.xcats_samples !== true || options.shown(name));
  const y = ycats.filter((_, index) => yKeep[index]);
  const x = xcats.filter((_, index) => xKeep[index]);
  const values = rows.filter((_, index) => yKeep[index]).map((row) => row.filter((_, index) => xKeep[index]));
  const samples = pconfig.xcats_samples === true ? x : pconfig.ycats_samples === false ? [] : y;
  const all = pconfig.xcats_samples === true ? xcats.length : ycats.length;
  return {
    plot_type: 'heatmap',
    ...plotHeader(input, anchor, samples, all),
    x,
    y,
    values,
    min: numberOf(pconfig.min),
    max: numberOf(pconfig.max),
    color_stops: asArray(pconfig.colstops).flatMap((stop): [number, string][] => {
      const [position, color] = asArray(stop);
      return typeof position === 'number' && typeof color === 'string' ? [[position, color]] : [];
    }),
  };
}

/** A box plot: each sample's values as its five numbers (the values themselves stay on the server). */
function boxData(input: JsonObject, anchor: string, options: PlotOptions): MultiqcBoxData {
  const data = asObject(pick(input.data, options.dataset));
  const all = Object.keys(data);
  const boxes = all.filter(options.shown).map((name) => {
    const values = asArray(data[name])
      .map(numberOf)
      .filter((value): value is number => value !== null && Number.isFinite(value))
      .sort((a, b) => a - b);
    return {
      name,
      count: values.length,
      min: values[0] ?? null,
      q1: quantile(values, 0.25),
      median: quantile(values, 0.5),
      q3: quantile(values, 0.75),
      max: values.at(-1) ?? null,
    };
  });
  return {
    plot_type: 'box',
    ...plotHeader(
      input,
      anchor,
      boxes.map((box) => box.name),
      all.length,
    ),
    boxes,
  };
}

/** Linear interpolation between closest ranks (as numpy's default and DuckDB's quantile_cont). */
function quantile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const position = (sorted.length - 1) * p;
  const low = Math.floor(position);
  const lower = sorted[low] ?? 0;
  const upper = sorted[Math.min(low + 1, sorted.length - 1)] ?? lower;
  return lower + (upper - lower) * (position - low);
}

export type { Json, JsonObject, PlotOptions, SampleFilter } from './plot-input.js';
export { DATA_TABLE_COLUMNS } from './tables.js';
