import type {
  BarSeriesOption,
  DatasetComponentOption,
  HeatmapSeriesOption,
  LineSeriesOption,
  VisualMapComponentOption,
} from 'echarts';
import type { FigureData } from '../dashboard-data.js';
import { type ChartBody, type ChartInput, plural } from './body.js';
import { Categories, type Cell, cell, listAt, rounded } from './columns.js';
import { type AxisOption, axis } from './parts.js';

/**
 * Rarefaction curves and oncoplots (server: analytics/components/sample-charts.ts); the clustered
 * heatmap is in clustered-heatmap.ts, embeddings in embedding.ts.
 */

/** Rows of each curve (by `color`, one curve without it), in the answer's order. */
function curves(input: ChartInput): { names: Categories; rows: unknown[][][] } {
  const { columns, data } = input;
  const names = new Categories();
  const rows: unknown[][][] = [];
  for (const row of data.rows) {
    const at = names.add(columns.has('color') ? columns.value(row, 'color') : null);
    listAt(rows, at).push(row);
  }
  return { names, rows };
}

/**
 * Each curve's mean along x and its band: an invisible line at `low` with the band's height
 * (`high` − `low`) stacked on it as an area. The three series share the curve's name, so its
 * legend entry hides them together.
 */
export function rarefaction(input: ChartInput): ChartBody {
  const { columns, component, palette } = input;
  const { names, rows } = curves(input);
  const dataset: DatasetComponentOption[] = rows.map((curveRows) => ({
    dimensions: [
      { name: 'x', displayName: columns.label('x'), type: 'float' },
      { name: 'mean', displayName: `mean ${columns.label('mean')}`, type: 'float' },
      { name: 'low', type: 'float' },
      { name: 'span', type: 'float' },
      { name: 'n', displayName: 'rows', type: 'int' },
    ],
    source: curveRows.map((row) => {
      const low = rounded(columns.value(row, 'low'));
      const high = rounded(columns.value(row, 'high'));
      const span = low === null || high === null ? null : rounded(high - low);
      return [
        cell(columns.value(row, 'x')),
        rounded(columns.value(row, 'mean')),
        low,
        span,
        cell(columns.value(row, 'n')),
      ] as Cell[];
    }),
  }));
  const series = dataset.flatMap((_, index): LineSeriesOption[] => {
    const name = columns.has('color') ? (names.labels[index] ?? '') : `mean ${columns.label('mean')}`;
    const color = columns.has('color') ? input.colors.of(name) : (palette.series[0] ?? '');
    const band = { type: 'line' as const, name, datasetIndex: index, stack: `band ${index}`, showSymbol: false };
    const invisible = { lineStyle: { opacity: 0 }, tooltip: { show: false }, silent: true };
    return [
      { ...band, ...invisible, encode: { x: 'x', y: 'low' }, itemStyle: { color } },
      {
        ...band,
        ...invisible,
        encode: { x: 'x', y: 'span' },
        itemStyle: { color },
        areaStyle: { color, opacity: 0.18 },
      },
      {
        type: 'line',
        name,
        datasetIndex: index,
        encode: { x: 'x', y: 'mean', tooltip: ['x', 'mean', 'n'] },
        itemStyle: { color },
        symbolSize: 4,
      },
    ];
  });
  const band = component.band === 'range' ? 'min–max' : '± 1 standard deviation';
  return {
    dataset,
    series,
    x: { name: columns.label('x'), kind: 'value', integer: columns.isInteger('x') },
    y: { name: columns.label('mean'), kind: 'value' },
    legend: columns.has('color'),
    trigger: 'item',
    zoom: false,
    description: `Rarefaction curves of mean ${columns.label('mean')} by ${columns.label('x')} with a ${band} band, ${plural(names.size, 'curve')}${columns.has('color') ? ` by ${columns.label('color')}` : ''}.`,
  };
}

type Oncoplot = NonNullable<FigureData['oncoplot']>;

/** Pixels for the samples' bars above the cells and the genes' bars right of them. */
const ONCO_TOP_BARS = 56;
const ONCO_RIGHT_BARS = 80;

/**
 * An oncoplot: a cell per altered sample and gene, one heatmap series per kind of alteration
 * (the legend toggles them), the samples' alteration counts as bars above and the genes' beside.
 */
export function oncoplot(input: ChartInput): ChartBody {
  const { columns, data, palette } = input;
  const summary: Oncoplot = data.oncoplot ?? { genes: [], samples: [], total_genes: 0 };
  const kinds = new Categories();
  const cells = data.rows.map((row) => {
    const [sample, gene] = [String(columns.value(row, 'x')), String(columns.value(row, 'y'))];
    const code = kinds.add(columns.value(row, 'color'));
    return { name: `${kinds.labels[code] ?? ''}: ${sample}, ${gene}`, value: [sample, gene, code] };
  });
  const bars = (values: number[], index: number): BarSeriesOption => ({
    type: 'bar',
    name: index === 1 ? 'altered genes' : 'altered samples',
    xAxisIndex: index,
    yAxisIndex: index,
    data: values,
    itemStyle: { color: palette.other },
    barCategoryGap: '20%',
  });
  const alterations: VisualMapComponentOption = {
    type: 'piecewise',
    seriesIndex: 0,
    dimension: 2,
    orient: 'horizontal',
    left: 'center',
    bottom: 0,
    pieces: kinds.labels.map((label, code) => ({ value: code, label, color: input.colors.of(label) })),
    textStyle: { color: palette.dimmed },
  };
  return {
    dataset: [],
    series: [
      {
        type: 'heatmap',
        name: columns.label('color'),
        data: cells,
        itemStyle: { borderColor: palette.splitLine, borderWidth: 1 },
        tooltip: { formatter: '{b}' },
      } satisfies HeatmapSeriesOption,
      bars(
        summary.samples.map((sample) => sample.count),
        1,
      ),
      bars(
        summary.genes.map((gene) => gene.count),
        2,
      ),
    ],
    frameAt: oncoplotFrame(input, summary),
    legend: false,
    trigger: 'item',
    visualMap: alterations,
    zoom: false,
    description: `Oncoplot of ${plural(summary.genes.length, 'gene')} (${columns.label('y')}) across ${plural(summary.samples.length, 'sample')} (${columns.label('x')}), alterations by ${columns.label('color')}: ${kinds.labels.join(', ')}.`,
  };
}

function oncoplotFrame(input: ChartInput, summary: Oncoplot) {
  const { palette, columns } = input;
  const samples = summary.samples.map((sample) => sample.name);
  const genes = summary.genes.map((gene) => gene.name);
  const category = (names: string[], position: 'x' | 'y', name = '', show = true): AxisOption => ({
    ...axis({ name, kind: 'category', categories: names, show }, palette, position),
    axisTick: { show: false },
  });
  const value = (position: 'x' | 'y'): AxisOption => ({
    ...axis({ name: '', kind: 'value', fromZero: true, integer: true }, palette, position),
    splitLine: { show: false },
    axisLabel: { show: false },
  });
  return (top: number) => {
    const cellsTop = top + ONCO_TOP_BARS;
    const left = 90;
    return {
      grid: [
        { left, right: ONCO_RIGHT_BARS, top: cellsTop, bottom: 40 },
        { left, right: ONCO_RIGHT_BARS, top, height: ONCO_TOP_BARS - 6 },
        { right: 8, width: ONCO_RIGHT_BARS - 14, top: cellsTop, bottom: 40 },
      ].map((grid) => ({ ...grid, outerBoundsMode: 'none' as const })),
      xAxis: [
        { ...category(samples, 'x', columns.label('x')), axisLabel: { show: false } },
        { ...category(samples, 'x', '', false), gridIndex: 1 },
        { ...value('x'), gridIndex: 2 },
      ] as AxisOption[],
      yAxis: [
        { ...category(genes, 'y'), inverse: true },
        { ...value('y'), gridIndex: 1 },
        { ...category(genes, 'y', '', false), inverse: true, gridIndex: 2 },
      ] as AxisOption[],
    };
  };
}

/**
 * The gene a click on an oncoplot filters by: a cell's (the heatmap, series 0) or a gene's bar
 * beside it (series 2); undefined for the samples' bars above.
 */
export function clickedOncoplotGene(data: FigureData, click: { seriesIndex?: number; dataIndex?: number }): unknown {
  if (click.dataIndex === undefined) return undefined;
  if (click.seriesIndex === 2) return data.oncoplot?.genes[click.dataIndex]?.name;
  if (click.seriesIndex !== 0) return undefined;
  const at = data.columns.findIndex((column) => column.name === 'y');
  return data.rows[click.dataIndex]?.[at];
}
