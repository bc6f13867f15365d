import type { PieSeriesOption, TreeSeriesOption } from 'echarts';
import type { DashboardFilterValue, FigureData } from '../dashboard-data.js';
import { type ChartBody, type ChartInput, plural, UPDATE_MS } from './body.js';
import { categoryLabel, FigureColumns } from './columns.js';
import { headerHeight } from './parts.js';

/**
 * Phylogenetic trees (docs/dashboards.md "Phylogenetic trees"): the server sends every node in
 * preorder with its parent; this nests them for ECharts' tree series, which lays them out
 * (rectangular or radial) and collapses a clade when it is clicked. Tips take their row's colour;
 * tips absent from the rows under the filters are grey.
 */

/** A filter lists at most this many tip names (the filter value's limit). */
export const MAX_CLADE_TIPS = 1000;
/** Beyond this many tips their names are not written beside them (the tooltip still says them). */
const NAMED_TIPS = 60;

/** Whether the node of row `index` is a tip: one tip under it, and no child (preorder: the next row's parent is not it). */
function isTipRow(columns: FigureColumns, rows: FigureData['rows'], index: number): boolean {
  return columns.number(rows[index] ?? [], 'tips') === 1 && columns.number(rows[index + 1] ?? [], 'parent') !== index;
}

interface TreeNode {
  name: string;
  /** The node's index in the answer's rows (a click reads it back). */
  node: number;
  /** Shown by the tooltip: a tip's colour value, or a clade's tip count and support. */
  value: string;
  children?: TreeNode[];
  itemStyle?: { color: string };
}

function nested(input: ChartInput): TreeNode | null {
  const { columns, data, palette } = input;
  const nodes: TreeNode[] = data.rows.map((row, index) => {
    const tips = columns.number(row, 'tips') ?? 0;
    const support = columns.number(row, 'support');
    const name = columns.value(row, 'name');
    const isTip = isTipRow(columns, data.rows, index);
    const matched = columns.value(row, 'matched') === true;
    const colour = columns.has('color') ? categoryLabel(columns.value(row, 'color')) : '';
    return {
      name: typeof name === 'string' ? name : '',
      node: index,
      value: isTip
        ? matched
          ? colour
          : 'not in the table'
        : `${plural(tips, 'tip')}${support === null ? '' : `, support ${support}`}`,
      ...(isTip
        ? {
            itemStyle: {
              color: !matched
                ? palette.other
                : columns.has('color')
                  ? input.colors.of(colour)
                  : (palette.series[0] ?? ''),
            },
          }
        : {}),
    };
  });
  data.rows.forEach((row, index) => {
    const parent = columns.number(row, 'parent');
    const node = nodes[index];
    if (parent === null || node === undefined) return;
    const above = nodes[parent];
    if (above !== undefined) above.children = [...(above.children ?? []), node];
  });
  return nodes[0] ?? null;
}

/** The colour values of the tips drawn in colour, in the order they first come. */
function tipColours(input: ChartInput): string[] {
  const { columns, data } = input;
  if (!columns.has('color')) return [];
  const values = new Set<string>();
  data.rows.forEach((row, index) => {
    const isTip = columns.number(row, 'tips') === 1 && columns.number(data.rows[index + 1] ?? [], 'parent') !== index;
    if (isTip && columns.value(row, 'matched') === true) values.add(categoryLabel(columns.value(row, 'color')));
  });
  return [...values];
}

/**
 * The legend's key for the tips' colours. ECharts' legend lists series and the items of pie-like
 * series, never a tree's nodes: an empty-radius pie names each colour value, drawn nowhere.
 */
function colourKey(input: ChartInput, values: readonly string[]): PieSeriesOption {
  return {
    type: 'pie',
    name: input.columns.label('color'),
    radius: [0, 0],
    silent: true,
    label: { show: false },
    labelLine: { show: false },
    tooltip: { show: false },
    legendHoverLink: false,
    data: values.map((value) => ({ name: value, value: 1, itemStyle: { color: input.colors.of(value) } })),
  };
}

export function tree(input: ChartInput): ChartBody {
  const { columns, data, palette, component } = input;
  const root = nested(input);
  const tips = columns.number(data.rows[0] ?? [], 'tips') ?? 0;
  const radial = component.layout === 'radial';
  const colours = tipColours(input);
  const legend = colours.length > 0;
  const series: TreeSeriesOption = {
    type: 'tree',
    data: root === null ? [] : [root],
    layout: radial ? 'radial' : 'orthogonal',
    orient: 'LR',
    edgeShape: radial ? 'curve' : 'polyline',
    top: headerHeight({ title: component.title ?? '', legend, subtitle: 'x' }) + 8,
    bottom: 20,
    left: radial ? 20 : 30,
    right: radial ? 20 : tips > NAMED_TIPS ? 30 : 120,
    roam: true,
    expandAndCollapse: true,
    initialTreeDepth: -1,
    symbolSize: tips > NAMED_TIPS ? 3 : 6,
    itemStyle: { color: palette.dimmed, borderWidth: 0 },
    lineStyle: { color: palette.axisLine, width: 1, curveness: radial ? 0.3 : 0 },
    label: { show: false, color: palette.text },
    leaves: { label: { show: tips <= NAMED_TIPS, position: radial ? 'right' : 'right', fontSize: 10 } },
    tooltip: { formatter: '{b} {c}' },
    animationDuration: tips > NAMED_TIPS ? 0 : 300,
    animationDurationUpdate: tips > NAMED_TIPS ? 0 : UPDATE_MS,
  };
  return {
    dataset: [],
    series: legend ? [series, colourKey(input, colours)] : [series],
    legend,
    trigger: 'item',
    zoom: false,
    description: `${radial ? 'Radial' : 'Rectangular'} tree of ${plural(tips, 'tip')}${columns.has('color') ? `, tips coloured by ${columns.label('color')}` : ''}.`,
  };
}

/** The line under a tree's title: the tips drawn grey because no row under the filters names them. */
export function treeSubtitle(data: FigureData): string | undefined {
  const unmatched = data.unmatched_tips ?? 0;
  return unmatched === 0 ? undefined : `${plural(unmatched, 'tip')} not in the table, uncoloured`;
}

/**
 * The tip names of the clade a click on a tree's node selects (a tip alone for a tip), or
 * undefined when the click is not on a node, or the clade has more tips than a filter lists.
 */
export function cladeTips(data: FigureData, clicked: unknown): string[] | undefined {
  const node = (clicked as { node?: unknown } | null | undefined)?.node;
  if (typeof node !== 'number' || node < 0 || node >= data.rows.length) return undefined;
  const columns = new FigureColumns(data);
  // Preorder: the clade is the run of rows after it whose parent lies within it.
  const names: string[] = [];
  for (let index = node; index < data.rows.length; index++) {
    const row = data.rows[index] ?? [];
    if (index > node && (columns.number(row, 'parent') ?? -1) < node) break;
    const name = columns.value(row, 'name');
    if (isTipRow(columns, data.rows, index) && typeof name === 'string') names.push(name);
    if (names.length > MAX_CLADE_TIPS) return undefined;
  }
  return names.length === 0 ? undefined : names;
}

/** A clade's filter: its tips, or none when the same clade was selected already. */
export function toggleClade(current: DashboardFilterValue | null | undefined, tips: readonly string[]) {
  const same = Array.isArray(current) && current.length === tips.length && tips.every((tip) => current.includes(tip));
  return same ? null : [...tips];
}
