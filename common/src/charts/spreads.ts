import type { LineSeriesOption, ScatterSeriesOption } from 'echarts';
import type { FigureComponent } from '../dashboard-components.js';
import type { FigureData } from '../dashboard-data.js';
import { type ChartBody, type ChartInput, manyPoints, plural } from './body.js';
import { Categories, categoryLabel, rounded } from './columns.js';

/**
 * Strips, ECDFs and 2-D densities: the server sampled, stepped or gridded the rows
 * (analytics/components/spreads.ts); these draw them. Each is brushed along x (a range of values).
 */

/** Jittered points along x, one strip per category (y), a series per group (color). */
export function strip(input: ChartInput): ChartBody {
  const { columns, data, palette } = input;
  const strips = new Categories();
  const groups = new Categories();
  const byGroup: [number | null, string][][] = [];
  for (const row of data.rows) {
    const stripLabel = categoryLabel(columns.has('y') ? columns.value(row, 'y') : columns.label('x'));
    strips.add(stripLabel);
    const group = groups.add(columns.has('color') ? columns.value(row, 'color') : null);
    byGroup[group] = [...(byGroup[group] ?? []), [rounded(columns.value(row, 'x')), stripLabel]];
  }
  const hasColor = columns.has('color');
  const series = groups.labels.map(
    (label, index): ScatterSeriesOption => ({
      type: 'scatter',
      name: hasColor ? label : columns.label('x'),
      data: byGroup[index] ?? [],
      symbolSize: 6,
      itemStyle: { color: hasColor ? input.colors.of(label) : (palette.series[0] ?? ''), opacity: 0.7 },
      ...manyPoints(input.data.rows.length),
    }),
  );
  return {
    dataset: [],
    series,
    x: { name: columns.label('x'), kind: 'value' },
    // The points of a strip spread across its band (ECharts' jitter, in pixels).
    y: {
      name: columns.has('y') ? columns.label('y') : '',
      kind: 'category',
      categories: strips.labels,
      jitter: Math.max(4, Math.min(40, Math.round(200 / Math.max(1, strips.size)))),
    },
    legend: hasColor,
    trigger: 'item',
    zoom: true,
    description: `Strip plot of ${columns.label('x')}${columns.has('y') ? ` by ${columns.label('y')} (${plural(strips.size, 'strip')})` : ''}, ${plural(data.rows.length, 'point')}.`,
  };
}

/** The share of rows at or below each value, a step line per group starting from 0. */
export function ecdf(input: ChartInput): ChartBody {
  const { columns, data, palette } = input;
  const groups = new Categories();
  const steps: [number | null, number | null][][] = [];
  for (const row of data.rows) {
    const group = groups.add(columns.has('color') ? columns.value(row, 'color') : null);
    const x = rounded(columns.value(row, 'x'));
    const list = steps[group] ?? [[x, 0]];
    list.push([x, rounded(columns.value(row, 'share'))]);
    steps[group] = list;
  }
  const hasColor = columns.has('color');
  const series = groups.labels.map(
    (label, index): LineSeriesOption => ({
      type: 'line',
      name: hasColor ? label : columns.label('x'),
      data: steps[index] ?? [],
      step: 'end',
      showSymbol: false,
      color: hasColor ? input.colors.of(label) : (palette.series[0] ?? ''),
    }),
  );
  return {
    dataset: [],
    series,
    x: { name: columns.label('x'), kind: 'value' },
    y: { name: `share of rows ≤ ${columns.label('x')}`, kind: 'value', min: 0, max: 1 },
    legend: hasColor,
    trigger: 'axis',
    zoom: true,
    description: `Empirical cumulative distribution of ${columns.label('x')}${hasColor ? ` for ${plural(groups.size, 'group')} of ${columns.label('color')}` : ''}, ${plural(data.rows.length, 'step')}.`,
  };
}

/** Contour levels as shares of the highest (smoothed) density. */
const LEVELS = [0.1, 0.3, 0.5, 0.7, 0.9];

/** The densities on the full grid (empty cells 0), smoothed over neighbours ([1 2 1] each way). */
function densityGrid(input: ChartInput): number[][] | null {
  const { columns, data } = input;
  const grid = data.grid;
  if (grid === undefined) return null;
  const cells = Array.from({ length: grid.x_bins }, () => new Array<number>(grid.y_bins).fill(0));
  const indexOf = (value: number, low: number, step: number, bins: number) =>
    Math.min(bins - 1, Math.max(0, Math.round((value - low) / step - 0.5)));
  for (const row of data.rows) {
    const [x, y, density] = [columns.number(row, 'x'), columns.number(row, 'y'), columns.number(row, 'density')];
    if (x === null || y === null || density === null) continue;
    const column = cells[indexOf(x, grid.x_low, grid.x_step, grid.x_bins)];
    if (column) column[indexOf(y, grid.y_low, grid.y_step, grid.y_bins)] = density;
  }
  const at = (i: number, j: number) => cells[i]?.[j] ?? 0;
  const weights = [1, 2, 1];
  return cells.map((column, i) =>
    column.map((_, j) => {
      let sum = 0;
      weights.forEach((wi, di) => {
        weights.forEach((wj, dj) => {
          sum += wi * wj * at(i + di - 1, j + dj - 1);
        });
      });
      return sum / 16;
    }),
  );
}

type Point = [number, number];

/**
 * Marching squares over the grid's cell centres (padded by a ring of zeros, so every contour
 * closes): the segments where the density crosses `level`, in grid units.
 */
function contourSegments(grid: number[][], level: number): [Point, Point][] {
  const value = (i: number, j: number) => grid[i]?.[j] ?? 0;
  const segments: [Point, Point][] = [];
  const cross = (a: number, b: number) => (level - a) / (b - a);
  for (let i = -1; i < grid.length; i++) {
    for (let j = -1; j < (grid[0]?.length ?? 0); j++) {
      const [v00, v10, v11, v01] = [value(i, j), value(i + 1, j), value(i + 1, j + 1), value(i, j + 1)];
      const code = (v00 > level ? 1 : 0) | (v10 > level ? 2 : 0) | (v11 > level ? 4 : 0) | (v01 > level ? 8 : 0);
      if (code === 0 || code === 15) continue;
      const bottom: Point = [i + cross(v00, v10), j];
      const right: Point = [i + 1, j + cross(v10, v11)];
      const top: Point = [i + cross(v01, v11), j + 1];
      const left: Point = [i, j + cross(v00, v01)];
      const edges: Record<number, [Point, Point][]> = {
        1: [[left, bottom]],
        2: [[bottom, right]],
        3: [[left, right]],
        4: [[right, top]],
        5: [
          [left, top],
          [bottom, right],
        ],
        6: [[bottom, top]],
        7: [[left, top]],
        8: [[top, left]],
        9: [[top, bottom]],
        10: [
          [left, bottom],
          [right, top],
        ],
        11: [[top, right]],
        12: [[right, left]],
        13: [[right, bottom]],
        14: [[bottom, left]],
      };
      segments.push(...(edges[code] ?? []));
    }
  }
  return segments;
}

/** Density contours: a line series per level, each segment its own piece (gaps between them). */
export function densityContour(input: ChartInput): ChartBody {
  const { columns, data, palette } = input;
  const grid = densityGrid(input);
  const spec = data.grid;
  const highest = Math.max(0, ...(grid ?? []).flat());
  const place = ([i, j]: Point): [number | null, number | null] =>
    spec === undefined
      ? [null, null]
      : [rounded(spec.x_low + (i + 0.5) * spec.x_step), rounded(spec.y_low + (j + 0.5) * spec.y_step)];
  const shades = palette.sequential;
  const series = LEVELS.map((share, index): LineSeriesOption => {
    const segments = grid === null || highest === 0 ? [] : contourSegments(grid, share * highest);
    return {
      type: 'line',
      name: `${Math.round(share * 100)} % of the peak`,
      data: segments.flatMap(([from, to]) => [place(from), place(to), '-']) as LineSeriesOption['data'],
      showSymbol: false,
      connectNulls: false,
      lineStyle: { width: 1.5 },
      color: shades[Math.min(shades.length - 1, Math.round(((index + 1) / LEVELS.length) * (shades.length - 1)))] ?? '',
    };
  });
  return {
    dataset: [],
    series,
    x: { name: columns.label('x'), kind: 'value' },
    y: { name: columns.label('y'), kind: 'value' },
    legend: true,
    trigger: 'item',
    zoom: true,
    description: `Density contours of ${columns.label('y')} against ${columns.label('x')}, from ${plural(spec?.placed ?? 0, 'row')} on a ${spec?.x_bins ?? 0} × ${spec?.y_bins ?? 0} grid, at ${LEVELS.map((share) => `${share * 100} %`).join(', ')} of the peak density.`,
  };
}

/** The line under the title: what was sampled, thinned or left out. */
export function spreadSubtitle(component: FigureComponent, data: FigureData): string | undefined {
  if (component.chart === 'density_contour' && data.grid) {
    return `${plural(data.grid.placed, 'row')} on a ${data.grid.x_bins} × ${data.grid.y_bins} grid`;
  }
  const parts = [
    data.sampled && component.chart === 'strip'
      ? `sampled: ${plural(data.rows.length, 'point')} of ${data.total_rows.toLocaleString('en-US')}`
      : '',
    data.sampled && component.chart === 'ecdf' ? `thinned: ${plural(data.rows.length, 'step')} drawn` : '',
    data.not_shown ? `${plural(data.not_shown, 'more group')} not shown` : '',
  ];
  return parts.filter(Boolean).join(' · ') || undefined;
}
