import type { BarSeriesOption, DatasetComponentOption, LineSeriesOption, ScatterSeriesOption } from 'echarts';
import { GRAIN_DAYS } from '../time-grain.js';
import { aggregateLabel, type ChartBody, type ChartInput, dimensionType, MANY_POINTS, plural } from './body.js';
import {
  type AxisKind,
  Categories,
  type Cell,
  cell,
  type FigureColumns,
  listAt,
  rounded,
  toNumber,
} from './columns.js';

/** Rows split by their `color` (one series each, toggled from the legend); one group without it. */
function colorGroups(input: ChartInput): { groups: Categories; rows: Cell[][][] } {
  const groups = new Categories();
  const rows: Cell[][][] = [];
  const hasColor = input.columns.has('color');
  for (const row of input.data.rows) {
    const group = groups.add(hasColor ? input.columns.value(row, 'color') : null);
    listAt(rows, group).push(row.map(cell));
  }
  return { groups, rows };
}

/** A color group's series drawn in the value's colour of the dashboard (nothing to add without `color`). */
function groupColor(input: ChartInput, groups: Categories, group: number): { color?: string } {
  if (!input.columns.has('color')) return {};
  return { color: input.colors.of(groups.labels[group] ?? '') };
}

function seriesName(input: ChartInput, groups: Categories, group: number, fallback: string): string {
  return input.columns.has('color') ? (groups.labels[group] ?? '') : fallback;
}

/** Dataset dimensions named by role, shown in tooltips by the table column they come from. */
function dimensions(input: ChartInput, xKind = input.columns.axisKind('x')): DatasetComponentOption['dimensions'] {
  const kinds: Record<string, AxisKind> = { x: xKind, y: input.columns.axisKind('y') };
  return input.data.columns.map((column) => {
    const kind = kinds[column.name];
    return {
      name: column.name,
      displayName: column.column ?? column.name,
      ...(kind === undefined ? {} : { type: dimensionType(kind) }),
    };
  });
}

/** Consecutive years few enough to name each: a category axis, written without commas. */
const FEW_YEARS = 60;

/**
 * The axis a line or area chart's x is drawn on (the brush reads it back the same way): a numeric
 * x is a value axis, spaced as its numbers are. Only a run of consecutive years (every whole number
 * between the first and the last, 1000–9999) is a category axis: spaced the same, but written
 * "2008" where a value axis writes "2,008".
 */
export function lineXKind(columns: FigureColumns, rows: readonly (readonly unknown[])[]): AxisKind {
  const kind = columns.axisKind('x');
  if (kind !== 'value' || !columns.isInteger('x')) return kind;
  const distinct = new Set(rows.map((row) => toNumber(columns.value(row, 'x'))));
  const values = [...distinct].filter((value) => value !== null);
  if (values.length !== distinct.size || values.length === 0 || values.length > FEW_YEARS) return kind;
  const low = Math.min(...values);
  const high = Math.max(...values);
  return low >= 1000 && high <= 9999 && high - low + 1 === values.length ? 'category' : kind;
}

export function scatter(input: ChartInput): ChartBody {
  const { columns, component } = input;
  const { groups, rows } = colorGroups(input);
  const dims = dimensions(input);
  const dataset = rows.map((source) => ({ dimensions: dims, source }));
  const tooltipRoles = ['x', 'y', 'size'].filter((role) => columns.has(role));
  const series = dataset.map(
    (_, index): ScatterSeriesOption => ({
      type: 'scatter',
      name: seriesName(input, groups, index, columns.label('y')),
      datasetIndex: index,
      encode: { x: 'x', y: 'y', tooltip: tooltipRoles },
      symbolSize: 6,
      itemStyle: { opacity: 0.75 },
      emphasis: { focus: 'series' },
      ...groupColor(input, groups, index),
      // Sized points each need their own symbol.
      ...(columns.has('size') ? {} : MANY_POINTS),
    }),
  );
  const sizes = input.data.rows.map((row) => columns.number(row, 'size')).filter((size) => size !== null);
  return {
    dataset,
    series,
    x: {
      name: columns.label('x'),
      kind: columns.axisKind('x'),
      log: component.log_x,
      days: columns.isDate('x'),
      integer: columns.isInteger('x'),
    },
    y: {
      name: columns.label('y'),
      kind: columns.axisKind('y'),
      log: component.log_y,
      days: columns.isDate('y'),
      integer: columns.isInteger('y'),
    },
    legend: columns.has('color'),
    trigger: 'item',
    ...(sizes.length > 0
      ? {
          visualMap: {
            show: false,
            type: 'continuous' as const,
            dimension: input.data.columns.findIndex((column) => column.name === 'size'),
            min: Math.min(...sizes),
            max: Math.max(...sizes),
            inRange: { symbolSize: [4, 22] },
          },
        }
      : {}),
    zoom: true,
    description: `Scatter plot of ${columns.label('y')} against ${columns.label('x')}, ${plural(input.data.rows.length, 'point')}${groupsSentence(input, groups)}.`,
  };
}

function groupsSentence(input: ChartInput, groups: Categories): string {
  if (!input.columns.has('color')) return '';
  return ` in ${plural(groups.size, 'group')} by ${input.columns.label('color')} (${groups.labels.join(', ')})`;
}

/** Lines (and areas) of `agg` of y along x, one per color group. */
export function line(input: ChartInput, area: boolean): ChartBody {
  const { columns, component } = input;
  const xKind = lineXKind(columns, input.data.rows);
  const { groups, rows } = colorGroups(input);
  // Text x: the axis lists the categories in the answer's order, and the rows name them.
  const categories = new Categories();
  if (xKind === 'category') for (const row of input.data.rows) categories.add(columns.value(row, 'x'));
  const dims = dimensions(input, xKind);
  const xAt = input.data.columns.findIndex((column) => column.name === 'x');
  const yAt = input.data.columns.findIndex((column) => column.name === 'y');
  const dataset = rows.map((groupRows) => ({
    dimensions: dims,
    source: groupRows.map((row) =>
      row.map((value, position) => {
        if (position === xAt && xKind === 'category') return categories.labels[categories.add(value)] ?? null;
        return position === yAt ? rounded(value) : value;
      }),
    ),
  }));
  const yName = aggregateLabel(input);
  const series = dataset.map(
    (source, index): LineSeriesOption => ({
      type: 'line',
      name: seriesName(input, groups, index, yName),
      datasetIndex: index,
      encode: { x: 'x', y: 'y' },
      showSymbol: source.source.length <= 60,
      symbolSize: 5,
      emphasis: { focus: 'series' },
      ...(area ? { areaStyle: { opacity: 0.25 } } : {}),
      ...groupColor(input, groups, index),
    }),
  );
  const kind = area ? 'Area chart' : 'Line chart';
  const grain = input.data.time_grain;
  const xName = grain === undefined ? columns.label('x') : `${columns.label('x')} (by ${grain})`;
  return {
    dataset,
    series,
    x: {
      name: xName,
      kind: xKind,
      log: component.log_x,
      days: columns.isDate('x'),
      ...(grain === undefined ? {} : { grainDays: GRAIN_DAYS[grain] }),
      integer: columns.isInteger('x'),
      ...(xKind === 'category' ? { categories: categories.labels } : {}),
    },
    y: { name: yName, kind: 'value', log: component.log_y, fromZero: area, integer: columns.isInteger('y') },
    legend: columns.has('color'),
    trigger: 'axis',
    zoom: true,
    description: `${kind} of ${yName} by ${xName}, ${plural(input.data.rows.length, 'point')}${groupsSentence(input, groups)}.`,
  };
}

/**
 * Bars of `agg` of y per x category, stacked by color. The dataset is the table the chart shows:
 * a row per category (the folded ones last, as "Other"), a column per color group.
 */
export function bar(input: ChartInput): ChartBody {
  const { columns, component } = input;
  const model = barModel(input);
  const yName = aggregateLabel(input);
  const hasColor = columns.has('color');
  const groupNames = hasColor ? model.groups.labels : [yName];
  const dataset: DatasetComponentOption = {
    dimensions: [
      { name: 'x', displayName: columns.label('x'), type: 'ordinal' },
      ...groupNames.map((name, index) => ({ name: `g${index}`, displayName: name })),
    ],
    source: model.categories.labels.map((label, category) => [
      label,
      ...groupNames.map((_, group) => model.cells[category]?.[group] ?? null),
    ]),
  };
  const series = groupNames.map(
    (name, index): BarSeriesOption => ({
      type: 'bar',
      name,
      datasetIndex: 0,
      encode: { x: 'x', y: `g${index}` },
      ...(hasColor ? { stack: 'total' } : {}),
      ...groupColor(input, model.groups, index),
      emphasis: { focus: 'series' },
      // The categories of the figure's cross-filter are shown selected (see selectedIndices).
      selectedMode: 'multiple',
      select: { itemStyle: { borderColor: input.palette.text, borderWidth: 2 } },
    }),
  );
  const shown = model.categories.labels.slice(0, 10).join(', ');
  const more = model.categories.size > 10 ? `, and ${model.categories.size - 10} more` : '';
  return {
    dataset: [dataset],
    series,
    x: { name: columns.label('x'), kind: 'category', categories: model.categories.labels },
    y: { name: yName, kind: 'value', log: component.log_y, fromZero: true, integer: columns.isInteger('y') },
    legend: hasColor,
    trigger: 'axis',
    zoom: false,
    description: `Bar chart of ${yName} by ${columns.label('x')}: ${plural(model.categories.size, 'category', 'categories')} (${shown}${more})${groupsSentence(input, model.groups)}.`,
  };
}

/** A bar chart's categories (x, "Other" included) by color groups, with the value of each cell. */
export function barModel(input: ChartInput): {
  categories: Categories;
  groups: Categories;
  cells: (number | null)[][];
} {
  const { columns } = input;
  const categories = new Categories();
  const groups = new Categories();
  const cells: (number | null)[][] = [];
  for (const row of input.data.rows) {
    const category = categories.add(columns.value(row, 'x'), columns.isOther(row));
    const group = groups.add(columns.has('color') ? columns.value(row, 'color') : null);
    listAt(cells, category)[group] = rounded(columns.value(row, 'y'));
  }
  return { categories, groups, cells };
}

/** Where a histogram bin's edge sits on its axis (timestamps as milliseconds). */
function edge(value: unknown): number | null {
  const number = toNumber(value);
  if (number !== null) return number;
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(time) ? null : time;
}

/** Equal-width bins as bars on a value (or time) axis, one bar per bin, stacked by color. */
export function histogram(input: ChartInput): ChartBody {
  const { columns, component } = input;
  const hasColor = columns.has('color');
  const bins = new Categories();
  const groups = new Categories();
  const cells: { low: unknown; high: unknown; counts: number[] }[] = [];
  for (const row of input.data.rows) {
    const low = columns.value(row, 'x_low');
    const bin = bins.add(low);
    const group = groups.add(hasColor ? columns.value(row, 'color') : null);
    if (cells[bin] === undefined) cells[bin] = { low, high: columns.value(row, 'x_high'), counts: [] };
    const counts = cells[bin].counts;
    counts[group] = (counts[group] ?? 0) + (columns.number(row, 'count') ?? 0);
  }
  const groupNames = hasColor ? groups.labels : ['count'];
  const xName = columns.label('x_low');
  const source = cells
    .map((bin): Cell[] => {
      const low = edge(bin.low);
      const high = edge(bin.high);
      // On a log axis (log_x bins are equal in ln x) the middle of a bin is its geometric mean.
      const middle =
        low === null || high === null ? null : component.log_x && low > 0 ? Math.sqrt(low * high) : (low + high) / 2;
      return [middle, cell(bin.low), cell(bin.high), ...groupNames.map((_, group) => bin.counts[group] ?? 0)];
    })
    .filter((row) => row[0] !== null);
  const lows = cells.map((bin) => edge(bin.low)).filter((value) => value !== null);
  const highs = cells.map((bin) => edge(bin.high)).filter((value) => value !== null);
  const dataset: DatasetComponentOption = {
    dimensions: [
      { name: 'x', displayName: xName },
      { name: 'x_low', displayName: `${xName} from` },
      { name: 'x_high', displayName: `${xName} to` },
      ...groupNames.map((name, index) => ({ name: `g${index}`, displayName: name })),
    ],
    source,
  };
  const series = groupNames.map(
    (name, index): BarSeriesOption => ({
      type: 'bar',
      name,
      datasetIndex: 0,
      encode: { x: 'x', y: `g${index}`, tooltip: ['x_low', 'x_high', `g${index}`] },
      // The bins touch, as a histogram's do.
      barWidth: '98%',
      ...(hasColor ? { stack: 'total' } : {}),
      ...groupColor(input, groups, index),
      emphasis: { focus: 'series' },
    }),
  );
  const kind = columns.axisKind('x_low') === 'time' ? 'time' : 'value';
  return {
    dataset: [dataset],
    series,
    x: {
      name: xName,
      kind,
      log: component.log_x,
      days: columns.isDate('x_low'),
      ...(lows.length > 0 ? { min: Math.min(...lows), max: Math.max(...highs) } : {}),
    },
    y: { name: 'count', kind: 'value', log: component.log_y, fromZero: true, integer: true },
    legend: hasColor,
    trigger: 'item',
    zoom: true,
    description: `Histogram of ${xName} in ${plural(source.length, 'bin')}${groupsSentence(input, groups)}.`,
  };
}
