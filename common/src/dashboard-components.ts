import { z } from 'zod';
import { cardFields, checkCardFields } from './card-fields.js';
import { genomeTrackFields, genomeTrackProblems } from './figure-fields/genome-tracks.js';
import { checkHierarchySetFields, hierarchySetFields } from './figure-fields/hierarchy-sets.js';
import { checkMapFields, mapFigureFields } from './figure-fields/maps.js';
import { checkRankedDistributionFields, rankedDistributionFields } from './figure-fields/ranked-distributions.js';
import { checkSampleFigure, sampleFigureFields } from './figure-fields/samples.js';
import { columnNameSchema } from './queries.js';
import { timeGrainSchema } from './time-grain.js';

/**
 * The analytic components of a dashboard (docs/architecture.md "Dashboards"): figures, cards and interactive
 * filters. Each reads one data collection of the dashboard's project; everything they show is
 * computed on the server (`POST /dashboards/{id}/data`, dashboard-data.ts).
 */

/** Names a component inside its dashboard (the layout, filters and the rows route refer to it). */
export const componentIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'use letters, digits, `_`, `.` and `-`, starting with a letter or digit');

export const componentTitleSchema = z.string().trim().max(200).optional();

/** Names a tab of a dashboard (docs/dashboards.md "Tabs"); same characters as a component id. */
export const tabIdSchema = componentIdSchema;
/** The tab a component lives in (absent: the first tab). */
export const componentTabSchema = tabIdSchema.optional();

const dataCollectionIdSchema = z.string().min(1).max(64);

export const CHART_TYPES = [
  'scatter',
  'line',
  'bar',
  'area',
  'histogram',
  'box',
  'violin',
  'heatmap',
  'pie',
  'volcano',
  'ma',
  'manhattan',
  'qq',
  'coverage',
  'sunburst',
  'treemap',
  'sankey',
  'upset',
  'clustered_heatmap',
  'embedding',
  'rarefaction',
  'oncoplot',
  'tree',
  'lollipop',
  'diverging_bar',
  'dot',
  'stacked_bar',
  'strip',
  'ecdf',
  'density_contour',
  'funnel',
  'choropleth',
  'point_map',
] as const;
export const chartTypeSchema = z.enum(CHART_TYPES);
export type ChartType = z.infer<typeof chartTypeSchema>;

/** Aggregates of figures and cards; `count` counts rows and needs no column. */
export const componentAggSchema = z.enum(['count', 'sum', 'mean', 'median', 'min', 'max', 'count_distinct']);
export type ComponentAgg = z.infer<typeof componentAggSchema>;

/** Points a scatter draws before it is sampled (the answer then says `sampled: true`). */
export const DEFAULT_POINT_BUDGET = 5000;
/** Categories a bar, pie or heatmap axis keeps before the rest fold into one "other". */
export const DEFAULT_CATEGORY_BUDGET = 20;
/** Bins of a histogram, violin or binned heatmap axis when `bins` is not given. */
export const DEFAULT_BINS = 30;
/**
 * Manhattan plots: points sent before the non-significant ones are thinned (volcano, MA and QQ
 * plots, clouds of points like a scatter, keep a scatter's `DEFAULT_POINT_BUDGET`). 500 columns of
 * 20 cells across the genome: narrower than a point on a chart as wide as a screen, and well under
 * the ~20,000 the contract allows. Like Grafana's "max data points" (a panel's width in pixels),
 * more would cost the browser time to draw what no pixel shows.
 */
export const DEFAULT_MANHATTAN_POINT_BUDGET = 10_000;
/** Volcano and MA: the most significant up and down points named beside them, always sent. */
export const LABELLED_HITS = 10;
/** Volcano and MA: significant below this p (or q) value… */
export const DEFAULT_P_THRESHOLD = 0.05;
/** …and at least this far from 0 in fold change. */
export const DEFAULT_FC_THRESHOLD = 1;
/** Manhattan: the genome-wide significance line. */
export const DEFAULT_GENOME_THRESHOLD = 5e-8;

/**
 * What each chart reads (checked on save and again against the table's schema when data is asked):
 * - `scatter`: `x`, `y` (numeric or temporal), `color?` (groups), `size?` (numeric).
 * - `line`, `area`: `x` (any orderable column), `agg` of `y` per `x` (and `color`); `count` needs no `y`.
 * - `bar`: `x` (categories, top `max_categories` kept, the rest folded into "other"), `agg` of `y`, `color?`.
 * - `histogram`: `x` (numeric or temporal) in `bins` equal-width bins, counted; `color?` stacks.
 * - `box`, `violin`: `y` (numeric) summarized per `x?` group; violins add `bins` density bins.
 * - `heatmap`: `x` by `y` (numeric axes binned, text axes top-N), the cell is `agg` of `color` (or a count).
 * - `pie`: slices by `color` (top-N plus "other"), sized by `agg` of `y` (a count without `y`).
 * - `volcano`: `x` (fold change) by `y` (p or q value, drawn as −log10), `label?`; classes from
 *   `p_threshold` and `fc_threshold`.
 * - `ma`: `x` (mean) by `y` (fold change); with `p` (a p or q value column) the volcano's classes.
 * - `manhattan`: `chromosome`, `position`, `y` (p value); `threshold` the genome-wide line.
 * - `qq`: `y` (p values), observed against expected −log10 p, with the inflation factor λ.
 * - `coverage`: `y` (depth) along `position`, a line per `color?` (sample); the lowest and
 *   highest depth per bucket of `buckets` along the positions.
 * - `sunburst`, `treemap`, `sankey`, `upset`: figure-fields/hierarchy-sets.ts.
 * - `clustered_heatmap`, `embedding`, `rarefaction`, `oncoplot`: figure-fields/samples.ts.
 * - `tree`: a Newick file of the collection (`tree_file?`), its tips named by `tip`, coloured by `color?`.
 * - `lollipop`, `diverging_bar`, `dot`, `stacked_bar`, `strip`, `ecdf`, `density_contour`, `funnel`:
 *   figure-fields/ranked-distributions.ts.
 * - `choropleth`, `point_map`: figure-fields/maps.ts.
 */
export const figureComponentSchema = z
  .strictObject({
    component_id: componentIdSchema,
    type: z.literal('figure'),
    title: componentTitleSchema,
    tab_id: componentTabSchema,
    data_collection_id: dataCollectionIdSchema,
    chart: chartTypeSchema,
    x: columnNameSchema.optional(),
    y: columnNameSchema.optional(),
    color: columnNameSchema.optional(),
    size: columnNameSchema.optional(),
    agg: componentAggSchema.optional(),
    bins: z.number().int().min(2).max(500).optional(),
    log_x: z.boolean().optional(),
    log_y: z.boolean().optional(),
    /** Scatter points drawn before sampling (default 5,000). */
    max_points: z.number().int().min(100).max(50_000).optional(),
    /** Categories kept before folding the rest into "other" (default 20). */
    max_categories: z.number().int().min(2).max(500).optional(),
    /** Volcano, MA: a column naming each point (the most significant are labelled). */
    label: columnNameSchema.optional(),
    /** MA: the p (or q) value column that classes the points. */
    p: columnNameSchema.optional(),
    /** Volcano, MA: significant when the p value is below it (default 0.05). */
    p_threshold: z.number().gt(0).max(1).optional(),
    /** Volcano, MA: up when the fold change is at least it, down when at most its negative (default 1). */
    fc_threshold: z.number().min(0).max(1e6).optional(),
    /** Line, area: the calendar unit a date or timestamp x is counted by (default: from the data's span). */
    time_grain: timeGrainSchema.optional(),
    /** Manhattan: the chromosome column (text or integer) and the position along it. */
    chromosome: columnNameSchema.optional(),
    position: columnNameSchema.optional(),
    /** Manhattan: genome-wide significance (default 5e-8). */
    threshold: z.number().gt(0).max(1).optional(),
    ...genomeTrackFields,
    ...hierarchySetFields,
    ...sampleFigureFields,
    ...rankedDistributionFields,
    ...mapFigureFields,
  })
  .superRefine((figure, context) => {
    const need = (field: 'x' | 'y' | 'color' | 'chromosome' | 'position', why: string) => {
      if (figure[field] === undefined) context.addIssue({ code: 'custom', path: [field], message: why });
    };
    const agg = figure.agg ?? 'count';
    switch (figure.chart) {
      case 'scatter':
        need('x', 'a scatter needs x');
        need('y', 'a scatter needs y');
        break;
      case 'line':
      case 'area':
      case 'bar':
        need('x', `a ${figure.chart} chart needs x`);
        if (agg !== 'count') need('y', `${agg} needs y`);
        break;
      case 'histogram':
        need('x', 'a histogram needs x');
        break;
      case 'box':
      case 'violin':
        need('y', `a ${figure.chart} plot needs y`);
        break;
      case 'heatmap':
        need('x', 'a heatmap needs x');
        need('y', 'a heatmap needs y');
        if (agg !== 'count') need('color', `${agg} of the cells needs color`);
        break;
      case 'pie':
        need('color', 'a pie needs color (its slices)');
        if (agg !== 'count') need('y', `${agg} needs y`);
        break;
      case 'volcano':
        need('x', 'a volcano plot needs x (the fold change)');
        need('y', 'a volcano plot needs y (the p or q value)');
        break;
      case 'ma':
        need('x', 'an MA plot needs x (the mean)');
        need('y', 'an MA plot needs y (the fold change)');
        break;
      case 'manhattan':
        need('chromosome', 'a Manhattan plot needs chromosome');
        need('position', 'a Manhattan plot needs position');
        need('y', 'a Manhattan plot needs y (the p value)');
        break;
      case 'qq':
        need('y', 'a QQ plot needs y (the p values)');
        break;
      case 'coverage':
      case 'tree':
        for (const { path, message } of genomeTrackProblems(figure))
          context.addIssue({ code: 'custom', path: [path], message });
        break;
      case 'sunburst':
      case 'treemap':
      case 'sankey':
      case 'upset':
        checkHierarchySetFields(figure, context);
        break;
      case 'clustered_heatmap':
      case 'embedding':
      case 'rarefaction':
      case 'oncoplot':
        checkSampleFigure(figure, context);
        break;
    }
    if (figure.time_grain !== undefined && figure.chart !== 'line' && figure.chart !== 'area')
      context.addIssue({ code: 'custom', path: ['time_grain'], message: 'a time grain is for line and area charts' });
    // Lollipop, diverging bar, dot, stacked bar, strip, ECDF, density, funnel (and their fields on other charts).
    checkRankedDistributionFields(figure, context);
    checkMapFields(figure, context);
  })
  .meta({ id: 'FigureComponent' });
export type FigureComponent = z.infer<typeof figureComponentSchema>;

/**
 * One number (`agg` of `column`, or a row count), shown with the same number on the unfiltered
 * table; optionally compared, coloured by thresholds, drawn as a sparkline or gauge (card-fields.ts).
 */
export const cardComponentSchema = z
  .strictObject({
    component_id: componentIdSchema,
    type: z.literal('card'),
    title: componentTitleSchema,
    tab_id: componentTabSchema,
    data_collection_id: dataCollectionIdSchema,
    column: columnNameSchema.optional(),
    ...cardFields,
  })
  .superRefine(checkCardFields)
  .meta({ id: 'CardComponent' });
export type CardComponent = z.infer<typeof cardComponentSchema>;

export const INTERACTIVE_WIDGETS = ['select', 'multiselect', 'range', 'date_range', 'switch', 'search'] as const;
export const interactiveWidgetSchema = z.enum(INTERACTIVE_WIDGETS);
export type InteractiveWidget = z.infer<typeof interactiveWidgetSchema>;

/** A filter the reader sets; it narrows every component on its collection and those joined to it. */
export const interactiveComponentSchema = z
  .strictObject({
    component_id: componentIdSchema,
    type: z.literal('interactive'),
    title: componentTitleSchema,
    tab_id: componentTabSchema,
    data_collection_id: dataCollectionIdSchema,
    widget: interactiveWidgetSchema,
    column: columnNameSchema,
  })
  .meta({ id: 'InteractiveComponent' });
export type InteractiveComponent = z.infer<typeof interactiveComponentSchema>;
