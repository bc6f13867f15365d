import type { BarSeriesOption, FunnelSeriesOption, ScatterSeriesOption, SeriesOption } from 'echarts';
import type { FigureComponent } from '../dashboard-components.js';
import type { FigureData } from '../dashboard-data.js';
import { aggregateLabel, type ChartBody, type ChartInput, plural } from './body.js';
import { colorScale } from './color-scale.js';
import { Categories, categoryLabel, FigureColumns, rounded } from './columns.js';
import type { ChartPalette } from './palette.js';

/**
 * Ranked effects (lollipop, diverging bar), enrichment dots, stacked compositions and funnels: the
 * server ranked and cut every category (analytics/components/ranked.ts); these draw them. Each
 * series' items are rows of the answer (`seriesRows` says which), so a click finds its category.
 */

/** The effects' categories, largest effect at the top (a category axis counts from the bottom). */
function effectCategories(input: ChartInput): string[] {
  return input.data.rows.map((row) => categoryLabel(input.columns.value(row, 'x'))).reverse();
}

const itemsOf = (input: ChartInput, value: (row: readonly unknown[]) => (string | number | null)[]) =>
  input.data.rows.map((row) => ({ value: value(row) }));

const effectOf = (columns: FigureColumns, row: readonly unknown[]) => rounded(columns.value(row, 'y'));

/** A lollipop: a stick from 0 to the effect, a head on it, whiskers effect ± error. */
export function lollipop(input: ChartInput): ChartBody {
  const { columns, data, palette } = input;
  const color = palette.series[0] ?? '';
  const items = itemsOf(input, (row) => [
    effectOf(columns, row),
    categoryLabel(columns.value(row, 'x')),
    ...(columns.has('error') ? [rounded(columns.value(row, 'error'))] : []),
  ]);
  const whiskers = data.rows.flatMap((row) => {
    const effect = columns.number(row, 'y');
    const error = columns.has('error') ? columns.number(row, 'error') : null;
    if (effect === null || error === null) return [];
    const label = categoryLabel(columns.value(row, 'x'));
    return [[{ coord: [rounded(effect - error), label] }, { coord: [rounded(effect + error), label] }]];
  });
  const tooltip = { x: 0, y: 1, tooltip: columns.has('error') ? [1, 0, 2] : [1, 0] };
  const series: SeriesOption[] = [
    { type: 'bar', name: columns.label('y'), data: items, encode: tooltip, barWidth: 2, itemStyle: { color } },
    {
      type: 'scatter',
      name: columns.label('y'),
      data: items,
      encode: tooltip,
      symbolSize: 10,
      itemStyle: { color },
      selectedMode: 'multiple',
      select: { itemStyle: { borderColor: palette.text, borderWidth: 2 } },
      ...(whiskers.length > 0
        ? {
            markLine: {
              silent: true,
              symbol: 'none',
              label: { show: false },
              lineStyle: { color: palette.text, width: 1, type: 'solid' as const },
              data: whiskers as never,
            },
          }
        : {}),
    },
  ];
  return effectBody(input, series, `Lollipop chart`);
}

/** Diverging bars: from 0 to each effect, coloured by its sign. */
export function divergingBar(input: ChartInput): ChartBody {
  const { columns, data, palette } = input;
  const series: BarSeriesOption = {
    type: 'bar',
    name: columns.label('y'),
    data: data.rows.map((row) => {
      const effect = effectOf(columns, row);
      return {
        value: [effect, categoryLabel(columns.value(row, 'x'))],
        itemStyle: { color: signColor(palette, effect) },
      };
    }),
    encode: { x: 0, y: 1, tooltip: [1, 0] },
    barMaxWidth: 24,
    selectedMode: 'multiple',
    select: { itemStyle: { borderColor: palette.text, borderWidth: 2 } },
  };
  return effectBody(input, [series], 'Diverging bar chart');
}

function signColor(palette: ChartPalette, effect: number | null): string {
  if (effect === null || effect === 0) return palette.other;
  return effect > 0 ? (palette.series[4] ?? '') : (palette.series[0] ?? '');
}

function effectBody(input: ChartInput, series: SeriesOption[], what: string): ChartBody {
  const { columns, data } = input;
  const categories = effectCategories(input);
  const positive = data.rows.filter((row) => (columns.number(row, 'y') ?? 0) > 0).length;
  const top = categories.slice(-5).reverse().join(', ');
  return {
    dataset: [],
    series,
    x: { name: columns.label('y'), kind: 'value' },
    y: { name: columns.label('x'), kind: 'category', categories },
    legend: false,
    trigger: 'item',
    zoom: false,
    description: `${what} of ${columns.label('y')} by ${columns.label('x')}, ranked: ${plural(data.rows.length, 'category', 'categories')} (${positive} positive, ${data.rows.length - positive} not), largest first: ${top}.`,
  };
}

/** Dot plot: terms down, groups across, the dot's area by size and its colour by color. */
export function dot(input: ChartInput): ChartBody {
  const { columns, data, palette } = input;
  const terms = new Categories();
  const groups = new Categories();
  for (const row of data.rows) {
    terms.add(columns.value(row, 'y'));
    groups.add(columns.has('x') ? columns.value(row, 'x') : columns.label('y'));
  }
  const sizes = data.rows.map((row) => columns.number(row, 'size') ?? 0);
  const largest = Math.max(0, ...sizes);
  const colors = data.rows.map((row) => (columns.has('color') ? rounded(columns.value(row, 'color')) : null));
  const finite = colors.filter((value) => value !== null);
  const series: ScatterSeriesOption = {
    type: 'scatter',
    name: aggregateLabel(input, 'size'),
    data: data.rows.map((row, index) => ({
      value: [
        categoryLabel(columns.has('x') ? columns.value(row, 'x') : columns.label('y')),
        categoryLabel(columns.value(row, 'y')),
        rounded(columns.value(row, 'size')),
        colors[index] ?? null,
      ],
      // Area in proportion to size, the largest dot 28 px across.
      symbolSize: largest > 0 ? Math.max(4, Math.round(28 * Math.sqrt(Math.max(0, sizes[index] ?? 0) / largest))) : 4,
    })),
    encode: { x: 0, y: 1, tooltip: columns.has('color') ? [1, 0, 2, 3] : [1, 0, 2] },
    itemStyle: finite.length === 0 ? { color: palette.series[0] ?? '' } : {},
    selectedMode: 'multiple',
    select: { itemStyle: { borderColor: palette.text, borderWidth: 2 } },
  };
  const sizeName = columns.has('size') ? `mean ${columns.label('size')}` : 'rows';
  return {
    dataset: [],
    series: [series],
    x: { name: columns.has('x') ? columns.label('x') : '', kind: 'category', categories: groups.labels },
    y: { name: columns.label('y'), kind: 'category', categories: [...terms.labels].reverse() },
    legend: false,
    trigger: 'item',
    ...(finite.length > 0 ? { visualMap: colorScale(palette, finite, { dimension: 3 }) } : {}),
    zoom: false,
    description: `Dot plot of ${plural(terms.size, 'term')} of ${columns.label('y')}${columns.has('x') ? ` by ${plural(groups.size, 'group')} of ${columns.label('x')}` : ''}: dot size ${sizeName}${columns.has('color') ? `, colour mean ${columns.label('color')}` : ''}.`,
  };
}

/** A stacked bar's taxa (series) in the server's rank (largest total first, "other" last); the samples (x), in order. */
export function stackModel(input: Pick<ChartInput, 'columns' | 'data'>) {
  const { columns, data } = input;
  const samples = new Categories();
  const taxa = new Map<string, { value: unknown; other: boolean; rank: number }>();
  for (const row of data.rows) {
    samples.add(columns.value(row, 'x'));
    const other = columns.isOther(row);
    const label = categoryLabel(columns.value(row, 'color'), other);
    if (!taxa.has(label))
      taxa.set(label, { value: columns.value(row, 'color'), other, rank: columns.number(row, 'rank') ?? 0 });
  }
  const ranked = [...taxa.entries()]
    .sort(([, left], [, right]) => left.rank - right.rank)
    .map(([label, entry]) => ({ label, ...entry }));
  return { samples, taxa: ranked };
}

/** Relative abundance per sample: one stacked series per taxon, samples in the server's order. */
export function stackedBar(input: ChartInput): ChartBody {
  const { columns, component, data } = input;
  const { samples, taxa } = stackModel(input);
  const cells = new Map<string, number | null>();
  for (const row of data.rows) {
    const key = `${samples.add(columns.value(row, 'x'))}\u0000${categoryLabel(columns.value(row, 'color'), columns.isOther(row))}`;
    cells.set(key, rounded(columns.value(row, 'y')));
  }
  const series = taxa.map(
    (taxon): BarSeriesOption => ({
      type: 'bar',
      name: taxon.label,
      stack: 'total',
      data: samples.labels.map((_, sample) => cells.get(`${sample}\u0000${taxon.label}`) ?? 0),
      color: input.colors.of(taxon.label, taxon.other),
      emphasis: { focus: 'series' },
      selectedMode: 'multiple',
      select: { itemStyle: { borderColor: input.palette.text, borderWidth: 2 } },
    }),
  );
  const normalized = component.normalize !== false;
  const measure = columns.has('y') && columns.column('y')?.column ? columns.label('y') : 'rows';
  const yName = normalized ? `% of ${measure}` : measure === 'rows' ? 'rows' : `sum ${measure}`;
  return {
    dataset: [],
    series,
    x: { name: columns.label('x'), kind: 'category', categories: samples.labels },
    y: { name: yName, kind: 'value', fromZero: true, ...(normalized ? { max: 100 } : {}) },
    legend: true,
    trigger: 'axis',
    zoom: false,
    description: `Stacked bar chart of ${yName} by ${columns.label('color')} for ${plural(samples.size, 'sample')} of ${columns.label('x')}: ${taxa
      .slice(0, 10)
      .map((taxon) => taxon.label)
      .join(', ')}${data.not_shown ? ` (${data.not_shown} more in ${'Other'})` : ''}.`,
  };
}

/** Funnel: the stages largest first, each as wide as its value. */
export function funnel(input: ChartInput): ChartBody {
  const { columns, data, palette } = input;
  const valueName = aggregateLabel(input);
  const series: FunnelSeriesOption = {
    type: 'funnel',
    name: valueName,
    data: data.rows.map((row) => ({
      name: categoryLabel(columns.value(row, 'x')),
      value: rounded(columns.value(row, 'y')) ?? 0,
      itemStyle: { color: input.colors.of(categoryLabel(columns.value(row, 'x'))) },
    })),
    sort: 'descending',
    left: '10%',
    width: '80%',
    top: 64,
    bottom: 16,
    minSize: '4%',
    label: { show: true, position: 'inside', color: palette.text },
    selectedMode: 'multiple',
    select: { itemStyle: { borderColor: palette.text, borderWidth: 2 } },
  };
  const stages = data.rows.map(
    (row) => `${categoryLabel(columns.value(row, 'x'))} ${rounded(columns.value(row, 'y'))}`,
  );
  return {
    dataset: [],
    series: [series],
    legend: false,
    trigger: 'item',
    zoom: false,
    description: `Funnel of ${valueName} by ${columns.label('x')}: ${stages.slice(0, 10).join(', ')}.`,
  };
}

/**
 * For each series of one of these charts, the answer's row behind each of its items (a stacked
 * bar's series are taxa: its items are samples, a click there filters by the taxon instead).
 */
export function seriesRows(component: FigureComponent, data: FigureData): number[][] {
  const all = data.rows.map((_, index) => index);
  return component.chart === 'lollipop' ? [all, all] : [all];
}

/** The line under the title: what the budget left out. */
export function rankedSubtitle(component: FigureComponent, data: FigureData): string | undefined {
  const left = data.not_shown ?? 0;
  if (component.chart === 'stacked_bar') {
    const parts = [
      left > 0 ? `${plural(left, 'more value')} of ${component.color} in Other` : '',
      data.samples_not_shown ? `${plural(data.samples_not_shown, 'more sample')} not shown` : '',
    ];
    return parts.filter(Boolean).join(' · ') || undefined;
  }
  if (left === 0) return undefined;
  const what = component.chart === 'dot' ? 'term' : component.chart === 'funnel' ? 'stage' : 'category';
  const ranked = component.chart === 'lollipop' || component.chart === 'diverging_bar' ? ' by |effect|' : '';
  const terms = new Set(data.rows.map((row) => JSON.stringify(new FigureColumns(data).value(row, 'y') ?? null)));
  const shown = component.chart === 'dot' ? terms.size : data.rows.length;
  return `top ${shown.toLocaleString('en-US')}${ranked}; ${plural(left, `more ${what}`, `more ${what === 'category' ? 'categories' : `${what}s`}`)} not shown`;
}

/** The role whose value a click on one of these charts filters by (the filter's column, figure-fields). */
const clickedRole = (component: FigureComponent) => (component.chart === 'dot' ? 'y' : 'x');

/**
 * The category a click on a lollipop, bar, dot, stack or funnel stage filters by, as the table
 * holds it; undefined for the folded "other" segment.
 */
export function rankedClickedValue(
  component: FigureComponent,
  data: FigureData,
  click: { seriesIndex?: number; dataIndex?: number },
): { value: unknown } | undefined {
  const columns = new FigureColumns(data);
  if (component.chart === 'stacked_bar') {
    const taxon = stackModel({ columns, data }).taxa[click.seriesIndex ?? -1];
    return taxon === undefined || taxon.other ? undefined : { value: taxon.value };
  }
  const rows = seriesRows(component, data)[click.seriesIndex ?? 0] ?? [];
  const row = data.rows[rows[click.dataIndex ?? -1] ?? -1];
  return row === undefined ? undefined : { value: columns.value(row, clickedRole(component)) };
}

/** The items shown selected under a click filter: every row whose category it lists (not stacks). */
export function rankedSelected(
  component: FigureComponent,
  data: FigureData,
  chosen: (raw: unknown) => boolean,
): number[] {
  if (component.chart === 'stacked_bar') return [];
  const columns = new FigureColumns(data);
  const role = clickedRole(component);
  return data.rows.flatMap((row, index) => (chosen(columns.value(row, role)) ? [index] : []));
}
