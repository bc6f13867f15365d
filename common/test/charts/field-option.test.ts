import * as echarts from 'echarts';
import { describe, expect, it } from 'vitest';
import { chromosomeList } from '../../src/charts/field.js';
import { brushedRange, chartOption, type FigureComponent, type FigureData } from '../../src/index.js';

const base = { type: 'figure', data_collection_id: 'dc' } as const;
const double = (name: string, column: string | null) => ({ name, type: 'double', column });

const volcanoFigure: FigureComponent = {
  ...base,
  component_id: 'v',
  chart: 'volcano',
  x: 'lfc',
  y: 'q',
  label: 'gene',
};
const volcanoData: FigureData = {
  columns: [
    double('x', 'lfc'),
    double('y', 'q'),
    double('minus_log10_y', 'q'),
    { name: 'label', type: 'string', column: 'gene' },
    { name: 'class', type: 'string', column: null },
  ],
  rows: [
    [-3, 0.001, 3, 'b', 'down'],
    [0.5, 0.001, 3, 'e', 'ns'],
    [2, 0.01, 2, 'a', 'up'],
    [4, 0, 3, 'i', 'up'],
  ],
  sampled: false,
  total_rows: 11,
  counts: { up: 2, down: 1, ns: 1 },
  capped: 1,
};

const manhattanFigure: FigureComponent = {
  ...base,
  component_id: 'g',
  chart: 'manhattan',
  chromosome: 'chrom',
  position: 'pos',
  y: 'p',
};
const manhattanData: FigureData = {
  columns: [
    { name: 'chromosome', type: 'string', column: 'chrom' },
    double('position', 'pos'),
    double('genome_position', null),
    double('y', 'p'),
    double('minus_log10_y', 'p'),
  ],
  rows: [
    ['1', 100, 100, 0.5, 0.301],
    ['1', 200, 200, 1e-9, 9],
    ['2', 50, 250, 0.01, 2],
  ],
  sampled: false,
  total_rows: 3,
  significant: 1,
  chromosomes: [
    { name: '1', offset: 0, length: 200 },
    { name: '2', offset: 200, length: 50 },
  ],
};

const qqFigure: FigureComponent = { ...base, component_id: 'q', chart: 'qq', y: 'p' };
const qqData: FigureData = {
  columns: [double('expected', null), double('observed', 'p')],
  rows: [
    [0.046, 0.301],
    [1, 1],
  ],
  sampled: false,
  total_rows: 2,
  lambda: 1.2345,
};

const build = (component: FigureComponent, data: FigureData) => {
  const option = chartOption(component, data, { theme: 'light' });
  const json = JSON.parse(JSON.stringify(option));
  expect(json).toStrictEqual(option);
  return json as { series: Record<string, unknown>[]; title: { subtext?: string }; dataset: { source: unknown[] }[] };
};

function drawnCounts(component: FigureComponent, data: FigureData): number[] {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 480, height: 320, locale: 'EN' });
  try {
    chart.setOption(build(component, data) as echarts.EChartsOption);
    const model = (
      chart as unknown as { getModel(): { getSeries(): { getData(): { count(): number } }[] } }
    ).getModel();
    return model.getSeries().map((series) => series.getData().count());
  } finally {
    chart.dispose();
  }
}

describe('the field charts’ options', () => {
  it('volcano: a series per class, threshold lines, the top hits named, counts under the title', () => {
    const option = build(volcanoFigure, volcanoData);
    expect(option.series.map((series) => series.name)).toEqual([
      'up',
      'down',
      'not significant',
      'top hits',
      'top hits',
    ]);
    expect(option.series[0]?.markLine).toMatchObject({
      data: [{ xAxis: 1 }, { xAxis: -1 }, { yAxis: 2 - Math.log10(5) }],
    });
    expect(option.title.subtext).toBe('2 up, 1 down · 1 p value of 0 drawn at the top');
    // The hits by p: those left of the middle of x (−3…4) named on their right, the others on their left.
    const named = (at: number) => option.dataset[at]?.source.map((row) => (row as unknown[])[3]);
    expect([named(3), named(4)]).toEqual([['b'], ['i', 'a']]);
    expect(drawnCounts(volcanoFigure, volcanoData)).toEqual([2, 1, 1, 1, 2]);
  });

  it('volcano: a name points into the plot, not past the chart’s edge', () => {
    const svg = renderedSvg(volcanoFigure, volcanoData);
    const anchorOf = (name: string) => svg.match(new RegExp(`<text[^>]*text-anchor="(\\w+)"[^>]*>${name}</text>`))?.[1];
    // The hit at the right edge (x = 4) ends at its point; the one at the left edge starts there.
    expect(anchorOf('i')).toBe('end');
    expect(anchorOf('b')).toBe('start');
  });

  it('volcano: a brush selects a range of the fold change', () => {
    expect(brushedRange(volcanoFigure, volcanoData, [{ coordRange: [2.5, -0.5] }])).toEqual([-0.5, 2.5]);
  });

  it('manhattan: chromosomes in alternating series, the genome-wide line', () => {
    const option = build(manhattanFigure, manhattanData);
    expect(option.series[0]?.markLine).toMatchObject({ data: [{ yAxis: -Math.log10(5e-8) }] });
    expect(drawnCounts(manhattanFigure, manhattanData)).toEqual([2, 1]);
    expect(option.title.subtext).toBe('1 significant');
    expect(chartOption(manhattanFigure, manhattanData, { theme: 'light' }).aria).toMatchObject({
      label: {
        description: expect.stringContaining(
          'along 2 chromosomes (1, 2), 3 points drawn, 1 below the genome-wide line at 5e-8.',
        ),
      },
    });
  });

  it('manhattan: each chromosome named under its band, no positions laid end to end', () => {
    const chromosomes = [
      { name: 'chr1', offset: 0, length: 200 },
      { name: 'chr2', offset: 200, length: 50 },
      { name: 'chrM', offset: 250, length: 1 },
    ];
    const rows = [
      ['chr1', 100, 100, 0.5, 0.301],
      ['chr2', 20, 220, 1e-9, 9],
      ['chrM', 1, 251, 0.01, 2],
    ];
    const svg = renderedSvg(manhattanFigure, { ...manhattanData, rows, chromosomes });
    expect(svg).toContain('>chr1</text>');
    expect(svg).toContain('>chr2</text>');
    // Under 1/60 of the genome: its name would run into its neighbour's.
    expect(svg).not.toContain('>chrM</text>');
    // The axis ends with the last chromosome and writes no cumulative positions.
    for (const position of ['50', '100', '150', '200', '250', '300']) expect(svg).not.toContain(`>${position}</text>`);
    expect(build(manhattanFigure, { ...manhattanData, rows, chromosomes })).toMatchObject({
      xAxis: { name: 'chrom', min: 0, max: 251 },
    });
  });

  it('manhattan: the description names the chromosomes in drawing order, runs of numbers as one', () => {
    const names = [...Array.from({ length: 22 }, (_, i) => String(i + 1)), 'X', 'Y', 'MT'];
    expect(chromosomeList(names)).toBe(' (1–22, X, Y, MT)');
    expect(chromosomeList(['1', '2', '4', '5', '6', 'X'])).toBe(' (1, 2, 4–6, X)');
    expect(chromosomeList([])).toBe('');
    expect(chromosomeList(Array.from({ length: 40 }, (_, i) => `c${i}`))).toMatch(/^ \(c0, c1, .*, c29, …\)$/);
  });

  it('qq: the points, the diagonal and λ', () => {
    const option = build(qqFigure, qqData);
    expect(option.title.subtext).toBe('λ = 1.234');
    expect(drawnCounts(qqFigure, qqData)).toEqual([2]);
  });

  it('many points: drawn as a few paths, not an element a point; the named hits stay labelled', () => {
    const many = Array.from({ length: 3_000 }, (_, at) => [at / 1_000 - 1.5, 0.5, 0.3, `g${at}`, 'ns']);
    const data: FigureData = { ...volcanoData, rows: [...volcanoData.rows, ...many], total_rows: 3_004 };
    const svg = renderedSvg(volcanoFigure, data);
    expect((svg.match(/<path/g) ?? []).length).toBeLessThan(200);
    expect(svg).toContain('>i<');
    // Below ECharts' threshold each point is its own shape, as a tooltip or hover expects.
    expect((renderedSvg(volcanoFigure, volcanoData).match(/<path/g) ?? []).length).toBeGreaterThanOrEqual(4);
  });

  it('many points in all: each class one path, also one of fewer than 2,000 points', () => {
    // A thinned volcano: about as many points of each class, none over ECharts' threshold alone.
    const classes = ['up', 'down', 'ns'].flatMap((name, k) =>
      Array.from({ length: 1_500 }, (_, at) => [k - 1 + at / 10_000, 0.01, 2, `${name}${at}`, name]),
    );
    const data = { ...volcanoData, rows: classes, total_rows: 4_500 };
    const svg = renderedSvg(volcanoFigure, data);
    expect((svg.match(/<path/g) ?? []).length).toBeLessThan(200);
    // Drawn in one frame, not 400 points a frame (a canvas's progressive drawing).
    const { series } = build(volcanoFigure, data);
    expect(series.slice(0, 3).map((one) => one.progressive)).toEqual([0, 0, 0]);
  });

  it('many points: no transition, each of whose frames would paint them all again; few still move', () => {
    const many = Array.from({ length: 2_500 }, (_, at) => ['1', at, at, 0.5, 0.3]);
    const moving = (option: object) => (option as { animation?: boolean }).animation;
    expect(moving(chartOption(manhattanFigure, { ...manhattanData, rows: many }, { theme: 'light' }))).toBe(false);
    expect(moving(chartOption(manhattanFigure, manhattanData, { theme: 'light' }))).toBeUndefined();
    expect(moving(chartOption(volcanoFigure, volcanoData, { theme: 'light' }))).toBeUndefined();
  });
});

function renderedSvg(component: FigureComponent, data: FigureData): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 480, height: 320, locale: 'EN' });
  try {
    chart.setOption({ ...(build(component, data) as echarts.EChartsOption), animation: false });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
