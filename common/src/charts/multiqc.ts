import type { DataZoomComponentOption, EChartsOption, SeriesOption } from 'echarts';
import type {
  MultiqcBarData,
  MultiqcBoxData,
  MultiqcComponent,
  MultiqcData,
  MultiqcHeatmapData,
  MultiqcLineData,
} from '../multiqc.js';
import { type ChartPalette, PALETTES } from './palette.js';
import { axis, grid, type Header, legend, title, tooltip } from './parts.js';

/**
 * The ECharts option of a MultiQC plot (docs/dashboards.md, "MultiQC plots"), drawn from the
 * data the server narrowed to the samples the filters leave. Plain JSON (no functions), so the
 * web app draws it and the export serves it alike. Tables are not charts: the web app and the
 * export page draw them as tables (`multiqcOption` answers null).
 */
export function multiqcOption(
  component: Pick<MultiqcComponent, 'title'>,
  data: MultiqcData,
  options: { theme: 'light' | 'dark'; title?: boolean },
): EChartsOption | null {
  const palette = PALETTES[options.theme];
  const shownTitle = options.title === false ? '' : (component.title ?? data.title);
  const subtitle = subtitleOf(data);
  const base = (header: Header): EChartsOption => ({
    backgroundColor: 'transparent',
    color: palette.series,
    textStyle: { color: palette.text },
    title: title(header, palette),
    legend: legend(header, palette),
    aria: { enabled: true, label: { description: multiqcDescription(component, data) } },
  });
  switch (data.plot_type) {
    case 'bar':
      return barOption(data, base({ title: shownTitle, subtitle, legend: true }), palette);
    case 'line':
    case 'scatter':
      return lineOption(data, base({ title: shownTitle, subtitle, legend: data.summarized !== null }), palette);
    case 'heatmap':
      return heatmapOption(data, base({ title: shownTitle, subtitle, legend: false }), palette);
    case 'box':
    case 'violin':
      return boxOption(data, base({ title: shownTitle, subtitle, legend: false }), palette);
    case 'table':
      return null;
  }
}

/** What the plot shows of the report's samples, when not every one of them drawn alone. */
function subtitleOf(data: MultiqcData): string | undefined {
  const count = (n: number) => n.toLocaleString('en-US');
  if ((data.plot_type === 'line' || data.plot_type === 'scatter') && data.summarized !== null) {
    return `${count(data.summarized)} samples summarized (range, quartiles, median); filter to 100 or fewer to see each`;
  }
  if (data.hidden_samples === 0) return undefined;
  return `${count(data.samples.length)} of ${count(data.samples.length + data.hidden_samples)} samples (filtered)`;
}

/** Line styles of a summarized plot's five series: the median strong, the quartiles dashed, the range dotted. */
const SUMMARY_STYLES: Record<string, { width: number; type: 'solid' | 'dashed' | 'dotted' }> = {
  median: { width: 2.5, type: 'solid' },
  '25th percentile': { width: 1.5, type: 'dashed' },
  '75th percentile': { width: 1.5, type: 'dashed' },
  min: { width: 1, type: 'dotted' },
  max: { width: 1, type: 'dotted' },
};

/** A sample's colour: the same in every plot of every dashboard, whatever the filters leave. */
export function sampleColor(sample: string, palette: ChartPalette): string {
  let hash = 2166136261;
  for (let index = 0; index < sample.length; index++) hash = Math.imul(hash ^ sample.charCodeAt(index), 16777619);
  return palette.series[(hash >>> 0) % palette.series.length] ?? palette.series[0] ?? '#228be6';
}

/**
 * Sample rows drawn at once in a plot with a row per sample (bars, heatmap rows, boxes): a plot of
 * more pages through them with a scrollbar at its right rather than squeezing 2,000 rows into a
 * cell (MultiQC turns such plots into flat images). Only the rows in view are drawn.
 */
export const SAMPLES_IN_VIEW = 50;

/** The scrollbar of a plot of `rows` sample rows, if it has more than fit; and the room it takes. */
function samplePager(rows: number, palette: ChartPalette): { dataZoom: DataZoomComponentOption[]; right: number } {
  if (rows <= SAMPLES_IN_VIEW) return { dataZoom: [], right: 0 };
  return {
    right: 28,
    dataZoom: [
      {
        type: 'slider',
        yAxisIndex: 0,
        filterMode: 'filter',
        startValue: 0,
        endValue: SAMPLES_IN_VIEW - 1,
        right: 6,
        width: 14,
        showDetail: false,
        showDataShadow: false,
        brushSelect: false,
        borderColor: palette.axisLine,
        textStyle: { color: palette.dimmed },
      },
      // Shift + wheel scrolls the rows (a bare wheel scrolls the dashboard).
      { type: 'inside', yAxisIndex: 0, filterMode: 'filter', zoomOnMouseWheel: false, moveOnMouseWheel: 'shift' },
    ],
  };
}

/** Stacked horizontal bars, one per sample (MultiQC's layout: sample names stay readable). */
function barOption(data: MultiqcBarData, option: EChartsOption, palette: ChartPalette): EChartsOption {
  const header = { title: '', legend: true };
  const series: SeriesOption[] = data.series.map((entry, index) => ({
    type: 'bar',
    name: entry.name,
    stack: 'samples',
    data: entry.values,
    itemStyle: { color: entry.color ?? palette.series[index % palette.series.length] },
    emphasis: { focus: 'series' },
  }));
  const pager = samplePager(data.samples.length, palette);
  const plotGrid = grid(header, false);
  return {
    ...option,
    tooltip: tooltip('axis', palette),
    grid: { ...plotGrid, top: 62, right: Number(plotGrid.right ?? 0) + pager.right },
    dataZoom: pager.dataZoom,
    xAxis: axis(
      {
        name: data.percentages ? 'Percentage' : (data.y_label ?? ''),
        kind: 'value',
        fromZero: true,
        ...(data.percentages ? { max: 100 } : {}),
      },
      palette,
      'x',
    ),
    yAxis: { ...axis({ name: '', kind: 'category', categories: data.samples }, palette, 'y'), inverse: true },
    series,
  };
}

/** One line per sample over MultiQC's coloured bands (e.g. the Phred quality zones). */
function lineOption(data: MultiqcLineData, option: EChartsOption, palette: ChartPalette): EChartsOption {
  // The room above the plot: a summarized plot has a subtitle and a legend of its five lines.
  const summary = data.summarized !== null;
  const header = { title: 'title', ...(summary ? { subtitle: 'summarized' } : {}), legend: summary };
  const bandArea = (axisName: 'x' | 'y') =>
    data.bands
      .filter((band) => band.axis === axisName)
      .map((band) => [
        { [`${axisName}Axis`]: band.from, itemStyle: { color: band.color, opacity: 0.13 } },
        { [`${axisName}Axis`]: band.to },
      ]);
  const series: SeriesOption[] = data.series.map((entry, index) => ({
    type: data.plot_type === 'scatter' ? 'scatter' : 'line',
    name: entry.name,
    data: entry.points,
    showSymbol: data.plot_type === 'scatter' || entry.points.length < 50,
    lineStyle: data.summarized === null ? { width: 1.5 } : (SUMMARY_STYLES[entry.name] ?? { width: 1.5 }),
    // A sample's own colour, the same in every plot (MultiQC's colours here mark pass/warn/fail).
    itemStyle: { color: data.summarized === null ? sampleColor(entry.name, palette) : palette.series[0] },
    emphasis: { focus: 'series' },
    ...(index === 0 && data.bands.length > 0
      ? { markArea: { silent: true, data: [...bandArea('x'), ...bandArea('y')] as never } }
      : {}),
  }));
  return {
    ...option,
    tooltip: { ...tooltip('item', palette), formatter: '{a}<br/>{c}' },
    grid: grid(header, false),
    xAxis: axis(
      data.categorical_x
        ? { name: data.x_label ?? '', kind: 'category', categories: categoriesOf(data) }
        : { name: data.x_label ?? '', kind: 'value' },
      palette,
      'x',
    ),
    yAxis: axis({ name: data.y_label ?? '', kind: 'value' }, palette, 'y'),
    series,
  };
}

function categoriesOf(data: MultiqcLineData): string[] {
  const seen = new Set<string>();
  for (const entry of data.series) for (const [x] of entry.points) seen.add(String(x));
  return [...seen];
}

/** A heatmap with MultiQC's colour stops (e.g. FastQC's fail / warn / pass). */
function heatmapOption(data: MultiqcHeatmapData, option: EChartsOption, palette: ChartPalette): EChartsOption {
  const cells = data.values.flatMap((row, y) => row.map((value, x) => [x, y, value]));
  const finite = cells.map((cell) => cell[2]).filter((value): value is number => typeof value === 'number');
  const min = data.min ?? (finite.length ? Math.min(...finite) : 0);
  const max = data.max ?? (finite.length ? Math.max(...finite) : 1);
  const colors = data.color_stops.length > 0 ? data.color_stops.map(([, color]) => color) : palette.sequential;
  const pager = samplePager(data.y.length, palette);
  const plotGrid = grid({ title: 'title', legend: false }, false);
  return {
    ...option,
    tooltip: tooltip('item', palette),
    grid: { ...plotGrid, bottom: 48, right: Number(plotGrid.right ?? 0) + pager.right },
    dataZoom: pager.dataZoom,
    xAxis: {
      ...axis({ name: data.x_label ?? '', kind: 'category', categories: data.x }, palette, 'x'),
      axisLabel: { color: palette.dimmed, rotate: 30, interval: 0 },
    },
    yAxis: { ...axis({ name: '', kind: 'category', categories: data.y }, palette, 'y'), inverse: true },
    visualMap: { min, max, calculable: false, show: false, inRange: { color: colors } },
    series: [
      {
        type: 'heatmap',
        name: data.title,
        data: cells,
        emphasis: { itemStyle: { borderColor: palette.text, borderWidth: 1 } },
      },
    ],
  };
}

/** One box per sample: its five numbers. */
function boxOption(data: MultiqcBoxData, option: EChartsOption, palette: ChartPalette): EChartsOption {
  const pager = samplePager(data.boxes.length, palette);
  const plotGrid = grid({ title: 'title', legend: false }, false);
  return {
    ...option,
    tooltip: tooltip('item', palette),
    grid: { ...plotGrid, right: Number(plotGrid.right ?? 0) + pager.right },
    dataZoom: pager.dataZoom,
    xAxis: axis({ name: data.x_label ?? '', kind: 'value' }, palette, 'x'),
    yAxis: {
      ...axis({ name: '', kind: 'category', categories: data.boxes.map((box) => box.name) }, palette, 'y'),
      inverse: true,
    },
    series: [
      {
        type: 'boxplot',
        name: data.title,
        data: data.boxes.map((box) => [box.min, box.q1, box.median, box.q3, box.max]),
        itemStyle: { color: 'transparent', borderColor: palette.series[0] },
      },
    ] as SeriesOption[],
  };
}

/** The plot in words, for screen readers (the chart's `aria` label). */
export function multiqcDescription(component: Pick<MultiqcComponent, 'title'>, data: MultiqcData): string {
  const name = component.title ?? data.title;
  const samples = `${data.samples.length} sample${data.samples.length === 1 ? '' : 's'}`;
  switch (data.plot_type) {
    case 'bar':
      return `${name}: stacked bars of ${data.series.map((entry) => entry.name).join(', ')} for ${samples}.`;
    case 'line':
    case 'scatter':
      return `${name}: ${data.y_label ?? 'values'} by ${data.x_label ?? 'x'}, one ${data.plot_type === 'line' ? 'line' : 'set of points'} per sample, ${samples}.`;
    case 'heatmap':
      return `${name}: a heatmap of ${data.y.length} rows by ${data.x.length} columns.`;
    case 'box':
    case 'violin':
      return `${name}: the distribution of values for ${samples}.`;
    case 'table':
      return `${name}: a table of ${data.rows.length} rows and ${data.columns.length} columns.`;
  }
}
