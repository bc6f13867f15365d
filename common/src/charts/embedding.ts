import type { ScatterSeriesOption } from 'echarts';
import { type ChartBody, type ChartInput, plural } from './body.js';
import { scatter } from './cartesian.js';
import { axis } from './parts.js';

/**
 * Embeddings (server: figures.ts for given coordinates, sample-charts.ts for PCA): an ordination as
 * a scatter coloured by `color`; computed PCA names its axes with their share of variance. With a
 * third coordinate (`z`, or PC3) the points are drawn as the three pairs xy, xz and yz side by side:
 * ECharts draws 3-D only with echarts-gl (WebGL, a large bundle, not drawn by the export page's
 * renderers), and the pairs show every point without a rotation hiding some behind others. A
 * rectangle brushed over any pair selects the rows inside it (given coordinates) or, for a
 * computed PCA with `label` (each point's id), the ids of the points drawn inside it.
 */

/** The three pairs of a 3-D embedding, one panel each. */
const PAIRS = [
  ['x', 'y'],
  ['x', 'z'],
  ['y', 'z'],
] as const;

export function embedding(input: ChartInput): ChartBody {
  const body = scatter(input);
  const { columns, component, data } = input;
  const explained = data.explained_variance;
  const axisName = (role: 'x' | 'y' | 'z') => {
    const at = role === 'x' ? 0 : role === 'y' ? 1 : 2;
    return explained === undefined ? columns.label(role) : `PC${at + 1} (${((explained[at] ?? 0) * 100).toFixed(1)} %)`;
  };
  const tooltip = ['label', 'x', 'y', 'z'].filter((role) => columns.has(role));
  // Given coordinates: a rectangle of them; a computed PCA: the ids of its points (with `label`).
  const brush = component.pca_columns === undefined || component.label !== undefined ? { brush: 'rect' as const } : {};
  const what = explained === undefined ? 'Embedding' : `PCA of ${(component.pca_columns ?? []).join(', ')}`;
  if (columns.has('z')) return pairs(input, body, axisName, { ...brush, tooltip, what });
  const series = body.series.map((item) => ({ ...item, encode: { x: 'x', y: 'y', tooltip } }) as ScatterSeriesOption);
  return {
    ...body,
    ...brush,
    series,
    ...(body.x && body.y ? { x: { ...body.x, name: axisName('x') }, y: { ...body.y, name: axisName('y') } } : {}),
    description: `${what}: ${plural(data.rows.length, 'point')} on ${axisName('x')} and ${axisName('y')}.`,
  };
}

/** A 3-D embedding: each colour group's points in the three panels (one legend entry toggles all three). */
function pairs(
  input: ChartInput,
  body: ChartBody,
  axisName: (role: 'x' | 'y' | 'z') => string,
  options: { brush?: 'rect'; tooltip: string[]; what: string },
): ChartBody {
  const { palette, data } = input;
  const series = PAIRS.flatMap(([a, b], panel) =>
    body.series.map(
      (item): ScatterSeriesOption => ({
        ...(item as ScatterSeriesOption),
        xAxisIndex: panel,
        yAxisIndex: panel,
        encode: { x: a, y: b, tooltip: options.tooltip },
        symbolSize: 5,
      }),
    ),
  );
  return {
    dataset: body.dataset,
    series,
    legend: body.legend,
    trigger: 'item',
    zoom: false,
    ...(options.brush ? { brush: options.brush } : {}),
    frameAt: (top) => ({
      grid: PAIRS.map((_, panel) => ({ top, bottom: 44, left: `${5 + panel * 33}%`, width: '25%' })),
      xAxis: PAIRS.map(([a], panel) => ({
        ...axis({ name: axisName(a), kind: 'value' }, palette, 'x'),
        gridIndex: panel,
      })),
      yAxis: PAIRS.map(([, b], panel) => ({
        ...axis({ name: axisName(b), kind: 'value' }, palette, 'y'),
        gridIndex: panel,
        nameGap: 36,
      })),
    }),
    description: `${options.what} in three dimensions, drawn as the pairs ${axisName('x')} × ${axisName('y')}, ${axisName('x')} × ${axisName('z')} and ${axisName('y')} × ${axisName('z')}: ${plural(data.rows.length, 'point')}.`,
  };
}
