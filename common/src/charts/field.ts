import type { DatasetComponentOption, ScatterSeriesOption } from 'echarts';
import {
  DEFAULT_FC_THRESHOLD,
  DEFAULT_GENOME_THRESHOLD,
  DEFAULT_P_THRESHOLD,
  type FigureComponent,
  LABELLED_HITS,
} from '../dashboard-components.js';
import type { FigureData } from '../dashboard-data.js';
import { type ChartBody, type ChartInput, MANY_POINTS, manyPoints, plural, stillFor } from './body.js';
import { cell } from './columns.js';

/**
 * The field's charts (volcano, MA, Manhattan, QQ): the server classed, thinned and placed every
 * point (analytics/components/field-points.ts, genome.ts); these only draw them.
 */

const CLASSES = ['up', 'down', 'ns'] as const;
const CLASS_NAMES: Record<(typeof CLASSES)[number], string> = { up: 'up', down: 'down', ns: 'not significant' };

function dimensionsOf(data: FigureData): DatasetComponentOption['dimensions'] {
  return data.columns.map((column) => ({
    name: column.name,
    displayName: column.column ?? column.name,
    ...(column.name === 'class' || column.name === 'label' || column.name === 'chromosome'
      ? { type: 'ordinal' as const }
      : { type: 'float' as const }),
  }));
}

/** Rows by class, each a dataset of its own (a series per class, toggled from the legend). */
function classDatasets(input: ChartInput): DatasetComponentOption[] {
  const dimensions = dimensionsOf(input.data);
  const at = input.data.columns.findIndex((column) => column.name === 'class');
  return CLASSES.map((name) => ({
    dimensions,
    source: input.data.rows.filter((row) => row[at] === name).map((row) => row.map(cell)),
  }));
}

function classColor(input: ChartInput, name: (typeof CLASSES)[number]): string {
  const { palette } = input;
  return name === 'up' ? (palette.series[4] ?? '') : name === 'down' ? (palette.series[0] ?? '') : palette.other;
}

const dashed = (color: string) => ({ type: 'dashed' as const, color, width: 1 });

/** Threshold lines: −log10 p across, ±fold change up and down (the y of an MA plot's fold change). */
function thresholdLines(
  input: ChartInput,
  foldAxis: 'xAxis' | 'yAxis',
  pLine: boolean,
): ScatterSeriesOption['markLine'] {
  const fc = input.component.fc_threshold ?? DEFAULT_FC_THRESHOLD;
  const p = input.component.p_threshold ?? DEFAULT_P_THRESHOLD;
  const lines: Record<string, number>[] = [{ [foldAxis]: fc }, { [foldAxis]: -fc }];
  if (pLine) lines.push({ yAxis: -Math.log10(p) });
  return { silent: true, symbol: 'none', label: { show: false }, lineStyle: dashed(input.palette.dimmed), data: lines };
}

/**
 * The names of the labelled hits (the two datasets after the classes', `hitsDatasets`): those in
 * the left half named on their right, those in the right half on their left, each pointing into
 * the plot (a name on the right of a hit near the right edge was cut off by the chart's edge).
 */
function hitLabels(input: ChartInput, yRole: string): ScatterSeriesOption[] {
  if (!input.columns.has('label')) return [];
  return (['right', 'left'] as const).map((position, side) => ({
    type: 'scatter',
    // One legend entry for both: it toggles the names.
    name: 'top hits',
    datasetIndex: CLASSES.length + side,
    encode: { x: 'x', y: yRole, tooltip: ['label', 'x', 'y'] },
    symbolSize: 0,
    silent: true,
    // The legend's mark in the text's colour.
    itemStyle: { color: input.palette.text },
    label: { show: true, formatter: '{@label}', position, fontSize: 11, color: input.palette.text },
    labelLayout: { hideOverlap: true },
  }));
}

function classSeries(input: ChartInput, yRole: string, markLine: ScatterSeriesOption['markLine']) {
  const tooltip = ['label', 'x', 'y', 'p'].filter((role) => input.columns.has(role));
  return CLASSES.map(
    (name, index): ScatterSeriesOption => ({
      type: 'scatter',
      name: CLASS_NAMES[name],
      datasetIndex: index,
      encode: { x: 'x', y: yRole, tooltip },
      symbolSize: name === 'ns' ? 4 : 6,
      itemStyle: { color: classColor(input, name), opacity: name === 'ns' ? 0.5 : 0.85 },
      ...manyPoints(input.data.rows.length),
      ...(index === 0 ? { markLine } : {}),
    }),
  );
}

function countsSentence(data: FigureData): string {
  const counts = data.counts;
  if (counts === undefined) return '';
  return ` ${plural(counts.up, 'point')} up, ${counts.down.toLocaleString('en-US')} down, ${counts.ns.toLocaleString('en-US')} not significant.`;
}

/**
 * The up and down points of lowest p (highest −log10 p, or lowest p column), as two datasets:
 * those in the left half of the points' x extent, then those in the right half (`hitLabels`).
 */
function hitsDatasets(input: ChartInput, ranking: string, highest: boolean): DatasetComponentOption[] {
  const { data } = input;
  const at = (role: string) => data.columns.findIndex((column) => column.name === role);
  const [classAt, rankAt, xAt] = [at('class'), at(ranking), at('x')];
  const hits = data.rows
    .filter((row) => row[classAt] !== 'ns' && typeof row[rankAt] === 'number')
    .sort((a, b) => (highest ? Number(b[rankAt]) - Number(a[rankAt]) : Number(a[rankAt]) - Number(b[rankAt])))
    .slice(0, LABELLED_HITS);
  const middle = middleOf(data.rows, xAt);
  // A hit without a number for x is named on its right, as all were.
  const inLeftHalf = (row: unknown[]) => !(Number(row[xAt]) > middle);
  const dimensions = dimensionsOf(data);
  const dataset = (rows: unknown[][]) => ({ dimensions, source: rows.map((row) => row.map(cell)) });
  return [dataset(hits.filter(inLeftHalf)), dataset(hits.filter((row) => !inLeftHalf(row)))];
}

/** The middle of a column's extent over the rows (its finite numbers; 0 without any). */
function middleOf(rows: unknown[][], at: number): number {
  let [low, high] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
  for (const row of rows) {
    const value = row[at];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    if (value < low) low = value;
    if (value > high) high = value;
  }
  return low <= high ? (low + high) / 2 : 0;
}

export function volcano(input: ChartInput): ChartBody {
  const { columns, data } = input;
  const labels = hitLabels(input, 'minus_log10_y');
  return {
    dataset: [...classDatasets(input), ...hitsDatasets(input, 'minus_log10_y', true)],
    series: [...classSeries(input, 'minus_log10_y', thresholdLines(input, 'xAxis', true)), ...labels],
    x: { name: columns.label('x'), kind: 'value' },
    y: { name: `−log10 ${columns.label('y')}`, kind: 'value', fromZero: true },
    legend: true,
    trigger: 'item',
    zoom: true,
    still: stillFor(data.rows.length),
    description: `Volcano plot of −log10 ${columns.label('y')} against ${columns.label('x')}, ${plural(data.rows.length, 'point')}.${countsSentence(data)}`,
  };
}

export function ma(input: ChartInput): ChartBody {
  const { columns, data } = input;
  const classed = columns.has('p');
  const labels = classed ? hitLabels(input, 'y') : [];
  return {
    dataset: [...classDatasets(input), ...hitsDatasets(input, 'p', false)],
    series: [...classSeries(input, 'y', thresholdLines(input, 'yAxis', false)), ...labels],
    x: { name: columns.label('x'), kind: 'value' },
    y: { name: columns.label('y'), kind: 'value' },
    legend: classed,
    trigger: 'item',
    zoom: true,
    still: stillFor(data.rows.length),
    description: `MA plot of ${columns.label('y')} against ${columns.label('x')}, ${plural(data.rows.length, 'point')}.${classed ? countsSentence(data) : ''}`,
  };
}

/** A chromosome shorter than this share of the genome is not named under the axis. */
const NAMED_CHROMOSOME_SHARE = 1 / 60;

/** Manhattan: chromosomes in alternating colours on shaded bands named under the axis, the genome-wide line across. */
export function manhattan(input: ChartInput): ChartBody {
  const { columns, data, palette, component } = input;
  const chromosomes = data.chromosomes ?? [];
  const rank = new Map(chromosomes.map((chromosome, index) => [chromosome.name, index]));
  const at = data.columns.findIndex((column) => column.name === 'chromosome');
  const dimensions = dimensionsOf(data);
  const dataset = [0, 1].map((parity) => ({
    dimensions,
    source: data.rows.filter((row) => (rank.get(String(row[at])) ?? 0) % 2 === parity).map((row) => row.map(cell)),
  }));
  const threshold = component.threshold ?? DEFAULT_GENOME_THRESHOLD;
  const genome = chromosomes.reduce((end, chromosome) => Math.max(end, chromosome.offset + chromosome.length), 0);
  const bands = chromosomes.map((chromosome, index) => [
    {
      name: chromosome.name,
      xAxis: chromosome.offset,
      itemStyle: { color: index % 2 === 0 ? 'rgba(134, 142, 150, 0.08)' : 'rgba(0, 0, 0, 0)' },
      // The smallest (21, 22, Y, MT of a human genome) unnamed: their names would run together.
      ...(chromosome.length < genome * NAMED_CHROMOSOME_SHARE ? { label: { show: false } } : {}),
    },
    { xAxis: chromosome.offset + chromosome.length },
  ]);
  const series = [0, 1].map(
    (parity): ScatterSeriesOption => ({
      type: 'scatter',
      name: parity === 0 ? 'odd chromosomes' : 'even chromosomes',
      datasetIndex: parity,
      encode: { x: 'genome_position', y: 'minus_log10_y', tooltip: ['chromosome', 'position', 'y'] },
      symbolSize: 4,
      itemStyle: { color: parity === 0 ? (palette.series[0] ?? '') : (palette.series[9] ?? '') },
      ...manyPoints(input.data.rows.length),
      ...(parity === 0
        ? {
            markLine: {
              silent: true,
              symbol: 'none',
              label: { show: false },
              lineStyle: dashed(palette.series[4] ?? ''),
              data: [{ yAxis: -Math.log10(threshold) }],
            },
            // Each chromosome's band, named under the axis where a value axis writes its numbers.
            markArea: {
              silent: true,
              label: { position: 'bottom', distance: 8, color: palette.dimmed, fontSize: 11 },
              data: bands as never,
            },
          }
        : {}),
    }),
  );
  return {
    dataset,
    series,
    x: {
      name: columns.label('chromosome'),
      kind: 'value',
      min: 0,
      ...(genome > 0 ? { max: genome } : {}),
      labels: false,
    },
    y: { name: `−log10 ${columns.label('y')}`, kind: 'value', fromZero: true },
    legend: false,
    trigger: 'item',
    zoom: true,
    still: stillFor(data.rows.length),
    description:
      `Manhattan plot of −log10 ${columns.label('y')} along ${plural(chromosomes.length, 'chromosome')}` +
      `${chromosomeList(chromosomes.map((chromosome) => chromosome.name))}, ${plural(data.rows.length, 'point')} drawn, ` +
      `${(data.significant ?? 0).toLocaleString('en-US')} below the genome-wide line at ${threshold}.`,
  };
}

/** Chromosomes named in the description (an ellipsis for the rest): a reader hears the order they are laid in. */
const LISTED_CHROMOSOMES = 30;

/** The chromosomes in drawing order, runs of three or more successive numbers as one ("1–22, X, Y, MT"). */
export function chromosomeList(names: readonly string[]): string {
  if (names.length === 0) return '';
  const parts: string[] = [];
  let at = 0;
  while (at < names.length) {
    let end = at;
    while (isNext(names[end], names[end + 1])) end++;
    if (end - at >= 2) parts.push(`${names[at]}–${names[end]}`);
    else parts.push(...names.slice(at, end + 1));
    at = end + 1;
  }
  const listed = parts.slice(0, LISTED_CHROMOSOMES).join(', ');
  return ` (${listed}${parts.length > LISTED_CHROMOSOMES ? ', …' : ''})`;
}

const isNext = (name: string | undefined, next: string | undefined) =>
  name !== undefined &&
  next !== undefined &&
  /^\d+$/.test(name) &&
  /^\d+$/.test(next) &&
  Number(next) === Number(name) + 1;

/** QQ: observed against expected −log10 p, with the diagonal the p values follow when nothing is inflated. */
export function qq(input: ChartInput): ChartBody {
  const { columns, data, palette } = input;
  const top = Math.max(1, ...data.rows.flatMap((row) => [Number(row[0]) || 0, Number(row[1]) || 0]));
  const series: ScatterSeriesOption = {
    type: 'scatter',
    name: columns.label('observed'),
    datasetIndex: 0,
    encode: { x: 'expected', y: 'observed', tooltip: ['expected', 'observed'] },
    symbolSize: 5,
    itemStyle: { color: palette.series[0] ?? '' },
    ...MANY_POINTS,
    markLine: {
      silent: true,
      symbol: 'none',
      label: { show: false },
      lineStyle: dashed(palette.series[4] ?? ''),
      data: [[{ coord: [0, 0] }, { coord: [top, top] }]],
    },
  };
  return {
    dataset: [{ dimensions: dimensionsOf(data), source: data.rows.map((row) => row.map(cell)) }],
    series: [series],
    x: { name: 'expected −log10 p', kind: 'value', fromZero: true },
    y: { name: `observed −log10 ${columns.label('observed')}`, kind: 'value', fromZero: true },
    legend: false,
    trigger: 'item',
    zoom: false,
    still: stillFor(data.rows.length),
    description: `QQ plot of observed against expected −log10 ${columns.label('observed')}, ${plural(data.rows.length, 'point')}${lambdaText(data) ? `, ${lambdaText(data)}` : ''}.`,
  };
}

export function lambdaText(data: FigureData): string {
  return data.lambda === null || data.lambda === undefined ? '' : `λ = ${data.lambda.toFixed(3)}`;
}

/** The line under a field chart's title: its counts, λ, and what was thinned. */
export function fieldSubtitle(component: FigureComponent, data: FigureData): string | undefined {
  const thinned = data.sampled ? `thinned: ${plural(data.rows.length, 'point')} drawn` : '';
  const parts =
    component.chart === 'qq'
      ? [lambdaText(data)]
      : component.chart === 'manhattan'
        ? [`${(data.significant ?? 0).toLocaleString('en-US')} significant`]
        : data.counts && (component.chart === 'volcano' || component.p !== undefined)
          ? [`${data.counts.up.toLocaleString('en-US')} up, ${data.counts.down.toLocaleString('en-US')} down`]
          : [];
  const text = [...parts, thinned, data.capped ? `${plural(data.capped, 'p value')} of 0 drawn at the top` : '']
    .filter(Boolean)
    .join(' · ');
  return text === '' ? undefined : text;
}
