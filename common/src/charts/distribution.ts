import type { BoxplotSeriesOption, DatasetComponentOption, LineSeriesOption, ScatterSeriesOption } from 'echarts';
import { type ChartBody, type ChartInput, plural } from './body.js';
import { Categories, type Cell, cell, rounded, sortedCategories, toNumber } from './columns.js';

const BOX_STATISTICS = ['whisker_low', 'q1', 'median', 'q3', 'whisker_high', 'count', 'mean', 'min', 'max'] as const;

/** The measured column of a box or violin plot (its answer has no `y` role, only statistics of y). */
function measureLabel(input: ChartInput, role: string): string {
  const { columns, component } = input;
  return component.y ?? columns.label(role);
}

/**
 * A box per x group from the server's statistics: whiskers, quartiles and median as ECharts draws
 * a boxplot, with the extremes beyond the whiskers as points.
 */
export function box(input: ChartInput): ChartBody {
  const { columns, component } = input;
  const yName = measureLabel(input, 'median');
  const hasX = columns.has('x');
  const groups = new Categories();
  const source: Cell[][] = [];
  const extremes: [string, number][] = [];
  for (const row of input.data.rows) {
    const label = groups.labels[groups.add(hasX ? columns.value(row, 'x') : yName)] ?? '';
    source.push([label, ...BOX_STATISTICS.map((role) => rounded(columns.value(row, role)))]);
    const [low, high, min, max] = ['whisker_low', 'whisker_high', 'min', 'max'].map((role) =>
      columns.number(row, role),
    );
    if (min != null && low != null && min < low) extremes.push([label, rounded(min) ?? min]);
    if (max != null && high != null && max > high) extremes.push([label, rounded(max) ?? max]);
  }
  const dataset: DatasetComponentOption = {
    dimensions: [
      { name: 'x', displayName: hasX ? columns.label('x') : '', type: 'ordinal' },
      ...BOX_STATISTICS.map((role) => ({ name: role, displayName: role.replace('_', ' ') })),
    ],
    source,
  };
  const boxes: BoxplotSeriesOption = {
    type: 'boxplot',
    name: yName,
    datasetIndex: 0,
    encode: {
      x: 'x',
      y: ['whisker_low', 'q1', 'median', 'q3', 'whisker_high'],
      tooltip: ['count', 'mean', 'min', 'q1', 'median', 'q3', 'max'],
    },
    itemStyle: { borderWidth: 1.5, color: 'transparent' },
  };
  const outliers: ScatterSeriesOption = {
    type: 'scatter',
    name: 'beyond the whiskers',
    data: extremes,
    symbolSize: 6,
    itemStyle: { opacity: 0.8 },
  };
  return {
    dataset: [dataset],
    series: extremes.length > 0 ? [boxes, outliers] : [boxes],
    x: { name: hasX ? columns.label('x') : '', kind: 'category', categories: groups.labels },
    y: { name: yName, kind: 'value', log: component.log_y },
    legend: false,
    trigger: 'item',
    zoom: false,
    description: `Box plot of ${yName}${hasX ? ` by ${columns.label('x')}, ${plural(groups.size, 'group')} (${groups.labels.join(', ')})` : ''}.`,
  };
}

/** The round ticks a violin's value axis aims at (ECharts' splitNumber). */
const VIOLIN_TICKS = 6;

/** The span of a violin's bins: the first bin's low edge to the last one's high edge. */
function edgesOf(lows: readonly unknown[], highs: ReadonlyMap<string, unknown>): { min?: number; max?: number } {
  const min = toNumber(lows[0]);
  const max = toNumber(highs.get(JSON.stringify(lows.at(-1))));
  return min === null || max === null ? {} : { min, max };
}

/** Half the width of a category a violin may take at its widest. */
const VIOLIN_HALF_WIDTH = 0.4;

/**
 * Violins drawn from the server's density bins with plain series (a custom series would need a
 * render function, which an exported option cannot carry): the bins are a category y axis, and
 * each group is two lines stacked along a hidden value x axis, the first transparent (the violin's
 * left edge at `i - w`), the second filled over `2w`, w proportional to the bin's count.
 */
export function violin(input: ChartInput): ChartBody {
  const { columns } = input;
  const yName = measureLabel(input, 'y_low');
  const hasX = columns.has('x');
  const density = violinDensity(input, hasX ? undefined : yName);
  const { groups, bins, highs } = density;
  const dataset: DatasetComponentOption[] = [];
  const series: LineSeriesOption[] = [];
  for (let group = 0; group < groups.size; group++) {
    dataset.push(violinDataset(density, group));
    const name = groups.labels[group] ?? '';
    series.push(...violinSeries(group, name, input.colors.of(name)));
  }
  return {
    dataset,
    series,
    x: { name: hasX ? columns.label('x') : '', kind: 'category', categories: groups.labels },
    // The bins place the shapes on a hidden category axis; a value axis over the same span (the
    // first bin's low edge to the last one's high) shows ~6 round ticks where the bins would name
    // every odd edge. Equal bins, every one listed: the two axes map alike.
    y: { name: '', kind: 'category', categories: bins.labels, show: false },
    extraY: {
      name: yName,
      kind: 'value',
      ...edgesOf(bins.values, highs),
      ticks: VIOLIN_TICKS,
      integer: columns.isInteger('y_low'),
    },
    extraX: { name: '', kind: 'value', min: -0.5, max: groups.size - 0.5, show: false },
    legend: false,
    trigger: 'item',
    zoom: false,
    description: `Violin plot of ${yName}${hasX ? ` by ${columns.label('x')}, ${plural(groups.size, 'group')} (${groups.labels.join(', ')})` : ''}, densities over ${plural(bins.size, 'bin')}.`,
  };
}

/** The density bins of a violin plot: each group's count per bin (keyed by the bin's low end). */
interface ViolinDensity {
  groups: Categories;
  bins: ReturnType<typeof sortedCategories>;
  counts: Map<string, number>[];
  highs: Map<string, unknown>;
}

/** Reads the rows into counts per group and bin; `single` names the one group when there is no x. */
function violinDensity(input: ChartInput, single: string | undefined): ViolinDensity {
  const { columns } = input;
  const groups = new Categories();
  const counts: Map<string, number>[] = [];
  const lows: unknown[] = [];
  const highs = new Map<string, unknown>();
  for (const row of input.data.rows) {
    const group = groups.add(single ?? columns.value(row, 'x'));
    const low = rounded(columns.value(row, 'y_low'));
    const key = JSON.stringify(low);
    lows.push(low);
    highs.set(key, rounded(columns.value(row, 'y_high')));
    const byBin = counts[group] ?? new Map<string, number>();
    counts[group] = byBin;
    byBin.set(key, (byBin.get(key) ?? 0) + (columns.number(row, 'count') ?? 0));
  }
  return { groups, bins: sortedCategories(lows, 'value'), counts, highs };
}

/** One group's violin as rows of bin, left edge and width (its widest bin takes the half width). */
function violinDataset({ bins, counts, highs }: ViolinDensity, group: number): DatasetComponentOption {
  const byBin = counts[group] ?? new Map<string, number>();
  const widest = Math.max(1, ...byBin.values());
  return {
    dimensions: ['bin', 'left', 'width', { name: 'count', displayName: 'count' }, 'from', 'to'],
    source: bins.values.map((low, bin) => {
      const key = JSON.stringify(low);
      const count = byBin.get(key) ?? 0;
      const half = (VIOLIN_HALF_WIDTH * count) / widest;
      return [
        bins.labels[bin] ?? null,
        rounded(group - half),
        rounded(2 * half),
        count,
        cell(low),
        cell(highs.get(key)),
      ];
    }),
  };
}

/** A group's two stacked lines: the transparent left edge, then the filled width over it. */
function violinSeries(group: number, name: string, color: string): LineSeriesOption[] {
  const common = {
    type: 'line',
    datasetIndex: group,
    xAxisIndex: 1,
    stack: `violin${group}`,
    // The left edge is negative for the first group: stack it with the width, whatever its sign.
    stackStrategy: 'all',
    smooth: 0.4,
    symbol: 'none',
  } as const;
  return [
    {
      ...common,
      name,
      encode: { y: 'bin', x: 'left' },
      lineStyle: { opacity: 0 },
      silent: true,
      tooltip: { show: false },
    },
    {
      ...common,
      name,
      encode: { y: 'bin', x: 'width', tooltip: ['from', 'to', 'count'] },
      lineStyle: { width: 1 },
      areaStyle: { opacity: 0.55 },
      color,
    },
  ];
}
