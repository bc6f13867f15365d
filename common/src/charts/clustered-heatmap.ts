import type { GridComponentOption, HeatmapSeriesOption, LineSeriesOption, VisualMapComponentOption } from 'echarts';
import type { FigureData } from '../dashboard-data.js';
import { type ChartBody, type ChartInput, plural } from './body.js';
import { colorScale } from './color-scale.js';
import { categoryLabel, rounded } from './columns.js';
import { type AxisOption, axis } from './parts.js';

/**
 * A clustered heatmap (server: analytics/components/clustered-heatmap.ts): the cells in the
 * dendrograms' order, the row dendrogram on the left, the column one on top and the annotation
 * bars between the row dendrogram and the cells. Four grids share the rows' and columns'
 * positions: each leaf of a dendrogram sits on its row's (column's) index.
 */

type Matrix = NonNullable<FigureData['matrix']>;
type Merges = Matrix['row_tree'];

const EMPTY: Matrix = {
  rows: [],
  columns: [],
  values: [],
  row_tree: null,
  column_tree: null,
  annotations: [],
  total_rows: 0,
  total_columns: 0,
};
/** Pixels above the cells for the column dendrogram, and below them for column labels and the scale. */
const COLUMN_TREE_HEIGHT = 48;
/**
 * A column label turned by 45° and cut at 80 px reaches ~73 px below the cells (its margin
 * included), the colour scale with its handles' numbers ~30 px more: at 96 the scale lay over
 * the longest labels (sample ids of eleven characters) and hid its own numbers.
 */
const BOTTOM = 112;
/** Pixels right of the cells for the row labels. */
const RIGHT = 110;

/**
 * A dendrogram's segments as one polyline broken by '-' (ECharts' empty value): each merge a ⊓
 * from one child's (position, height) up to the merge's height, across to the other child and
 * down. Positions of leaves are their indices; a merge sits halfway between its children.
 */
export function dendrogramPoints(merges: NonNullable<Merges>, leaves: number): [number, number][][] {
  const position: number[] = Array.from({ length: leaves }, (_, i) => i);
  const height: number[] = new Array<number>(leaves).fill(0);
  return merges.map(([a, b, h]) => {
    const [pa, pb] = [position[a] ?? 0, position[b] ?? 0];
    position.push((pa + pb) / 2);
    height.push(h);
    return [
      [pa, height[a] ?? 0],
      [pa, h],
      [pb, h],
      [pb, height[b] ?? 0],
    ];
  });
}

function treeSeries(merges: Merges, leaves: number, index: number, across: boolean, color: string): LineSeriesOption[] {
  if (merges === null || merges.length === 0) return [];
  const data = dendrogramPoints(merges, leaves).flatMap((shape) => [
    ...shape.map(([position, height]) => (across ? [height, position] : [position, height])),
    '-',
  ]);
  return [
    {
      type: 'line',
      name: across ? 'row dendrogram' : 'column dendrogram',
      xAxisIndex: index,
      yAxisIndex: index,
      data: data as LineSeriesOption['data'],
      showSymbol: false,
      silent: true,
      connectNulls: false,
      lineStyle: { color, width: 1 },
      tooltip: { show: false },
    },
  ];
}

/** Each annotation label's code (its position among all annotations' labels) and colour. */
function annotationLabels(input: ChartInput, matrix: Matrix): Map<string, { code: number; color: string }> {
  const labels = new Map<string, { code: number; color: string }>();
  for (const annotation of matrix.annotations) {
    for (const value of annotation.values) {
      const label = categoryLabel(value);
      if (!labels.has(label)) labels.set(label, { code: labels.size, color: input.colors.of(label) });
    }
  }
  return labels;
}

/** The annotation bars: a heatmap of label codes, coloured by a visual map of pieces (`annotationMap`). */
function annotationSeries(input: ChartInput, matrix: Matrix): HeatmapSeriesOption[] {
  if (matrix.annotations.length === 0) return [];
  const labels = annotationLabels(input, matrix);
  const data = matrix.annotations.flatMap((annotation) =>
    annotation.values.map((value, at) => {
      const label = categoryLabel(value);
      return {
        name: `${annotation.name}: ${label}`,
        value: [annotation.name, matrix.rows[at] ?? '', labels.get(label)?.code ?? 0],
      };
    }),
  );
  return [
    {
      type: 'heatmap',
      name: 'annotations',
      xAxisIndex: 3,
      yAxisIndex: 3,
      data,
      emphasis: { disabled: true },
      tooltip: { formatter: '{b}' },
    },
  ];
}

function annotationMap(input: ChartInput, matrix: Matrix, seriesIndex: number): VisualMapComponentOption[] {
  if (matrix.annotations.length === 0) return [];
  const pieces = [...annotationLabels(input, matrix)].map(([label, { code, color }]) => ({
    value: code,
    label,
    color,
  }));
  return [{ type: 'piecewise', show: false, seriesIndex, dimension: 2, pieces }];
}

interface Layout {
  top: number;
  treeLeft: string;
  barsLeft: string;
  cellsLeft: string;
}

/** Left edges, in % of the width: the row dendrogram (12 %), the annotation bars (3 % each), the cells. */
function layoutOf(matrix: Matrix, top: number): Layout {
  const tree = matrix.row_tree === null ? 0 : 12;
  const bars = matrix.annotations.length * 3;
  return {
    top: top + (matrix.column_tree === null ? 0 : COLUMN_TREE_HEIGHT),
    treeLeft: '1%',
    barsLeft: `${1 + tree}%`,
    cellsLeft: `${1.5 + tree + bars}%`,
  };
}

const hidden = (palette: ChartInput['palette'], min: number, max: number, inverse = false): AxisOption => ({
  ...axis({ name: '', kind: 'value', min, max, show: false }, palette, 'x'),
  ...(inverse ? { inverse: true } : {}),
});

function frameOf(input: ChartInput, matrix: Matrix) {
  const { palette } = input;
  return (top: number) => {
    const layout = layoutOf(matrix, top);
    const cells: GridComponentOption = { left: layout.cellsLeft, right: RIGHT, top: layout.top, bottom: BOTTOM };
    const rowsAt = { top: layout.top, bottom: BOTTOM };
    const grids: GridComponentOption[] = [
      cells,
      { ...rowsAt, left: layout.treeLeft, width: '11%' },
      { left: layout.cellsLeft, right: RIGHT, top, height: COLUMN_TREE_HEIGHT - 4 },
      { ...rowsAt, left: layout.barsLeft, width: `${matrix.annotations.length * 3}%` },
    ];
    const rowSpan = [-0.5, Math.max(0, matrix.rows.length - 0.5)] as const;
    const columnSpan = [-0.5, Math.max(0, matrix.columns.length - 0.5)] as const;
    const category = (names: string[], position: 'x' | 'y', show = true) => ({
      ...axis({ name: '', kind: 'category', categories: names, show }, palette, position),
      axisTick: { show: false },
      axisLine: { show: false },
    });
    const cellX = category(matrix.columns, 'x');
    const cellY = { ...category(matrix.rows, 'y'), inverse: true, position: 'right' as const };
    const trees = [matrix.row_tree, matrix.column_tree].filter((tree) => tree !== null && tree.length > 0).length;
    return {
      visualMap: annotationMap(input, matrix, 1 + trees),
      grid: grids.map((grid) => ({ ...grid, outerBoundsMode: 'none' as const })),
      xAxis: [
        {
          ...cellX,
          axisLabel: { ...cellX.axisLabel, rotate: 45, width: 80, overflow: 'truncate' as const, interval: 0 },
        },
        { ...hidden(palette, 0, treeTop(matrix.row_tree), true), gridIndex: 1 },
        { ...hidden(palette, columnSpan[0], columnSpan[1]), gridIndex: 2 },
        {
          ...category(
            matrix.annotations.map((annotation) => annotation.name),
            'x',
            false,
          ),
          gridIndex: 3,
        },
      ] as AxisOption[],
      yAxis: [
        { ...cellY, axisLabel: { ...cellY.axisLabel, width: RIGHT - 10, overflow: 'truncate' as const } },
        { ...hidden(palette, rowSpan[0], rowSpan[1], true), gridIndex: 1 },
        { ...hidden(palette, 0, treeTop(matrix.column_tree)), gridIndex: 2 },
        { ...category(matrix.rows, 'y', false), inverse: true, gridIndex: 3 },
      ] as AxisOption[],
    };
  };
}

const treeTop = (merges: Merges) => Math.max(0, ...(merges ?? []).map(([, , height]) => height)) || 1;

/**
 * The drawn cells (those with a value) as the dataset's rows, `[row, column, value, raw?]` with
 * numbers rounded for display, and their range (null without any).
 */
function cellSource(matrix: Matrix, scaled: boolean) {
  const source: (string | number | null)[][] = [];
  let [low, high] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
  forEachCell(matrix, (row, column, at) => {
    const value = rounded(matrix.values[at]);
    if (value === null) return;
    const [rowLabel, columnLabel] = [matrix.rows[row] ?? '', matrix.columns[column] ?? ''];
    source.push(scaled ? [rowLabel, columnLabel, value, rounded(matrix.raw?.[at])] : [rowLabel, columnLabel, value]);
    low = Math.min(low, value);
    high = Math.max(high, value);
  });
  return { source, range: source.length === 0 ? null : { min: low, max: high } };
}

/** Visits each cell of the matrix with a value, row by row in drawing order. */
function forEachCell(matrix: Matrix, visit: (row: number, column: number, at: number) => void): void {
  const width = matrix.columns.length;
  for (let row = 0; row < matrix.rows.length; row++) {
    for (let column = 0; column < width; column++) {
      const at = row * width + column;
      const value = matrix.values[at];
      if (value !== null && value !== undefined && Number.isFinite(value)) visit(row, column, at);
    }
  }
}

export function clusteredHeatmap(input: ChartInput): ChartBody {
  const { columns, data, palette, component } = input;
  const matrix = data.matrix ?? EMPTY;
  const scaled = component.scale === 'row';
  const { source, range } = cellSource(matrix, scaled);
  // A z-score scale is symmetric around 0.
  const extreme = range === null ? 0 : Math.max(Math.abs(range.min), Math.abs(range.max));
  const valueName = scaled
    ? 'z-score'
    : columns.has('value') && columns.label('value') !== 'value'
      ? columns.label('value')
      : 'value';
  const cells: HeatmapSeriesOption = {
    type: 'heatmap',
    name: valueName,
    datasetIndex: 0,
    encode: { x: 'column', y: 'row', tooltip: ['row', 'column', 'value', ...(scaled ? ['raw'] : [])] },
    selectedMode: 'multiple',
    select: { itemStyle: { borderColor: palette.text, borderWidth: 1 } },
    emphasis: { itemStyle: { borderColor: palette.text, borderWidth: 1 } },
  };
  return {
    dataset: [
      {
        dimensions: [
          { name: 'row', displayName: columns.label('row'), type: 'ordinal' },
          { name: 'column', displayName: component.column ?? 'column', type: 'ordinal' },
          { name: 'value', displayName: valueName, type: 'float' },
          ...(scaled ? [{ name: 'raw', displayName: 'value', type: 'float' as const }] : []),
        ],
        source,
      },
    ],
    series: [
      cells,
      ...treeSeries(matrix.row_tree, matrix.rows.length, 1, true, palette.dimmed),
      ...treeSeries(matrix.column_tree, matrix.columns.length, 2, false, palette.dimmed),
      ...annotationSeries(input, matrix),
    ],
    frameAt: frameOf(input, matrix),
    legend: false,
    trigger: 'item',
    visualMap: colorScale(
      palette,
      [],
      scaled
        ? {
            seriesIndex: 0,
            dimension: 2,
            range: { min: -extreme, max: extreme },
            colors: [palette.series[0] ?? '', palette.splitLine, palette.series[4] ?? ''],
          }
        : { seriesIndex: 0, dimension: 2, range: range ?? { min: 0, max: 1 } },
    ),
    zoom: false,
    description: heatmapSentence(input, matrix),
  };
}

function heatmapSentence(input: ChartInput, matrix: Matrix): string {
  const { component } = input;
  const shape = `${plural(matrix.rows.length, 'row')} by ${plural(matrix.columns.length, 'column')}`;
  const clustered = [matrix.row_tree && 'rows', matrix.column_tree && 'columns'].filter(Boolean).join(' and ');
  const how = clustered ? `, ${clustered} clustered (average linkage on Euclidean distances)` : '';
  const scaled = component.scale === 'row' ? ', each row scaled to z-scores' : '';
  const bars =
    matrix.annotations.length > 0 ? `, annotated by ${matrix.annotations.map((a) => a.name).join(', ')}` : '';
  return `Clustered heatmap of ${shape}${how}${scaled}${bars}.`;
}

/** How many cells the heatmap draws: those with a value. */
export function heatmapCellCount(matrix: Matrix): number {
  let count = 0;
  forEachCell(matrix, () => {
    count++;
  });
  return count;
}

/**
 * The drawn cells as the answer's columns order them, `[row, column, value, raw?]`, row by row in
 * drawing order: what a row per cell would have been (the CSV export).
 */
export function heatmapCellRows(data: FigureData): (string | number | null)[][] {
  const matrix = data.matrix ?? EMPTY;
  const withRaw = data.columns.some((column) => column.name === 'raw');
  const rows: (string | number | null)[][] = [];
  forEachCell(matrix, (row, column, at) => {
    const cell = [matrix.rows[row] ?? '', matrix.columns[column] ?? '', matrix.values[at] ?? null];
    rows.push(withRaw ? [...cell, matrix.raw?.[at] ?? null] : cell);
  });
  return rows;
}

/** The row label of a clicked cell (the cells' series only: dendrograms and bars filter nothing). */
export function clickedHeatmapRow(data: FigureData, click: { seriesIndex?: number; dataIndex?: number }): unknown {
  if (click.seriesIndex !== 0 || click.dataIndex === undefined || data.matrix === undefined) return undefined;
  // The series' items are the drawn cells only: the clicked one is the dataIndex-th of them.
  const { matrix } = data;
  let label: string | undefined;
  let item = 0;
  forEachCell(matrix, (row) => {
    if (item++ === click.dataIndex) label = matrix.rows[row];
  });
  return label;
}

/** The cells (the series' items) of the rows a click filter selects. */
export function selectedHeatmapCells(data: FigureData, chosen: (value: unknown) => boolean): number[] {
  const matrix = data.matrix ?? EMPTY;
  const selected: number[] = [];
  let item = 0;
  forEachCell(matrix, (row) => {
    if (chosen(matrix.rows[row])) selected.push(item);
    item++;
  });
  return selected;
}
