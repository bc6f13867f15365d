import type { EChartsOption } from 'echarts';
import type { FigureData } from '../dashboard-data.js';
import { formatCount } from '../format/number.js';
import { type ChartBody, type ChartInput, plural } from './body.js';
import type { ChartPalette } from './palette.js';
import { headerHeight } from './parts.js';

/**
 * An UpSet plot (the server counted the intersections: analytics/components/upset.ts); a bar's
 * click filters to the rows in exactly its sets (`filter`, as hierarchy-sets.ts reads clicks).
 */

/** UpSet: the intersections' sizes as bars over a matrix of their sets (dots joined), set sizes at the left. */
export function upset(input: ChartInput): ChartBody {
  const { palette, data } = input;
  const intersections = data.intersections ?? [];
  const sizes = data.set_sizes ?? {};
  const sets = input.component.sets ?? Object.keys(sizes);
  const sizeOf = (set: string) => sizes[set] ?? 0;
  const top = headerHeight({ title: input.component.title ?? '', legend: false, subtitle: 'x' }) + 12;
  const matrixHeight = Math.max(80, Math.min(sets.length * 22, 360));
  const columns = intersections.map((_, index) => String(index + 1));
  const largestSet = Math.max(0, ...sets.map(sizeOf));
  return {
    dataset: [],
    frame: upsetFrame(palette, { sets, columns, top, matrixHeight, largestSet }),
    series: [
      {
        type: 'bar',
        name: 'intersection size',
        xAxisIndex: 0,
        yAxisIndex: 0,
        data: intersections.map((intersection) => ({
          value: intersection.count,
          filter: intersection.sets,
          name: intersection.sets.join(' & '),
        })),
        itemStyle: { color: palette.series[0] ?? '' },
        label: { show: intersections.length <= 40, position: 'top', color: palette.dimmed, fontSize: 10 },
        selectedMode: 'single',
        select: { itemStyle: { color: palette.series[1] ?? '' } },
      },
      ...upsetMatrix(intersections, sets, palette),
      {
        type: 'bar',
        name: 'set size',
        xAxisIndex: 2,
        yAxisIndex: 2,
        // Each set's size written at its bar's end, grouped ("12,408"), as the reader compares them.
        data: sets.map((set) => ({ value: sizeOf(set), name: set, label: { formatter: formatCount(sizeOf(set)) } })),
        label: { show: true, position: 'left', color: palette.dimmed, fontSize: 10 },
        itemStyle: { color: palette.dimmed },
        barWidth: '60%',
      },
    ],
    legend: false,
    trigger: 'item',
    zoom: false,
    description: upsetDescription(sets, data),
  };
}

type Intersection = NonNullable<FigureData['intersections']>[number];

/** The matrix under the bars: a dot per intersection and set (dark when in it), its sets joined by a line. */
function upsetMatrix(
  intersections: readonly Intersection[],
  sets: readonly string[],
  palette: ChartPalette,
): NonNullable<ChartBody['series']> {
  const dots = intersections.flatMap((intersection, x) =>
    sets.map((set, y) => ({
      value: [x, y],
      itemStyle: { color: intersection.sets.includes(set) ? palette.text : palette.splitLine },
    })),
  );
  // One line per intersection from its first set to its last; `-` breaks the line between them.
  const joins = intersections.flatMap((intersection, x) => {
    const rows = intersection.sets.map((set) => sets.indexOf(set)).filter((y) => y >= 0);
    return rows.length < 2
      ? []
      : [
          [x, Math.min(...rows)],
          [x, Math.max(...rows)],
          ['-', '-'],
        ];
  });
  return [
    {
      type: 'line',
      xAxisIndex: 1,
      yAxisIndex: 1,
      data: joins,
      symbol: 'none',
      silent: true,
      lineStyle: { color: palette.text, width: 2 },
    },
    { type: 'scatter', xAxisIndex: 1, yAxisIndex: 1, data: dots, symbolSize: 10, silent: true },
  ];
}

/** The three grids of an UpSet plot: the bars on top, the matrix below, the set sizes at its left. */
function upsetFrame(
  palette: ChartPalette,
  layout: { sets: readonly string[]; columns: string[]; top: number; matrixHeight: number; largestSet: number },
): Pick<EChartsOption, 'grid' | 'xAxis' | 'yAxis'> {
  const { sets, columns, top, matrixHeight, largestSet } = layout;
  return {
    // Set sizes at the far left, the sets' names between them and the matrix.
    grid: [
      { left: 200, right: 16, top, bottom: matrixHeight + 24 },
      { left: 200, right: 16, height: matrixHeight, bottom: 16 },
      { left: 4, width: 96, height: matrixHeight, bottom: 16 },
    ],
    xAxis: [
      { gridIndex: 0, type: 'category', data: columns, show: false },
      { gridIndex: 1, type: 'category', data: columns, show: false },
      {
        gridIndex: 2,
        type: 'value',
        inverse: true,
        // The longest bar half the width: the other half holds its number.
        ...(largestSet > 0 ? { max: largestSet * 2 } : {}),
        name: 'set size',
        nameLocation: 'middle',
        nameGap: 4,
        axisLabel: { show: false },
        splitLine: { show: false },
      },
    ],
    yAxis: [
      {
        gridIndex: 0,
        type: 'value',
        name: 'rows',
        nameTextStyle: { color: palette.dimmed },
        axisLabel: { color: palette.dimmed },
        splitLine: { lineStyle: { color: palette.splitLine } },
      },
      {
        gridIndex: 1,
        type: 'category',
        data: [...sets],
        inverse: true,
        position: 'left',
        axisLabel: { color: palette.text },
        axisLine: { show: false },
        axisTick: { show: false },
      },
      { gridIndex: 2, type: 'category', data: [...sets], inverse: true, show: false },
    ],
  };
}

function upsetDescription(sets: readonly string[], data: FigureData): string {
  const intersections = data.intersections ?? [];
  const largest = intersections[0];
  const leftOut = data.left_out;
  return (
    `UpSet plot of ${plural(sets.length, 'set')} (${sets.slice(0, 8).join(', ')}${sets.length > 8 ? ', …' : ''}): ` +
    `${plural(intersections.length, 'intersection')}` +
    (largest ? `, the largest ${largest.sets.join(' & ')} with ${plural(largest.count, 'row')}` : '') +
    (leftOut
      ? `; ${plural(leftOut.intersections, 'smaller intersection')} (${plural(leftOut.rows, 'row')}) left out`
      : '') +
    '.'
  );
}
