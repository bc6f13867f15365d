import type { SankeySeriesOption, SunburstSeriesOption, TreemapSeriesOption } from 'echarts';
import type { DashboardFilterValue, FigureData } from '../dashboard-data.js';
import { type ChartBody, type ChartInput, plural, stillFor, UPDATE_MS } from './body.js';
import { categoryLabel, rounded } from './columns.js';
import type { ChartPalette } from './palette.js';
import { headerHeight } from './parts.js';

/**
 * Sunburst, treemap and sankey (the server nested and folded everything:
 * analytics/components/hierarchy.ts); these draw them, UpSet plots in upset.ts. Each clickable
 * item of the four carries the cross-filter value it sets as `filter` (`clickedFilter`): a node's
 * path, a sankey's `[level, value]` or `[level, from, to]`, an intersection's sets; items folded
 * into "Other" carry none.
 */

type Scalar = string | number | boolean | null;
type Node = NonNullable<FigureData['nodes']>[number];

interface TreeItem {
  name: string;
  value: number;
  filter: Scalar[] | null;
  itemStyle?: { color: string };
  children?: TreeItem[];
}

const keyOf = (path: readonly Scalar[]) => JSON.stringify(path);

/** The nodes as ECharts' nested items, the largest first; top-level ones coloured by the palette. */
function treeOf(input: ChartInput): TreeItem[] {
  const nodes = input.data.nodes ?? [];
  const byKey = new Map<string, TreeItem>();
  const roots: TreeItem[] = [];
  for (const node of nodes) {
    const item: TreeItem = {
      name: categoryLabel(node.path.at(-1), node.other === true && node.path.at(-1) === 'Other'),
      value: rounded(node.value) ?? 0,
      filter: node.other === true ? null : node.path,
    };
    const parent = node.path.length > 1 ? byKey.get(keyOf(node.path.slice(0, -1))) : undefined;
    if (node.path.length === 1) {
      item.itemStyle = { color: node.other ? input.palette.other : input.colors.of(item.name, false) };
      roots.push(item);
    } else if (parent !== undefined) {
      parent.children ??= [];
      parent.children.push(item);
    }
    byKey.set(keyOf(node.path), item);
  }
  return roots;
}

/**
 * The smallest share of the whole drawn as a mark of its own: half a degree of a sunburst, a square
 * of ~14 px in a treemap of 450 × 330, under half a pixel of a sankey some 300 px high. Levels of
 * columns that do not nest (every genus under every phylum) make thousands of smaller ones: too
 * small to see, label or point at, yet each an element ECharts lays out and paints, ~0.2–0.4 s of a
 * 2-CPU page per filter change for a sunburst of 4,000, a treemap or a sankey of 2,000.
 */
export const SMALLEST_DRAWN_SHARE = 1 / 720;

/**
 * The items drawn with, among each node's children, those under `smallest` drawn as one
 * "N smaller values" item (which filters nothing) when there are two or more; `merged` counts them.
 */
function withoutSlivers(
  items: TreeItem[],
  smallest: number,
  palette: ChartPalette,
): { items: TreeItem[]; merged: number } {
  const small = items.filter((item) => item.value < smallest);
  const kept = small.length < 2 ? items : items.filter((item) => item.value >= smallest);
  let merged = small.length < 2 ? 0 : small.length;
  const drawn = kept.map((item) => {
    if (item.children === undefined) return item;
    const children = withoutSlivers(item.children, smallest, palette);
    merged += children.merged;
    return { ...item, children: children.items };
  });
  if (small.length < 2) return { items: drawn, merged };
  const value = small.reduce((sum, item) => sum + item.value, 0);
  // At the top level, grey as the folded "Other"; below, the parent's colour as its other children.
  const top = small.some((item) => item.itemStyle !== undefined);
  const piece: TreeItem = {
    name: plural(small.length, 'smaller value'),
    value: rounded(value) ?? 0,
    filter: null,
    ...(top ? { itemStyle: { color: palette.other } } : {}),
  };
  return { items: [...drawn, piece], merged };
}

/** A sunburst's or treemap's items: its tree with the smallest of each node's children drawn as one. */
function drawnTree(input: ChartInput): { items: TreeItem[]; merged: number } {
  const roots = treeOf(input);
  const whole = roots.reduce((sum, root) => sum + Math.max(0, root.value), 0);
  return withoutSlivers(roots, whole * SMALLEST_DRAWN_SHARE, input.palette);
}

function levelNames(input: ChartInput): string {
  return (input.component.levels ?? []).join(' → ');
}

function depthOf(data: FigureData): number {
  return Math.max(0, ...(data.nodes ?? []).map((node: Node) => node.path.length));
}

export function sunburst(input: ChartInput): ChartBody {
  const pieces = drawnTree(input);
  const series: SunburstSeriesOption = {
    type: 'sunburst',
    data: pieces.items,
    // Below the title.
    center: ['50%', '56%'],
    radius: [0, '76%'],
    // A click filters (FigureView); the figure does not zoom into the node.
    nodeClick: false,
    label: { rotate: 'radial', color: input.palette.text, minAngle: 8, fontSize: 10 },
    // Of two names that overlap (long names in neighbouring rings), the larger piece's is kept
    // (server/test/export/echarts-bundle.test.ts).
    labelLayout: { hideOverlap: true },
    itemStyle: { borderColor: input.palette.tooltipBackground, borderWidth: 1 },
    emphasis: { focus: 'ancestor' },
    // Its series' own default is 0.5 s.
    animationDurationUpdate: UPDATE_MS,
  };
  return hierarchyBody(input, series, pieces);
}

export function treemap(input: ChartInput): ChartBody {
  const rectangles = drawnTree(input);
  const series: TreemapSeriesOption = {
    type: 'treemap',
    data: rectangles.items,
    top: headerHeight({ title: input.component.title ?? '', legend: false, subtitle: 'x' }) + 8,
    bottom: 28,
    left: 0,
    right: 0,
    roam: false,
    nodeClick: false,
    breadcrumb: { show: false },
    upperLabel: { show: true, height: 18, color: input.palette.text },
    label: { color: '#ffffff' },
    levels: [
      { itemStyle: { borderWidth: 2, gapWidth: 2, borderColor: input.palette.tooltipBackground } },
      { itemStyle: { borderWidth: 1, gapWidth: 1, borderColorSaturation: 0.6 } },
    ],
    // Its series' own default is 0.9 s.
    animationDurationUpdate: UPDATE_MS,
  };
  return hierarchyBody(input, series, rectangles);
}

/**
 * A sunburst's or treemap's body. One of many nodes is drawn without transitions (`stillFor`):
 * each frame of a treemap's moved rectangles painted all ~2,000 of them again (~0.5 s a change).
 */
function hierarchyBody(
  input: ChartInput,
  series: SunburstSeriesOption | TreemapSeriesOption,
  drawn: { items: readonly TreeItem[]; merged: number },
): ChartBody {
  const kind = series.type === 'sunburst' ? 'Sunburst' : 'Treemap';
  const roots = drawn.items;
  const shown = roots.slice(0, 8).map((root) => root.name);
  const merged =
    drawn.merged > 0 ? `; ${plural(drawn.merged, 'value')} under 1/720 of the whole drawn as one per parent` : '';
  return {
    dataset: [],
    series: [series],
    legend: false,
    trigger: 'item',
    zoom: false,
    still: stillFor(input.data.nodes?.length ?? 0),
    description:
      `${kind} of ${levelNames(input)} (${plural(depthOf(input.data), 'level')}): ` +
      `${plural(roots.length, 'top-level node')} (${shown.join(', ')}${roots.length > shown.length ? ', …' : ''})${merged}.`,
  };
}

/** A sankey node's name: its value, made unique per level by invisible marks (ECharts names nodes uniquely). */
const nodeName = (value: Scalar, level: number, other: boolean) =>
  `${categoryLabel(value, other && value === 'Other')}${'\u200b'.repeat(level)}`;

type Link = NonNullable<FigureData['links']>[number];

/**
 * The flows a sankey draws: those of at least `SMALLEST_DRAWN_SHARE` of their pair of levels' whole
 * (`thin` counts the others). Their nodes keep their full size (`sankey` gives each its total).
 */
export function drawnFlows(links: readonly Link[]): { drawn: Link[]; thin: number } {
  const wholes = new Map<number, number>();
  for (const link of links) wholes.set(link.level, (wholes.get(link.level) ?? 0) + Math.max(0, link.value));
  const drawn = links.filter((link) => link.value >= (wholes.get(link.level) ?? 0) * SMALLEST_DRAWN_SHARE);
  return { drawn, thin: links.length - drawn.length };
}

interface SankeyNode {
  name: string;
  depth: number;
  filter: Scalar[] | null;
  /** Its size: the larger of what flows in and out, the flows not drawn included. */
  value: number;
}

const sourceName = (link: Link) => nodeName(link.from, link.level, link.other === true);
const targetName = (link: Link) => nodeName(link.to, link.level + 1, link.other === true);

/** Every node of the flows, in their order, sized by all of them. */
function sankeyNodes(links: readonly Link[]): SankeyNode[] {
  const nodes = new Map<string, SankeyNode & { in: number; out: number }>();
  const add = (name: string, level: number, value: Scalar, other: boolean) => {
    const known = nodes.get(name);
    if (known !== undefined) return known;
    const folded = other && value === 'Other';
    const node = { name, depth: level, filter: folded ? null : [level, value], value: 0, in: 0, out: 0 };
    nodes.set(name, node);
    return node;
  };
  for (const link of links) {
    add(sourceName(link), link.level, link.from, link.other === true).out += link.value;
    add(targetName(link), link.level + 1, link.to, link.other === true).in += link.value;
  }
  return [...nodes.values()].map(({ in: inflow, out, ...node }) => ({
    ...node,
    value: rounded(Math.max(inflow, out)) ?? 0,
  }));
}

export function sankey(input: ChartInput): ChartBody {
  const links = input.data.links ?? [];
  const nodes = sankeyNodes(links);
  const { drawn, thin } = drawnFlows(links);
  const series: SankeySeriesOption = {
    type: 'sankey',
    top: headerHeight({ title: input.component.title ?? '', legend: false, subtitle: 'x' }) + 8,
    bottom: 8,
    left: 8,
    right: 8,
    nodeAlign: 'justify',
    data: nodes,
    // The last column named on the left of its nodes, over the flows into them: on their right, the
    // names ran past the chart's edge ("Betaproteobacteri…") in a margin kept empty above them.
    levels: [{ depth: Math.max(0, ...nodes.map((node) => node.depth)), label: { position: 'left' } }],
    links: drawn.map((link) => ({
      source: sourceName(link),
      target: targetName(link),
      value: rounded(link.value) ?? 0,
      filter: link.other === true ? null : [link.level, link.from, link.to],
    })),
    lineStyle: { color: 'gradient', opacity: 0.35 },
    label: { color: input.palette.text, fontSize: 11 },
    // Of two names that overlap (small nodes stacked in a column), the larger node's is kept.
    labelLayout: { hideOverlap: true },
    emphasis: { focus: 'adjacency' },
  };
  const note = thin > 0 ? `; ${plural(thin, 'flow')} under half a pixel not drawn` : '';
  return {
    dataset: [],
    series: [series],
    legend: false,
    trigger: 'item',
    zoom: false,
    description: `Sankey diagram of ${levelNames(input)}: ${plural(links.length, 'flow')} between ${plural(nodes.length, 'node')}${note}.`,
  };
}

/** The subtitle: what was folded, left out or not drawn. */
export function hierarchySetSubtitle(data: FigureData): string | undefined {
  if (data.left_out) {
    return `the ${plural(data.intersections?.length ?? 0, 'largest intersection')}; ${plural(data.left_out.intersections, 'other')} (${plural(data.left_out.rows, 'row')}) left out`;
  }
  const values = (data.folded ?? []).reduce((sum, { values }) => sum + values, 0);
  const thin = data.links === undefined ? 0 : drawnFlows(data.links).thin;
  const notes = [
    ...(values > 0 ? [`${plural(values, 'smaller value')} folded into “Other”`] : []),
    ...(thin > 0 ? [`${plural(thin, 'flow')} under half a pixel not drawn`] : []),
  ];
  return notes.length > 0 ? notes.join('; ') : undefined;
}

/** What ECharts says of a clicked item of these charts: the item as the option gave it. */
export interface ItemClick {
  data?: unknown;
}

/**
 * The filter a click on a node, flow or intersection sets: its value, or null when it was the
 * filter already (a second click clears it); undefined when the item filters nothing ("Other").
 */
export function clickedItemFilter(
  click: ItemClick,
  current: DashboardFilterValue | null | undefined,
): DashboardFilterValue | null | undefined {
  const data = click.data;
  if (typeof data !== 'object' || data === null || !('filter' in data)) return undefined;
  const filter = (data as { filter: unknown }).filter;
  if (!Array.isArray(filter)) return undefined;
  const value = filter as Scalar[];
  return JSON.stringify(current ?? null) === JSON.stringify(value) ? null : value;
}

/** A click filter of these charts in words (a chip): "Bacteria › Proteobacteria", "Phylum → Class: A → B", "a & b". */
export function describeItemFilter(chart: string, value: readonly unknown[]): string {
  const label = (item: unknown) => categoryLabel(item);
  if (chart === 'sankey') return value.slice(1).map(label).join(' → ');
  if (chart === 'upset') return `exactly ${value.map(label).join(' & ')}`;
  return value.map(label).join(' › ');
}
