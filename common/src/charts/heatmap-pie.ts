import type { DatasetComponentOption, HeatmapSeriesOption, PieSeriesOption } from 'echarts';
import { aggregateLabel, type ChartBody, type ChartInput, plural } from './body.js';
import { colorScale } from './color-scale.js';
import { categoryLabel, rounded, sortedCategories } from './columns.js';

/**
 * Cells of x by y (ECharts draws heatmaps on two category axes: numeric axes come binned, named
 * by each bin's low edge, and are put in numeric order), coloured by value on a visual map.
 */
export function heatmap(input: ChartInput): ChartBody {
  const { columns, data, palette } = input;
  const xs = sortedCategories(
    data.rows.map((row) => columns.value(row, 'x')),
    columns.axisKind('x'),
  );
  const ys = sortedCategories(
    data.rows.map((row) => columns.value(row, 'y')),
    columns.axisKind('y'),
  );
  const valueName = aggregateLabel(input, 'value');
  const values = data.rows.map((row) => rounded(columns.value(row, 'value')));
  const finite = values.filter((value) => value !== null);
  const dataset: DatasetComponentOption = {
    dimensions: [
      { name: 'x', displayName: columns.label('x'), type: 'ordinal' },
      { name: 'y', displayName: columns.label('y'), type: 'ordinal' },
      { name: 'value', displayName: valueName },
    ],
    source: data.rows.map((row, index) => [
      xs.labels[xs.add(columns.value(row, 'x'))],
      ys.labels[ys.add(columns.value(row, 'y'))],
      values[index] ?? null,
    ]),
  };
  const series: HeatmapSeriesOption = {
    type: 'heatmap',
    name: valueName,
    datasetIndex: 0,
    encode: { x: 'x', y: 'y', tooltip: ['x', 'y', 'value'] },
    emphasis: { itemStyle: { borderColor: palette.text, borderWidth: 1 } },
  };
  return {
    dataset: [dataset],
    series: [series],
    x: { name: columns.label('x'), kind: 'category', categories: xs.labels },
    y: { name: columns.label('y'), kind: 'category', categories: ys.labels },
    legend: false,
    trigger: 'item',
    visualMap: colorScale(palette, finite, { dimension: 2 }),
    zoom: false,
    description: `Heatmap of ${valueName} by ${columns.label('x')} (${plural(xs.size, 'column')}) and ${columns.label('y')} (${plural(ys.size, 'row')}).`,
  };
}

/** Slices by color, the folded ones as one grey "Other" slice. */
export function pie(input: ChartInput): ChartBody {
  const { columns, data, palette } = input;
  const valueName = aggregateLabel(input);
  const labels: string[] = [];
  const slices = data.rows.map((row) => {
    const other = columns.isOther(row);
    let name = categoryLabel(columns.value(row, 'color'), other);
    // ECharts tells slices (and their legend entries) apart by name.
    for (let suffix = 2; labels.includes(name); suffix++)
      name = `${categoryLabel(columns.value(row, 'color'), other)} (${suffix})`;
    labels.push(name);
    return {
      name,
      value: rounded(columns.value(row, 'y')) ?? 0,
      itemStyle: { color: input.colors.of(name, other) },
    };
  });
  const series: PieSeriesOption = {
    type: 'pie',
    name: valueName,
    // Room for the title and legend above.
    center: ['50%', '58%'],
    radius: ['0%', '62%'],
    data: slices,
    avoidLabelOverlap: true,
    // Every slice named outside, on a leader line, a long name wrapped: never hidden or cut to "…".
    label: { color: palette.text, position: 'outside', overflow: 'break', width: 110, minMargin: 4 },
    labelLine: { length: 10, length2: 8, lineStyle: { color: palette.axisLine } },
    labelLayout: { hideOverlap: false },
    tooltip: { formatter: '{b}: {c} ({d}%)' },
    emphasis: { focus: 'self' },
    // The slices of the figure's cross-filter are shown selected, pulled out (see selectedIndices).
    selectedMode: 'multiple',
    selectedOffset: 8,
  };
  const shown = labels.slice(0, 10).join(', ');
  return {
    dataset: [],
    series: [series],
    legend: true,
    trigger: 'item',
    zoom: false,
    description: `Pie chart of ${valueName} by ${columns.label('color')}: ${plural(slices.length, 'slice')} (${shown}${labels.length > 10 ? ', …' : ''}).`,
  };
}
