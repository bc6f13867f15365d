import type { FigureComponent } from '../dashboard-components.js';
import type { FigureData } from '../dashboard-data.js';
import { categoryLabel, FigureColumns } from './columns.js';
import type { ChartPalette } from './palette.js';

/**
 * One colour per value across a dashboard: each category (as its label: "Adelie", "(missing)")
 * mapped to a position in the palette's series colours, so a value keeps its colour in every
 * chart whatever the filters and the theme (light and dark share the positions).
 */
export type ColorAssignment = ReadonlyMap<string, number>;

/** A figure and its answer, in the dashboard's order of components. */
export interface FigureAnswer {
  component: FigureComponent;
  data: FigureData;
}

/** The role whose values a chart tells apart by colour: its `color`, or the groups along x of a violin. */
function coloredRole(component: FigureComponent): string | null {
  if (component.chart === 'violin') return 'x';
  // A dot plot's color is a number on a scale, not a category.
  if (component.chart === 'heatmap' || component.chart === 'box' || component.chart === 'dot') return null;
  if (component.chart === 'funnel') return 'x';
  return 'color';
}

/**
 * The assignment of a dashboard: values in order of their first appearance in the figures' answers
 * (components in the dashboard's order, rows in the answer's order). Built from the unfiltered
 * answers, a filter only hides values and never moves a colour. The fold ("Other") has its own grey.
 */
export function assignColors(figures: Iterable<FigureAnswer>): ColorAssignment {
  return colorAssignment(extendColors([], figures));
}

/** A palette (values in order, as a dashboard stores it) as an assignment. */
export function colorAssignment(values: readonly string[]): ColorAssignment {
  const assignment = new Map<string, number>();
  // A value listed twice (a hand-edited file) keeps its first place.
  for (const value of values) if (!assignment.has(value)) assignment.set(value, assignment.size);
  return assignment;
}

/**
 * A stored palette with the values the figures' answers show and it lacks appended, in order of
 * first appearance: a value never moves once stored, so reloads and exports agree.
 */
export function extendColors(stored: readonly string[], figures: Iterable<FigureAnswer>): string[] {
  const assigned = new Set(stored);
  const added: string[] = [];
  for (const { component, data } of figures) {
    const role = coloredRole(component);
    const columns = new FigureColumns(data);
    if (role === null || !columns.has(role)) continue;
    for (const row of data.rows) {
      if (columns.isOther(row)) continue;
      const label = categoryLabel(columns.value(row, role));
      if (!assigned.has(label)) {
        assigned.add(label);
        added.push(label);
      }
    }
  }
  return [...stored, ...added];
}

/**
 * The colour of each series (or slice) of one chart: from the dashboard's assignment, and for a
 * value it does not know (one folded into "Other" before a filter brought it out) the next free
 * position, in the chart's order.
 */
export class SeriesColors {
  private readonly extra = new Map<string, number>();

  constructor(
    private readonly palette: ChartPalette,
    private readonly assigned: ColorAssignment,
  ) {}

  of(label: string, other = false): string {
    if (other) return this.palette.other;
    let position = this.assigned.get(label) ?? this.extra.get(label);
    if (position === undefined) {
      position = this.assigned.size + this.extra.size;
      this.extra.set(label, position);
    }
    const { series } = this.palette;
    return series[position % series.length] ?? this.palette.other;
  }
}
