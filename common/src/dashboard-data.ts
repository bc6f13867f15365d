import { z } from 'zod';
import { cardDataFields } from './card-fields.js';
import type { FigureComponent, InteractiveComponent } from './dashboard-components.js';
import { componentIdSchema } from './dashboard-components.js';
import { genomeTrackDataFields } from './figure-fields/genome-track-data.js';
import { brushesGenome, genomicIntervalProblem } from './figure-fields/genome-tracks.js';
import {
  hierarchySetDataFields,
  hierarchySetFilterProblem,
  isHierarchySetChart,
} from './figure-fields/hierarchy-sets.js';
import { isMapChart, mapFigureDataFields, mapFilterProblem } from './figure-fields/maps.js';
import {
  CATEGORY_CLICK_CHARTS,
  RANGE_BRUSH_CHARTS,
  rankedDistributionDataFields,
} from './figure-fields/ranked-distributions.js';
import { sampleFigureDataFields } from './figure-fields/samples.js';
import { multiqcDataSchema } from './multiqc.js';
import { jsonParamSchema, previewAnswerSchema, tableVersionEntrySchema } from './queries.js';
import { timeGrainSchema } from './time-grain.js';

/**
 * `POST /dashboards/{id}/data` (docs/architecture.md "Dashboards"): every (or the named) component's data for a
 * set of filters, in one round trip, computed in DuckDB. The same filter list goes into the rows
 * route of a table component (`filters` query parameter, JSON) and into exports.
 */

const scalarSchema = z.union([z.string().max(10_000), z.number(), z.boolean()]);
export type DashboardFilterScalar = z.infer<typeof scalarSchema>;

/**
 * The value of a filter; its shape depends on the component it names (checked by
 * `filterValueProblem`): `select`/`multiselect` and a clicked bar or pie slice a list of values
 * (null included); `range`/`date_range` and a brushed scatter, line, area or histogram
 * `[low, high]` (either may be null: open-ended); a brushed Manhattan plot a genomic interval
 * `[from chromosome, from position, to chromosome, to position]`; `switch` a boolean; `search` a string;
 * a table's selected rows the list of their keys (its `select_by` column's values).
 */
export const dashboardFilterValueSchema = z.union([
  z.boolean(),
  z.string().max(1000),
  z.array(z.union([scalarSchema, z.null()])).max(1000),
]);
export type DashboardFilterValue = z.infer<typeof dashboardFilterValueSchema>;

export const dashboardFilterSchema = z
  .strictObject({ component_id: componentIdSchema, value: dashboardFilterValueSchema })
  .meta({ id: 'DashboardFilter' });
export type DashboardFilter = z.infer<typeof dashboardFilterSchema>;

export const dashboardFiltersSchema = z.array(dashboardFilterSchema).max(100);

/** `filters` in a query string (rows route, exports, the web app's address bar): the list as JSON. */
export const dashboardFiltersParamSchema = jsonParamSchema(
  dashboardFiltersSchema,
  'filters must be a JSON array of {component_id, value}',
);

/** Charts a reader can filter by clicking categories, and those brushed along x. */
export const CLICK_FILTER_CHARTS: readonly FigureComponent['chart'][] = [
  'bar',
  'pie',
  'clustered_heatmap',
  'tree',
  'oncoplot',
  ...CATEGORY_CLICK_CHARTS,
];
export const BRUSH_FILTER_CHARTS: readonly FigureComponent['chart'][] = [
  'scatter',
  'line',
  'area',
  'histogram',
  'volcano',
  'ma',
  'coverage',
  'embedding',
  ...RANGE_BRUSH_CHARTS,
];

/**
 * Why a filter value doesn't fit the component it names, or null when it does. Shared by the
 * server (400 `validation_failed`) and the web app (a stale address-bar filter is dropped).
 */
export function filterValueProblem(
  component:
    | Pick<InteractiveComponent, 'type' | 'widget'>
    | (Pick<FigureComponent, 'type' | 'chart'> &
        Partial<Pick<FigureComponent, 'levels' | 'sets' | 'item' | 'label' | 'pca_columns' | 'chromosome' | 'z'>>)
    | { type: string },
  value: DashboardFilterValue,
): string | null {
  const isList = Array.isArray(value);
  const isRange = isList && value.length === 2 && value.every((bound) => bound === null || typeof bound !== 'boolean');
  if (component.type === 'interactive' && 'widget' in component) {
    switch (component.widget) {
      case 'select':
      case 'multiselect':
        return isList ? null : `a ${component.widget} filter is a list of values`;
      case 'range':
      case 'date_range':
        return isRange ? null : `a ${component.widget} filter is [low, high] (either may be null)`;
      case 'switch':
        return typeof value === 'boolean' ? null : 'a switch filter is true or false';
      case 'search':
        return typeof value === 'string' ? null : 'a search filter is a string';
    }
  }
  if (component.type === 'figure' && 'chart' in component) {
    if (brushesGenome(component)) return genomicIntervalProblem(value);
    if (component.chart === 'embedding') return embeddingFilterProblem(component, value);
    if (isMapChart(component.chart)) return mapFilterProblem(component.chart, value);
    if (CLICK_FILTER_CHARTS.includes(component.chart)) {
      return isList ? null : `a ${component.chart} chart filters by a list of its categories`;
    }
    if (BRUSH_FILTER_CHARTS.includes(component.chart)) {
      return isRange ? null : `a ${component.chart} chart filters by a range [low, high] of x`;
    }
    if (isHierarchySetChart(component.chart)) return hierarchySetFilterProblem(component, value);
    return `a ${component.chart} chart cannot filter other components`;
  }
  if (component.type === 'multiqc') {
    return isList ? null : 'a MultiQC plot filters by a list of its samples';
  }
  if (component.type === 'table') {
    return isList && value.length > 0 ? null : 'a table filters by a list of its selected rows’ keys';
  }
  return `a ${component.type} component cannot filter other components`;
}

/**
 * An embedding's brush. Of given coordinates: the rectangle brushed, `[x_low, x_high, y_low,
 * y_high]` (a 3-D one: `[x_low, x_high, y_low, y_high, z_low, z_high]`, null ends for the axis
 * its panel does not show), or a range `[low, high]` of x; the rows inside it are selected on the
 * server, drawn or not. A computed PCA's axes are no column: with `label` it filters by the ids
 * of the points brushed, else not at all.
 */
function embeddingFilterProblem(
  component: Partial<Pick<FigureComponent, 'label' | 'pca_columns' | 'z'>>,
  value: DashboardFilterValue,
): string | null {
  if (component.pca_columns !== undefined) {
    if (component.label === undefined) return 'a PCA embedding filters only by its points’ ids: give it a label';
    return Array.isArray(value) && value.length > 0
      ? null
      : 'a PCA embedding filters by the ids (label) of its brushed points';
  }
  const lengths = component.z === undefined ? [2, 4] : [2, 4, 6];
  const numbers = Array.isArray(value) && value.every((bound) => bound === null || typeof bound === 'number');
  return numbers && lengths.includes(value.length)
    ? null
    : `an embedding filters by the rectangle brushed: [x_low, x_high, y_low, y_high${component.z === undefined ? '' : ', z_low, z_high'}] (numbers or null)`;
}

/**
 * Time travel: a table version per data collection (collections not named read their current
 * version), or an ISO-8601 timestamp (every collection as it was then: its last commit at or before it).
 */
export const asOfSchema = z
  .union([z.record(z.string().min(1).max(64), z.number().int().min(0)), z.iso.datetime({ offset: true })])
  .meta({ id: 'AsOf' });
export type AsOf = z.infer<typeof asOfSchema>;

/** `as_of` in a query string (the rows route, the address bar): an ISO time, or the map as JSON. */
export const asOfParamSchema = z
  .string()
  .max(10_000)
  .transform((text, context): unknown => {
    if (!text.trimStart().startsWith('{')) return text;
    try {
      return JSON.parse(text);
    } catch {
      context.addIssue({ code: 'custom', message: 'as_of must be an ISO time or a JSON map of versions' });
      return z.NEVER;
    }
  })
  .pipe(asOfSchema);

// dashboardDataRequestSchema lives in dashboards.ts: its `preview` holds whole components.

/** A column of a figure's answer: its role (`x`, `y`, `count`, `q1`, …), Delta type, and the table column it shows. */
export const figureColumnSchema = z
  .object({ name: z.string(), type: z.string(), column: z.string().nullable() })
  .meta({ id: 'FigureColumn' });
export type FigureColumn = z.infer<typeof figureColumnSchema>;

/**
 * A figure's rows, aggregated/binned/sampled on the server and ready to draw; each row an array
 * in the order of `columns`. The columns by chart (optional ones only when the figure has them):
 * - scatter: `x`, `y`, `color?`, `size?` (at most `max_points` rows; `sampled` when more matched)
 * - line, area: `x`, `color?`, `y` (ordered by x; a date x counted by `time_grain`, each its first day)
 * - bar: `x`, `color?`, `y`, `other` (true on the row folding the categories beyond `max_categories`)
 * - histogram: `x_low`, `x_high`, `color?`, `count`
 * - box: `x?`, `count`, `mean`, `min`, `q1`, `median`, `q3`, `max`, `whisker_low`, `whisker_high`
 *   (whiskers: the furthest values within 1.5 × IQR of the quartiles)
 * - violin: `x?`, `y_low`, `y_high`, `count` (density bins per group)
 * - heatmap: `x`, `y`, `value` (numeric axes as the low edge of their bin)
 * - pie: `color`, `y`, `other`
 * - volcano: `x`, `y`, `minus_log10_y`, `class` (`up`, `down`, `ns`), `label?` (with `counts`)
 * - ma: `x`, `y`, `class` (`ns` for all without `p`), `p?`, `label?` (with `counts`)
 * - manhattan: `chromosome`, `position`, `genome_position`, `y`, `minus_log10_y` (with
 *   `significant` and `chromosomes`)
 * - qq: `expected`, `observed` (−log10 p, most significant last; with `lambda`)
 * - coverage: `color?`, `x_low`, `x_high`, `min`, `max`, `mean` (per sample and bucket, by position;
 *   with `bucket_width` and `left_out_series`)
 * - sunburst, treemap: `level_0` … (a leaf's path), `value` (with `nodes`, every prefix)
 * - sankey: `level`, `from`, `to`, `value` (with `links`)
 * - upset: `sets` (the names joined by " & "), `count` (with `set_sizes` and `intersections`)
 * - tree: `node`, `parent`, `name`, `length`, `support`, `tips`, `color?`, `matched` (a row per node,
 *   in preorder; with `unmatched_tips` and `tree_file`)
 * - lollipop, diverging_bar: `x`, `y` (the effect, largest first), `error?` (with `not_shown`)
 * - dot: `x?` (group), `y` (term, kept terms in rank order), `size`, `color?` (with `not_shown`)
 * - stacked_bar: `x` (sample, in drawing order), `color` (null in "other"), `y` (percent or sum),
 *   `other`, `rank` (the taxon's by total, the stack's order) (with `not_shown` and `samples_not_shown`)
 * - strip: `x`, `y?`, `color?` (a point per row, `sampled` beyond the budget)
 * - ecdf: `x`, `color?`, `share` (rows at or below `x` over the group's rows, 0–1)
 * - density_contour: `x`, `y` (a cell's centre), `count`, `density` (with `grid`)
 * - funnel: `x` (stage, largest first), `y` (with `not_shown`)
 * - choropleth: `region` (the country's name on the map), `code` (its ISO alpha-3), `y` (the
 *   aggregate), `rows`, `codes` (the table's values that named it, the commonest
 *   `MAX_REGION_CODES`), `code_count` (how many values named it) (with `unmatched`)
 * - point_map: `x` (longitude), `y` (latitude), `color?`, `size?` (with `off_map`); beyond
 *   `max_points`, a density grid: `x`, `y` (a cell's centre), `n` (its rows) (with `density`)
 *
 * - clustered_heatmap: no rows; `columns` names the roles of its cells, `row`, `column`, `value`
 *   (z-scores with `scale: row`), `raw?`, which `matrix` holds as flat lists (figure-fields/samples.ts)
 * - embedding: `x`, `y`, `color?`, `label?` (PCA: `x`, `y` are PC1, PC2; with `explained_variance`)
 * - rarefaction: `color?`, `x`, `mean`, `low`, `high`, `n` (ordered by curve, then x)
 * - oncoplot: `x` (sample), `y` (gene), `color` (alteration, `multiple` for several; with `oncoplot`)
 *
 * −log10 of a p value of 0 is infinite: it is drawn at the highest finite −log10 p of the answer
 * (`capped` counts them). p values that are null, NaN, negative or above 1 are left out.
 */
export const figureDataSchema = z
  .object({
    columns: z.array(figureColumnSchema),
    rows: z.array(z.array(z.unknown())),
    /** More points matched than the figure draws; the rows are a uniform sample. */
    sampled: z.boolean(),
    /** Rows of the table matching the filters. */
    total_rows: z.number().int(),
    /** Volcano, MA: the drawn points by class (all of them, thinned or not). */
    counts: z.object({ up: z.number().int(), down: z.number().int(), ns: z.number().int() }).optional(),
    /** Manhattan: rows under the threshold (every one of them is among `rows`). */
    significant: z.number().int().optional(),
    /** Manhattan: each chromosome's start on the genome-wide axis, in drawing order. */
    chromosomes: z.array(z.object({ name: z.string(), offset: z.number(), length: z.number() })).optional(),
    /** QQ: the genomic inflation factor, median(χ²) / 0.4549 (null without p values). */
    lambda: z.number().nullable().optional(),
    /** Line, area: the calendar unit the date or timestamp x was counted by (the figure's, or the span's default). */
    time_grain: timeGrainSchema.optional(),
    /** Points whose p value of 0 was drawn at the highest finite −log10 p. */
    capped: z.number().int().optional(),
    ...genomeTrackDataFields,
    ...hierarchySetDataFields,
    ...sampleFigureDataFields,
    ...rankedDistributionDataFields,
    ...mapFigureDataFields,
  })
  .meta({ id: 'FigureData' });
export type FigureData = z.infer<typeof figureDataSchema>;

export const cardDataSchema = z
  .object({ value: z.unknown(), unfiltered_value: z.unknown(), ...cardDataFields })
  .meta({ id: 'CardData' });
export type CardData = z.infer<typeof cardDataSchema>;

/** select, multiselect, switch and search: the column's values with their counts under the other filters. */
export const optionsDataSchema = z
  .object({
    options: z.array(z.object({ value: z.unknown(), count: z.number().int() })),
    /** More distinct values exist than were listed. */
    truncated: z.boolean(),
  })
  .meta({ id: 'InteractiveOptions' });
export type OptionsData = z.infer<typeof optionsDataSchema>;

/** range and date_range: the column's bounds on the whole table (the slider's ends). */
export const rangeDataSchema = z.object({ min: z.unknown(), max: z.unknown() }).meta({ id: 'InteractiveRange' });
export type RangeData = z.infer<typeof rangeDataSchema>;

/** A component that cannot be drawn (its column was dropped or changed type since it was saved). */
export const componentErrorSchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      /** The component's field at fault (`x`, `column`, …). */
      field: z.string().nullable(),
    }),
  })
  .meta({ id: 'ComponentError' });
export type ComponentError = z.infer<typeof componentErrorSchema>;

export const componentDataSchema = z
  .union([
    componentErrorSchema,
    // Before the range's {min, max}, which a MultiQC heatmap also has: the answer is serialized as
    // the first shape it fits.
    multiqcDataSchema,
    figureDataSchema,
    cardDataSchema,
    optionsDataSchema,
    rangeDataSchema,
    previewAnswerSchema,
  ])
  .meta({ id: 'ComponentData' });
export type ComponentData = z.infer<typeof componentDataSchema>;

export const dashboardDataAnswerSchema = z
  .object({
    /** The table version read per data collection (null: no table yet). */
    version: z.record(z.string(), z.number().int().nullable()),
    components: z.record(z.string(), componentDataSchema),
  })
  .meta({ id: 'DashboardData' });
export type DashboardDataAnswer = z.infer<typeof dashboardDataAnswerSchema>;

/**
 * With `Accept: application/x-ndjson` the same answer streams as lines, so a client draws each
 * component as soon as it is computed: first `{version}`, then one `{component_id, data}` per component.
 */
export const dashboardDataLineSchema = z.union([
  z.object({ version: z.record(z.string(), z.number().int().nullable()) }),
  z.object({ component_id: z.string(), data: componentDataSchema }),
]);
export type DashboardDataLine = z.infer<typeof dashboardDataLineSchema>;

/**
 * The same answer and lines with each component's data left unread: a client narrows each by its
 * component's kind (the web app's parseOnce). Reading every answer against every shape of
 * componentDataSchema cost ~50 ms per 20,000-row figure: a union tries its members in turn, and
 * the MultiQC and preview shapes read each row before they fail.
 */
export const dashboardDataEnvelopeSchema = dashboardDataAnswerSchema.extend({
  components: z.record(z.string(), z.unknown()),
});
export const dashboardDataLineEnvelopeSchema = z.union([
  dashboardDataLineSchema.options[0],
  z.object({ component_id: z.string(), data: z.unknown() }),
]);

/** `GET /dashboards/{id}/versions`: the commits of every collection the dashboard reads (the version picker). */
export const dashboardVersionsSchema = z
  .object({
    collections: z.array(
      z.object({
        data_collection_id: z.string(),
        name: z.string(),
        /** Newest first, at most 100. */
        versions: z.array(tableVersionEntrySchema),
      }),
    ),
  })
  .meta({ id: 'DashboardVersions' });
export type DashboardVersions = z.infer<typeof dashboardVersionsSchema>;
