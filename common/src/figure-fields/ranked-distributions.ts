import { z } from 'zod';
import { columnNameSchema } from '../queries.js';

/**
 * The fields of the ranked-effect, composition and distribution charts (docs/dashboards.md
 * "Ranked effects, dots, stacked bars, strips, ECDFs, densities and funnels"). They reuse the
 * figure's `x`, `y`, `color`, `size`, `agg`, `bins`, `max_points` and `max_categories`:
 * - `lollipop`, `diverging_bar`: `x` the categories (one per row, ranked by effect), `y` the
 *   effect; the `max_categories` of largest |effect| are drawn, the answer says how many were not;
 *   a lollipop draws `error` as whiskers (effect ± error). Diverging bars are coloured by sign.
 * - `dot`: `y` the terms, `x?` the groups; each dot's `size` and `color` the mean of those numeric
 *   columns over the term's rows in the group (rows counted without `size`); the `max_categories`
 *   terms first by `rank_by` are kept.
 * - `stacked_bar`: `x` the samples, `color` the taxa (any column: the chosen rank), `y` the
 *   abundance summed (rows counted without it); the `max_categories` taxa of largest total kept,
 *   the rest one "other" segment; each sample normalised to 100 % unless `normalize` is false;
 *   samples in the order of `sort_by` (then by name).
 * - `strip`: `x` the values along the axis, `y?` the categories (one strip each), `color?`
 *   groups; beyond `max_points` a uniform sample of the points.
 * - `ecdf`: `x` the values, `color?` groups; the cumulative share of rows at or below each value,
 *   at most `max_points` steps in all.
 * - `density_contour`: `x` by `y` on a `bins` × `bins` grid: each cell's rows per unit of area
 *   over all rows, drawn as contour lines.
 * - `funnel`: `x` the stages, `agg` of `y` each (a row count without `y`), largest first;
 *   `max_categories` stages kept.
 */

export const RANKED_DISTRIBUTION_CHARTS = [
  'lollipop',
  'diverging_bar',
  'dot',
  'stacked_bar',
  'strip',
  'ecdf',
  'density_contour',
  'funnel',
] as const;
export type RankedDistributionChart = (typeof RANKED_DISTRIBUTION_CHARTS)[number];

export const isRankedDistributionChart = (chart: string): chart is RankedDistributionChart =>
  (RANKED_DISTRIBUTION_CHARTS as readonly string[]).includes(chart);

/** Clicked: each drawn category (a bar, lollipop, dot's term, stack's taxon, funnel stage) filters the others. */
export const CATEGORY_CLICK_CHARTS: readonly RankedDistributionChart[] = [
  'lollipop',
  'diverging_bar',
  'dot',
  'stacked_bar',
  'funnel',
];
/** Brushed: a range of `x` (the strip's values, the ECDF's values, the density's x) filters the others. */
export const RANGE_BRUSH_CHARTS: readonly RankedDistributionChart[] = ['strip', 'ecdf', 'density_contour'];

/** Lollipop, diverging bar, dot, funnel: categories drawn when `max_categories` is not given. */
export const DEFAULT_RANKED_BUDGET = 20;
/** Stacked bar: taxa drawn before the rest become one "other" segment. */
export const DEFAULT_STACK_BUDGET = 10;
/** Stacked bar: samples drawn at most (the first in `sort_by` order; the answer says how many were not). */
export const STACKED_SAMPLE_BUDGET = 500;
/** ECDF: steps drawn in all (over every group) when `max_points` is not given. */
export const DEFAULT_ECDF_STEPS = 2000;
/** Density: cells along each axis when `bins` is not given. */
export const DEFAULT_DENSITY_BINS = 40;

/** Dot plot: which terms are first: the largest size, or the lowest or highest colour (a p value: lowest). */
export const DOT_RANKINGS = ['size', 'color_low', 'color_high'] as const;

export const rankedDistributionFields = {
  /** Lollipop: a numeric column drawn as whiskers, effect ± error (e.g. ANCOM-BC's `se`). */
  error: columnNameSchema.optional(),
  /** Stacked bar: each sample's segments as percentages of its total (default true); false draws raw sums. */
  normalize: z.boolean().optional(),
  /** Stacked bar: the column whose value orders the samples (its smallest per sample; default the sample). */
  sort_by: columnNameSchema.optional(),
  /** Dot plot: which terms are kept first (default `size`: the largest). */
  rank_by: z.enum(DOT_RANKINGS).optional(),
};

interface RankedDistributionFigure {
  chart: string;
  x?: string | undefined;
  y?: string | undefined;
  color?: string | undefined;
  size?: string | undefined;
  error?: string | undefined;
  normalize?: boolean | undefined;
  sort_by?: string | undefined;
  rank_by?: string | undefined;
}

/** What each chart needs, by field, as the save-time message says it. */
const NEEDS: Record<RankedDistributionChart, [field: 'x' | 'y' | 'color', why: string][]> = {
  lollipop: [
    ['x', 'a lollipop chart needs x (the categories)'],
    ['y', 'a lollipop chart needs y (the effect)'],
  ],
  diverging_bar: [
    ['x', 'a diverging bar chart needs x (the categories)'],
    ['y', 'a diverging bar chart needs y (the effect)'],
  ],
  dot: [['y', 'a dot plot needs y (the terms)']],
  stacked_bar: [
    ['x', 'a stacked bar chart needs x (the samples)'],
    ['color', 'a stacked bar chart needs color (the taxa, or any column to stack)'],
  ],
  strip: [['x', 'a strip plot needs x (the values)']],
  ecdf: [['x', 'an ECDF needs x (the values)']],
  density_contour: [
    ['x', 'a density plot needs x'],
    ['y', 'a density plot needs y'],
  ],
  funnel: [['x', 'a funnel needs x (the stages)']],
};

/** Fields only some of these charts read: naming them on another chart is a mistake worth saying. */
const ONLY: [field: 'error' | 'normalize' | 'sort_by' | 'rank_by', charts: readonly string[]][] = [
  ['error', ['lollipop']],
  ['normalize', ['stacked_bar']],
  ['sort_by', ['stacked_bar']],
  ['rank_by', ['dot']],
];

/** The save-time checks of these charts' fields (called from the figure schema's superRefine). */
export function checkRankedDistributionFields(figure: RankedDistributionFigure, context: z.RefinementCtx): void {
  const problem = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
  if (isRankedDistributionChart(figure.chart)) {
    for (const [field, why] of NEEDS[figure.chart]) if (figure[field] === undefined) problem(field, why);
  }
  for (const [field, charts] of ONLY) {
    if (figure[field] !== undefined && !charts.includes(figure.chart)) {
      problem(field, `${field} is read by ${charts.join(', ')} charts only`);
    }
  }
  if (figure.chart === 'dot' && figure.rank_by?.startsWith('color') && figure.color === undefined) {
    problem('rank_by', `rank_by ${figure.rank_by} needs color`);
  }
  if (figure.chart === 'density_contour' && figure.x !== undefined && figure.x === figure.y) {
    problem('y', 'y must differ from x');
  }
}

/**
 * The answers of these charts, besides `columns` and `rows` (whose roles dashboard-data.ts lists):
 * how much was left out of the drawing, so the chart can say it.
 */
export const rankedDistributionDataFields = {
  /** Lollipop, diverging bar, dot, funnel: categories (terms, stages) beyond the budget, not drawn; stacked bar: taxa folded into "other". */
  not_shown: z.number().int().optional(),
  /** Stacked bar: samples beyond the sample budget, not drawn. */
  samples_not_shown: z.number().int().optional(),
  /** Density: the grid's lowest edges, cell size, cells along each axis and the rows placed on it (those with both values). */
  grid: z
    .object({
      x_low: z.number(),
      y_low: z.number(),
      x_step: z.number(),
      y_step: z.number(),
      x_bins: z.number().int(),
      y_bins: z.number().int(),
      placed: z.number().int(),
    })
    .optional(),
};

/** The column a click or brush on one of these charts filters (every other component's rows by it). */
export function rankedDistributionFilterColumn(figure: RankedDistributionFigure): string | undefined {
  if (figure.chart === 'dot') return figure.y;
  if (figure.chart === 'stacked_bar') return figure.color;
  return figure.x;
}
