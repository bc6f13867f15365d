import * as echarts from 'echarts';
import { describe, expect, it } from 'vitest';
import { dendrogramPoints } from '../../src/charts/clustered-heatmap.js';
import {
  brushedRange,
  chartOption,
  clickedCategory,
  type FigureComponent,
  type FigureData,
  heatmapCellRows,
  selectedIndices,
} from '../../src/index.js';

const base = { type: 'figure', data_collection_id: 'dc' } as const;
const text = (name: string, column: string | null) => ({ name, type: 'string', column });
const double = (name: string, column: string | null) => ({ name, type: 'double', column });

const heatmapFigure: FigureComponent = {
  ...base,
  component_id: 'h',
  chart: 'clustered_heatmap',
  row: 'name',
  matrix_columns: ['s1', 's2'],
  annotations: ['kingdom'],
};
/** Rows r2, r1, r3 drawn in that order; r1 and r3 joined first, then r2 with them. */
const heatmapData: FigureData = {
  columns: [text('row', 'name'), text('column', null), double('value', null)],
  rows: [],
  sampled: true,
  total_rows: 3,
  matrix: {
    rows: ['r2', 'r1', 'r3'],
    columns: ['s2', 's1'],
    values: [5, 0, 1, 0, 1, 1],
    row_tree: [
      [1, 2, 1],
      [0, 3, 4.5],
    ],
    column_tree: [[0, 1, 2]],
    annotations: [{ name: 'kingdom', values: ['B', 'A', 'A'] }],
    total_rows: 10,
    total_columns: 2,
  },
};

const build = (component: FigureComponent, data: FigureData) => {
  const option = chartOption(component, data, { theme: 'light' });
  const json = JSON.parse(JSON.stringify(option));
  expect(json).toStrictEqual(option);
  return json as {
    series: Record<string, unknown>[];
    title: { subtext?: string };
    grid: unknown[];
    xAxis: { name?: string; data?: unknown[] }[] | { name?: string };
    yAxis: { data?: unknown[] }[];
    visualMap?: unknown;
  };
};

/** Items each series holds once ECharts has read the option (rendered to SVG on the server). */
function drawnCounts(component: FigureComponent, data: FigureData): number[] {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 640, height: 420, locale: 'EN' });
  try {
    chart.setOption(build(component, data) as echarts.EChartsOption);
    const model = (
      chart as unknown as { getModel(): { getSeries(): { getData(): { count(): number } }[] } }
    ).getModel();
    expect(chart.renderToSVGString().length).toBeGreaterThan(0);
    return model.getSeries().map((series) => series.getData().count());
  } finally {
    chart.dispose();
  }
}

describe('the charts of samples: options', () => {
  it('draws a dendrogram merge as a ⊓ from each child up to its height', () => {
    // Leaves 1 and 2 join at 1 (midway: 1.5), then leaf 0 with that merge at 4.5.
    expect(dendrogramPoints(heatmapData.matrix?.row_tree ?? [], 3)).toEqual([
      [
        [1, 0],
        [1, 1],
        [2, 1],
        [2, 0],
      ],
      [
        [0, 0],
        [0, 4.5],
        [1.5, 4.5],
        [1.5, 1],
      ],
    ]);
  });

  it('clustered heatmap: cells, both dendrograms and the annotation bars in four grids', () => {
    const option = build(heatmapFigure, heatmapData);
    expect(option.series.map((series) => series.type)).toEqual(['heatmap', 'line', 'line', 'heatmap']);
    expect(option.grid).toHaveLength(4);
    expect(option.yAxis[0]?.data).toEqual(['r2', 'r1', 'r3']);
    expect((option.xAxis as { data?: unknown[] }[])[0]?.data).toEqual(['s2', 's1']);
    expect(option.title.subtext).toBe('the 3 most variable rows of 10');
    // Each merge 4 points and a break; the annotation a cell per row.
    expect(drawnCounts(heatmapFigure, heatmapData)).toEqual([6, 10, 5, 3]);
  });

  it('clustered heatmap: a click on a cell filters its row, whose cells show selected', () => {
    expect(clickedCategory(heatmapFigure, heatmapData, { seriesIndex: 0, dataIndex: 2 })).toEqual({ value: 'r1' });
    expect(clickedCategory(heatmapFigure, heatmapData, { seriesIndex: 1, dataIndex: 2 })).toBeUndefined();
    expect(selectedIndices(heatmapFigure, heatmapData, ['r1'])).toEqual([2, 3]);
  });

  it('clustered heatmap: the matrix drawn cell by cell, a missing cell left out of the items', () => {
    const matrix = {
      ...(heatmapData.matrix as NonNullable<FigureData['matrix']>),
      values: [5, null, 1, 0.1234567, 1, 1],
    };
    const data = { ...heatmapData, matrix };
    const option = build(heatmapFigure, data) as unknown as { dataset: { source: unknown[][] }[] };
    expect(option.dataset[0]?.source).toEqual([
      ['r2', 's2', 5],
      ['r1', 's2', 1],
      ['r1', 's1', 0.123457],
      ['r3', 's2', 1],
      ['r3', 's1', 1],
    ]);
    // Items are the drawn cells: r2 has one, so the second item is r1's first.
    expect(clickedCategory(heatmapFigure, data, { seriesIndex: 0, dataIndex: 1 })).toEqual({ value: 'r1' });
    expect(selectedIndices(heatmapFigure, data, ['r1', 'r3'])).toEqual([1, 2, 3, 4]);
    expect(heatmapCellRows(data)).toEqual([
      ['r2', 's2', 5],
      ['r1', 's2', 1],
      ['r1', 's1', 0.1234567],
      ['r3', 's2', 1],
      ['r3', 's1', 1],
    ]);
    const empty = { ...heatmapData, matrix: { ...matrix, values: [null, null, null, null, null, null] } };
    expect(build(heatmapFigure, empty).title.subtext).toBe('no rows match the filters');
  });

  it('clustered heatmap: z-scores beside the raw values, on a scale symmetric around 0', () => {
    const figure: FigureComponent = { ...heatmapFigure, scale: 'row' };
    const matrix = {
      ...(heatmapData.matrix as NonNullable<FigureData['matrix']>),
      values: [0.123456789, -0.987654321, -2, 0, null, 0],
      raw: [5, 0, 1, 0, null, 1],
    };
    const data: FigureData = {
      ...heatmapData,
      columns: [...heatmapData.columns, double('raw', null)],
      matrix,
    };
    const option = build(figure, data) as unknown as { dataset: { source: unknown[][] }[]; visualMap: unknown[] };
    expect(option.dataset[0]?.source.slice(0, 3)).toEqual([
      ['r2', 's2', 0.123457, 5],
      ['r2', 's1', -0.987654, 0],
      ['r1', 's2', -2, 1],
    ]);
    expect(option.visualMap).toContainEqual(expect.objectContaining({ min: -2, max: 2 }));
    expect(heatmapCellRows(data)[0]).toEqual(['r2', 's2', 0.123456789, 5]);
    expect(heatmapCellRows(data)).toHaveLength(5);
  });

  it('embedding: computed PCA names its axes with the variance they explain; a brush selects x', () => {
    const figure: FigureComponent = { ...base, component_id: 'e', chart: 'embedding', pca_columns: ['u', 'v'] };
    const data: FigureData = {
      columns: [double('x', null), double('y', null)],
      rows: [
        [-1, 0.5],
        [1, -0.5],
      ],
      sampled: false,
      total_rows: 2,
      explained_variance: [0.8, 0.2],
    };
    const option = build(figure, data);
    expect((option.xAxis as { name?: string }).name).toBe('PC1 (80.0 %)');
    expect(drawnCounts(figure, data)).toEqual([2]);
    const given: FigureComponent = { ...base, component_id: 'e', chart: 'embedding', x: 'dim_1', y: 'dim_2' };
    expect(brushedRange(given, data, [{ coordRange: [0.5, -0.25] }])).toEqual([-0.25, 0.5]);
  });

  it('rarefaction: per curve a band (low and its height stacked) and the mean line', () => {
    const figure: FigureComponent = {
      ...base,
      component_id: 'r',
      chart: 'rarefaction',
      x: 'depth',
      y: 'm',
      color: 's',
    };
    const data: FigureData = {
      columns: [text('color', 's'), { name: 'x', type: 'long', column: 'depth' }, double('mean', 'm')].concat([
        double('low', 'm'),
        double('high', 'm'),
        { name: 'n', type: 'long', column: null },
      ]),
      rows: [
        ['a', 10, 2, 1, 3, 2],
        ['a', 20, 4, 4, 4, 2],
        ['b', 10, 2, 2, 2, 2],
      ],
      sampled: false,
      total_rows: 6,
      total_curves: 2,
    };
    const option = build(figure, data) as unknown as { series: { name: string }[]; dataset: { source: unknown[][] }[] };
    expect(option.series.map((series) => series.name)).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
    expect(option.dataset[0]?.source).toEqual([
      [10, 2, 1, 2, 2],
      [20, 4, 4, 0, 2],
    ]);
    expect(drawnCounts(figure, data)).toEqual([2, 2, 2, 1, 1, 1]);
  });

  it('oncoplot: the alterations coloured by a map of pieces, the marginal bars, the genes left out said', () => {
    const figure: FigureComponent = { ...base, component_id: 'o', chart: 'oncoplot', x: 's', y: 'g', color: 'a' };
    const data: FigureData = {
      columns: [text('x', 's'), text('y', 'g'), text('color', 'a')],
      rows: [
        ['S1', 'KRAS', 'missense'],
        ['S3', 'KRAS', 'amplification'],
        ['S1', 'TP53', 'multiple'],
      ],
      sampled: false,
      total_rows: 5,
      oncoplot: {
        genes: [
          { name: 'KRAS', count: 2 },
          { name: 'TP53', count: 1 },
        ],
        samples: [
          { name: 'S1', count: 2 },
          { name: 'S3', count: 1 },
          { name: 'S2', count: 0 },
        ],
        total_genes: 3,
      },
    };
    const option = build(figure, data);
    expect(option.series.map((series) => series.name)).toEqual(['a', 'altered genes', 'altered samples']);
    const alterations = option.visualMap as { pieces: { label: string }[] };
    expect(alterations.pieces.map((piece) => piece.label)).toEqual(['missense', 'amplification', 'multiple']);
    expect(option.title.subtext).toBe('the 2 most altered genes of 3');
    expect(drawnCounts(figure, data)).toEqual([3, 3, 2]);
  });
});

describe('a click on an oncoplot', () => {
  const figure: FigureComponent = { ...base, component_id: 'o', chart: 'oncoplot', x: 's', y: 'g', color: 'a' };
  const data: FigureData = {
    columns: [text('x', 's'), text('y', 'g'), text('color', 'a')],
    rows: [
      ['S1', 'TP53', 'missense'],
      ['S2', 'KRAS', 'nonsense'],
    ],
    sampled: false,
    total_rows: 2,
    oncoplot: {
      genes: [
        { name: 'KRAS', count: 1 },
        { name: 'TP53', count: 1 },
      ],
      samples: [
        { name: 'S1', count: 1 },
        { name: 'S2', count: 1 },
      ],
      total_genes: 2,
    },
  };

  it('filters by the gene of a cell or of a gene’s bar, not by a sample’s bar', () => {
    expect(clickedCategory(figure, data, { seriesIndex: 0, dataIndex: 1 })).toEqual({ value: 'KRAS' });
    expect(clickedCategory(figure, data, { seriesIndex: 2, dataIndex: 1 })).toEqual({ value: 'TP53' });
    expect(clickedCategory(figure, data, { seriesIndex: 1, dataIndex: 0 })).toBeUndefined();
  });
});
