import { type ChartType, MAX_CLADE_TIPS } from '@service/common';
import type { EChartsType } from '@service/common/echarts-registry';
import type { EChartsOption } from 'echarts';

/** A clickable category of a bar or pie chart, and a point inside its mark (element pixels). */
export interface ChartTarget {
  label: string;
  x: number;
  y: number;
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);
const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};

/** How many items a click filter can select: a bar chart's categories, a pie's slices. */
export function selectableItems(chart: ChartType, option: EChartsOption): number {
  if (chart === 'bar') return asList(record(option.xAxis).data).length;
  if (chart === 'pie' || chart === 'choropleth') return asList(record(asList(option.series)[0]).data).length;
  if (chart === 'clustered_heatmap') return asList(record(asList(option.dataset)[0]).source).length;
  // Each item of these is one row of the answer (a lollipop's stick and head share them).
  if (chart === 'lollipop' || chart === 'diverging_bar' || chart === 'dot' || chart === 'funnel') {
    return asList(record(asList(option.series)[0]).data).length;
  }
  return 0;
}

/** Shows the click filter's categories selected in every series (ECharts' `select` state). */
export function showSelection(instance: EChartsType, count: number, series: number, selected: number[]): void {
  if (count === 0) return;
  const seriesIndex = Array.from({ length: series }, (_, index) => index);
  const all = Array.from({ length: count }, (_, index) => index);
  instance.dispatchAction({ type: 'unselect', seriesIndex, dataIndex: all });
  if (selected.length > 0) instance.dispatchAction({ type: 'select', seriesIndex, dataIndex: selected });
}

/**
 * Where each bar (its lowest drawn segment) or pie slice is, so a test or an assistive tool can
 * click it on the canvas: the element's `data-chart-targets`.
 */
export function chartTargets(
  chart: ChartType,
  option: EChartsOption,
  instance: EChartsType,
  size: { width: number; height: number },
): ChartTarget[] {
  if (chart === 'bar') return barTargets(option, instance);
  if (chart === 'pie') return pieTargets(option, size);
  if (chart === 'clustered_heatmap') return heatmapRowTargets(option, instance);
  if (chart === 'sunburst') return pieTargets(option, size, sunburstRingMiddle(option));
  if (chart === 'lollipop' || chart === 'diverging_bar' || chart === 'dot') return itemTargets(option, instance);
  if (chart === 'tree') return cladeTargets(instance, size);
  return [];
}

/** What `cladeTargets` reads of ECharts' tree series: its laid-out nodes and the symbol drawn for each. */
interface DrawnNodes {
  count(): number;
  getRawDataItem(index: number): unknown;
  getItemGraphicEl(index: number): { transformCoordToGlobal(x: number, y: number): number[] } | undefined;
}

/** At most this many clades are listed (the largest that can filter): enough to click one. */
const CLADE_TARGETS = 200;

/**
 * A tree's clades that a click can filter on (2 to MAX_CLADE_TIPS tips), the largest first, each at
 * its node's symbol as drawn (ECharts lays trees out itself) and in sight; the label is the node's tooltip
 * ("37 tips, support 0.98").
 */
function cladeTargets(instance: EChartsType, size: { width: number; height: number }): ChartTarget[] {
  // The model is ECharts' own (private in its types); the tree's laid-out nodes are nowhere else.
  const chart = instance as unknown as {
    getModel(): { getSeriesByIndex(index: number): { getData(): DrawnNodes } | undefined };
  };
  const nodes = chart.getModel().getSeriesByIndex(0)?.getData();
  if (nodes === undefined) return [];
  const clades: (ChartTarget & { tips: number })[] = [];
  for (let index = 0; index < nodes.count(); index++) {
    const label = String(record(nodes.getRawDataItem(index)).value ?? '');
    const tips = Number(/^(\d+) tips/.exec(label)?.[1] ?? 0);
    const [x, y] = nodes.getItemGraphicEl(index)?.transformCoordToGlobal(0, 0) ?? [];
    if (tips < 2 || tips > MAX_CLADE_TIPS || x === undefined || y === undefined) continue;
    // A tree taller than its cell draws some nodes out of sight (it pans).
    if (x < 0 || y < 0 || x > size.width || y > size.height) continue;
    clades.push({ label, x: Math.round(x), y: Math.round(y), tips });
  }
  return clades
    .sort((a, b) => b.tips - a.tips)
    .slice(0, CLADE_TARGETS)
    .map(({ label, x, y }) => ({ label, x, y }));
}

/** Where the innermost ring of a sunburst is, as a fraction of its radius: its middle (rings share the radius equally). */
function sunburstRingMiddle(option: EChartsOption): number {
  const depth = (items: unknown[]): number =>
    items.length === 0 ? 0 : 1 + Math.max(...items.map((item) => depth(asList(record(item).children))));
  return 0.5 / Math.max(1, depth(asList(record(asList(option.series)[0]).data)));
}

function barTargets(option: EChartsOption, instance: EChartsType): ChartTarget[] {
  const labels = asList(record(option.xAxis).data).map(String);
  const rows = asList(record(asList(option.dataset)[0]).source);
  const log = record(option.yAxis).type === 'log';
  return labels.flatMap((label, index) => {
    const value = asList(rows[index])
      .slice(1)
      .find((cell) => typeof cell === 'number' && cell > 0);
    if (typeof value !== 'number') return [];
    // The first series with a value stacks on nothing: its bar runs from the axis to `value`.
    const [x, y] = instance.convertToPixel({ gridIndex: 0 }, [label, log ? value : value / 2]) as number[];
    return x === undefined || y === undefined ? [] : [{ label, x: Math.round(x), y: Math.round(log ? y + 3 : y) }];
  });
}

/** A clustered heatmap's rows: the middle of each row's first drawn cell. */
function heatmapRowTargets(option: EChartsOption, instance: EChartsType): ChartTarget[] {
  const cells = asList(record(asList(option.dataset)[0]).source).map(asList);
  const firstOfRow = new Map<string, unknown>();
  for (const [row, column] of cells) if (!firstOfRow.has(String(row))) firstOfRow.set(String(row), column);
  return [...firstOfRow].flatMap(([label, column]) => {
    const [x, y] = instance.convertToPixel({ gridIndex: 0 }, [String(column), label]) as unknown as number[];
    return x === undefined || y === undefined ? [] : [{ label, x: Math.round(x), y: Math.round(y) }];
  });
}

/** A lollipop's head, a diverging bar's middle, a dot: each item's [value, category] placed on the grid. */
function itemTargets(option: EChartsOption, instance: EChartsType): ChartTarget[] {
  const series = asList(option.series).map(record);
  const items = asList(series[series.length - 1]?.data).map((item) => asList(record(item).value));
  const bars = series.length === 1 && series[0]?.type === 'bar';
  return items.flatMap(([first, second]) => {
    const point = bars && typeof first === 'number' ? [first / 2, second] : [first, second];
    const [x, y] = instance.convertToPixel({ gridIndex: 0 }, point as never) as unknown as number[];
    const label = String(second);
    return x === undefined || y === undefined ? [] : [{ label, x: Math.round(x), y: Math.round(y) }];
  });
}

/**
 * ECharts lays a pie (and a sunburst's innermost ring) out from 12 o'clock clockwise, each slice's
 * angle in proportion to its value; the target sits at `within` of the radius.
 */
function pieTargets(option: EChartsOption, size: { width: number; height: number }, within = 0.6): ChartTarget[] {
  const series = record(asList(option.series)[0]);
  const slices = asList(series.data).map((slice) => {
    const { name, value } = record(slice);
    return { label: String(name), value: typeof value === 'number' && value > 0 ? value : 0 };
  });
  const total = slices.reduce((sum, slice) => sum + slice.value, 0);
  const [centerX, centerY] = asList(series.center).map((part) => Number.parseFloat(String(part)) / 100);
  const outer = Number.parseFloat(String(asList(series.radius)[1])) / 100;
  const radius = ((Math.min(size.width, size.height) / 2) * outer || 0) * within;
  let before = 0;
  return slices.flatMap((slice) => {
    if (slice.value === 0 || total === 0) return [];
    const angle = Math.PI / 2 - (2 * Math.PI * (before + slice.value / 2)) / total;
    before += slice.value;
    return [
      {
        label: slice.label,
        x: Math.round(size.width * (centerX ?? 0.5) + radius * Math.cos(angle)),
        y: Math.round(size.height * (centerY ?? 0.5) - radius * Math.sin(angle)),
      },
    ];
  });
}

/**
 * The colour of each named series or pie slice in the option drawn: the element's
 * `data-chart-colors` (JSON `{name: colour}`), so a test sees one value's colour across charts.
 * Read from the option given to ECharts, which holds every colour set: its `getOption()` copies
 * the whole option, every data point included, and ran after each draw.
 */
export function drawnColors(option: EChartsOption): Record<string, string> {
  const colors: Record<string, string> = {};
  for (const series of asList(record(option).series).map(record)) {
    for (const item of asList(series.data).map(record)) {
      const color = record(item.itemStyle).color;
      if (typeof item.name === 'string' && typeof color === 'string') colors[item.name] = color;
    }
    const color = asList(series.color)[0];
    if (typeof series.name === 'string' && typeof color === 'string') colors[series.name] = color;
  }
  return colors;
}
