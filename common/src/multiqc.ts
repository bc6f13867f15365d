import { z } from 'zod';
import { componentIdSchema, componentTabSchema, componentTitleSchema } from './dashboard-components.js';

/**
 * MultiQC reports as data collections (collection type `multiqc`, docs/data.md) and their plots
 * as dashboard components (docs/dashboards.md). The plots are drawn by our own charts from the
 * report's data (`val_raw`, never MultiQC's formatted text), narrowed by the dashboard's filters.
 */

/** How a plot is drawn; MultiQC's tables (its "violin plot" type) are `table`. */
export const MULTIQC_PLOT_TYPES = ['bar', 'line', 'heatmap', 'scatter', 'box', 'violin', 'table'] as const;
export const multiqcPlotTypeSchema = z.enum(MULTIQC_PLOT_TYPES);
export type MultiqcPlotType = z.infer<typeof multiqcPlotTypeSchema>;

/** The general statistics' plot anchor: a table with one row per sample and `<section>-<metric>` columns. */
export const GENERAL_STATS_PLOT = 'general_stats_table';

export const multiqcPlotSchema = z
  .object({
    anchor: z.string(),
    title: z.string(),
    plot_type: multiqcPlotTypeSchema,
    /** The module's anchor (`fastqc`, `cutadapt`, …); `general_stats` for the general statistics. */
    module: z.string(),
    /** Labels of the plot's datasets (MultiQC's switch buttons, e.g. "Percentages" / "Counts"); empty when one. */
    datasets: z.array(z.string()),
  })
  .meta({ id: 'MultiqcPlot' });
export type MultiqcPlot = z.infer<typeof multiqcPlotSchema>;

/** `GET /datacollections/{id}/multiqc`: what the collection's reports hold, at the table's version. */
export const multiqcSummarySchema = z
  .object({
    /** The table version read (null: nothing ingested yet). */
    version: z.number().int().nullable(),
    reports: z.array(
      z.object({ run_id: z.string(), multiqc_version: z.string().nullable(), creation_date: z.string().nullable() }),
    ),
    modules: z.array(z.object({ anchor: z.string(), name: z.string() })),
    samples: z.array(z.string()),
    plots: z.array(multiqcPlotSchema),
  })
  .meta({ id: 'MultiqcSummary' });
export type MultiqcSummary = z.infer<typeof multiqcSummarySchema>;

export const multiqcSummaryQuerySchema = z.strictObject({
  version: z.coerce.number().int().min(0).optional(),
});

/** A plot of a MultiQC collection's report(s), drawn from the report's data. */
export const multiqcComponentSchema = z
  .strictObject({
    component_id: componentIdSchema,
    type: z.literal('multiqc'),
    title: componentTitleSchema,
    tab_id: componentTabSchema,
    data_collection_id: z.string().min(1).max(64),
    /** The plot's anchor, as `GET /datacollections/{id}/multiqc` lists it (e.g. `fastqc_per_base_sequence_quality_plot`). */
    plot: z.string().min(1).max(200),
    /** Which of the plot's datasets (0-based; MultiQC's switch buttons); the first when absent. */
    dataset: z.number().int().min(0).max(100).optional(),
    /** Bar plots: each sample's categories as percentages of its total (MultiQC's Counts / Percentages switch). */
    percentages: z.boolean().optional(),
  })
  .meta({ id: 'MultiqcComponent' });
export type MultiqcComponent = z.infer<typeof multiqcComponentSchema>;

const number = z.number().nullable();

/** A coloured band behind a line plot (MultiQC's `y_bands`/`x_bands`, e.g. the Phred quality zones). */
export const multiqcBandSchema = z.object({
  axis: z.enum(['x', 'y']),
  from: z.number(),
  to: z.number(),
  color: z.string(),
});
export type MultiqcBand = z.infer<typeof multiqcBandSchema>;

const plotCommon = {
  title: z.string(),
  /** The samples drawn, in drawing order (the dashboard's filters narrow them). */
  samples: z.array(z.string()),
  /** Samples of the report that the filters left out. */
  hidden_samples: z.number().int(),
  x_label: z.string().nullable(),
  y_label: z.string().nullable(),
};

export const multiqcBarDataSchema = z.object({
  plot_type: z.literal('bar'),
  ...plotCommon,
  /** One series per category, one value per sample (in `samples` order; null: no value). */
  series: z.array(z.object({ name: z.string(), color: z.string().nullable(), values: z.array(number) })),
  percentages: z.boolean(),
});

export const multiqcLineDataSchema = z.object({
  plot_type: z.enum(['line', 'scatter']),
  ...plotCommon,
  /** One series per sample: its points `[x, y]` (x may be a category). */
  series: z.array(
    z.object({
      name: z.string(),
      color: z.string().nullable(),
      points: z.array(z.tuple([z.union([z.number(), z.string()]), number])),
    }),
  ),
  bands: z.array(multiqcBandSchema),
  /**
   * Lines of more samples than one plot draws (100) come summarized: this many samples, and
   * `series` are then `min`, `25th percentile`, `median`, `75th percentile` and `max` at each x.
   * Null: one series per sample.
   */
  summarized: z.number().int().nullable(),
  /** x is a list of categories rather than numbers. */
  categorical_x: z.boolean(),
});

export const multiqcHeatmapDataSchema = z.object({
  plot_type: z.literal('heatmap'),
  ...plotCommon,
  x: z.array(z.string()),
  y: z.array(z.string()),
  /** One row per `y`, one value per `x`. */
  values: z.array(z.array(number)),
  min: z.number().nullable(),
  max: z.number().nullable(),
  /** MultiQC's colour stops `[position 0..1, colour]`, when the report gives them. */
  color_stops: z.array(z.tuple([z.number(), z.string()])),
});

export const multiqcBoxDataSchema = z.object({
  plot_type: z.enum(['box', 'violin']),
  ...plotCommon,
  /** Per sample: the five numbers of its values (whiskers at min and max). */
  boxes: z.array(
    z.object({
      name: z.string(),
      count: z.number().int(),
      min: number,
      q1: number,
      median: number,
      q3: number,
      max: number,
    }),
  ),
});

export const multiqcTableColumnSchema = z.object({
  key: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  /** A suffix MultiQC shows after the value (`%`, ` bp`). */
  suffix: z.string().nullable(),
  /** MultiQC's colour scale name for the column (`GnBu`, `RdYlBu-rev`, …). */
  scale: z.string().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
});
export type MultiqcTableColumn = z.infer<typeof multiqcTableColumnSchema>;

export const multiqcTableDataSchema = z.object({
  plot_type: z.literal('table'),
  ...plotCommon,
  columns: z.array(multiqcTableColumnSchema),
  /** One row per sample (or, for a module's own tables, per row key), values by column key. */
  rows: z.array(
    z.object({ sample: z.string(), values: z.record(z.string(), z.union([z.number(), z.string(), z.null()])) }),
  ),
});

export const multiqcDataSchema = z
  .union([
    multiqcBarDataSchema,
    multiqcLineDataSchema,
    multiqcHeatmapDataSchema,
    multiqcBoxDataSchema,
    multiqcTableDataSchema,
  ])
  .meta({ id: 'MultiqcData' });
export type MultiqcData = z.infer<typeof multiqcDataSchema>;
export type MultiqcBarData = z.infer<typeof multiqcBarDataSchema>;
export type MultiqcLineData = z.infer<typeof multiqcLineDataSchema>;
export type MultiqcHeatmapData = z.infer<typeof multiqcHeatmapDataSchema>;
export type MultiqcBoxData = z.infer<typeof multiqcBoxDataSchema>;
export type MultiqcTableData = z.infer<typeof multiqcTableDataSchema>;

/** The column of a MultiQC collection's table that names the sample (its general statistics' rows). */
export const MULTIQC_SAMPLE_COLUMN = 'sample';

/** A read or lane suffix MultiQC's modules add to a sample's name: `_1`, `_R2`, `.1`, `_L001`. */
const READ_SUFFIX = /[_.-](?:R?[12]|L\d{3})$/;

/** The sample a read or lane belongs to (`SRR1_1` → `SRR1`), or null when the name has no such suffix. */
export function sampleOfRead(name: string): string | null {
  return READ_SUFFIX.test(name) ? name.replace(READ_SUFFIX, '') : null;
}
