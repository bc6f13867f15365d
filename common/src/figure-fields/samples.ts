import { z } from 'zod';
import { columnNameSchema } from '../queries.js';

/**
 * The fields of the charts of samples and communities (issue 28): `clustered_heatmap`, `embedding`,
 * `rarefaction` and `oncoplot`, spread into the figure component's schema (dashboard-components.ts).
 * docs/dashboards.md "Clustered heatmaps, embeddings, rarefaction curves and oncoplots" says how each is drawn.
 */

/** Rows a clustered heatmap clusters and draws before keeping only the most variable ones. */
export const DEFAULT_MATRIX_ROW_BUDGET = 200;
/** Columns a clustered heatmap draws from a long table (its first ones by name are kept). */
export const MATRIX_COLUMN_BUDGET = 300;
/** Genes an oncoplot draws when `max_categories` is not given: the most often altered. */
export const DEFAULT_ONCOPLOT_GENES = 20;

export const sampleFigureFields = {
  /** Clustered heatmap: the column naming each row of the matrix. */
  row: columnNameSchema.optional(),
  /** Clustered heatmap from a wide table: its numeric columns, one matrix column each. */
  matrix_columns: z.array(columnNameSchema).min(1).max(500).optional(),
  /** Clustered heatmap from a long table: the column naming each cell's matrix column… */
  column: columnNameSchema.optional(),
  /** …and the cell's number (several rows for one cell are averaged). */
  value: columnNameSchema.optional(),
  /** Clustered heatmap: `row` draws each row's z-scores (mean 0, standard deviation 1); default none. */
  scale: z.enum(['none', 'row']).optional(),
  /** Clustered heatmap: cluster (and reorder) the rows, the columns (default true for both). */
  cluster_rows: z.boolean().optional(),
  cluster_columns: z.boolean().optional(),
  /** Clustered heatmap: columns drawn as coloured bars beside the rows (e.g. Kingdom). */
  annotations: z.array(columnNameSchema).max(5).optional(),
  /** Clustered heatmap: rows kept, the most variable first (default 200). */
  max_rows: z.number().int().min(2).max(1000).optional(),
  /** Embedding: PCA computed on the server from these numeric columns (instead of given `x` and `y`). */
  pca_columns: z.array(columnNameSchema).min(2).max(100).optional(),
  /** Embedding: a third coordinate column (given coordinates): drawn as the pairs xy, xz, yz side by side. */
  z: columnNameSchema.optional(),
  /** Embedding with PCA: principal components drawn, 2 (default) or 3 (the pairs PC1–PC2, PC1–PC3, PC2–PC3). */
  dimensions: z.union([z.literal(2), z.literal(3)]).optional(),
  /** Rarefaction: the band around each mean curve, ± one standard deviation (default) or min–max. */
  band: z.enum(['sd', 'range']).optional(),
};

/** Embedding: ids a brush may select at once (a filter lists at most 1,000 values). */
export const MAX_BRUSHED_IDS = 1000;

type SampleFigure = { chart: string; x?: string; y?: string; color?: string } & {
  [field in keyof typeof sampleFigureFields]?: z.infer<(typeof sampleFigureFields)[field]>;
};

/** What each of these charts needs besides the shape of its fields (zod checked those). */
export function checkSampleFigure(figure: SampleFigure, context: z.RefinementCtx): void {
  const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
  const need = (field: 'x' | 'y' | 'color' | 'row', why: string) => {
    if (figure[field] === undefined) issue(field, why);
  };
  switch (figure.chart) {
    case 'clustered_heatmap': {
      need('row', 'a clustered heatmap needs row (the column naming its rows)');
      const wide = figure.matrix_columns !== undefined;
      const long = figure.column !== undefined || figure.value !== undefined;
      if (wide && long) issue('matrix_columns', 'give either matrix_columns (a wide table) or column and value');
      if (!wide && !long) issue('matrix_columns', 'a clustered heatmap needs matrix_columns, or column and value');
      if (long && figure.column === undefined) issue('column', 'a long table needs column (the matrix column)');
      if (long && figure.value === undefined) issue('value', 'a long table needs value (the cell)');
      break;
    }
    case 'embedding':
      if (figure.pca_columns !== undefined && figure.z !== undefined) {
        issue('z', 'z is a given coordinate: with pca_columns, ask for a third component with dimensions: 3');
      }
      if (figure.pca_columns === undefined && figure.dimensions !== undefined) {
        issue('dimensions', 'dimensions counts principal components: it needs pca_columns (given coordinates: z)');
      }
      if (figure.pca_columns !== undefined && (figure.x !== undefined || figure.y !== undefined)) {
        issue('pca_columns', 'give either x and y (coordinates) or pca_columns (PCA on the server)');
      } else if (figure.pca_columns === undefined) {
        need('x', 'an embedding needs x and y (coordinates), or pca_columns');
        need('y', 'an embedding needs x and y (coordinates), or pca_columns');
      }
      break;
    case 'rarefaction':
      need('x', 'a rarefaction plot needs x (the depth)');
      need('y', 'a rarefaction plot needs y (the metric)');
      break;
    case 'oncoplot':
      need('x', 'an oncoplot needs x (the sample)');
      need('y', 'an oncoplot needs y (the gene)');
      need('color', 'an oncoplot needs color (the alteration)');
      break;
  }
}

/** One merge of a hierarchical clustering: the two clusters joined and the distance between them. */
const mergeSchema = z.tuple([z.number().int(), z.number().int(), z.number()]);

/**
 * The data of these charts besides `columns` and `rows` (dashboard-data.ts):
 * - clustered_heatmap: `matrix`, the cells as flat lists (`rows` is empty; `columns` names the cells'
 *   roles: `row`, `column`, `value`, `raw?`). A dendrogram is its merges in order; a merge joins
 *   `[a, b, height]` where an index below n (the leaves) is a row (or column) in drawing order and
 *   n + k the k-th merge.
 * - embedding: `explained_variance` with computed PCA (one share per component drawn); rows have
 *   `x`, `y`, `z` (3-D), `color` and `label` (the point's id, which a brush selects).
 * - rarefaction: `total_curves`.
 * - oncoplot: `oncoplot`, the marginal counts.
 */
export const sampleFigureDataFields = {
  matrix: z
    .object({
      /** Row and column labels in drawing order (the dendrograms' leaf order). */
      rows: z.array(z.string()),
      columns: z.array(z.string()),
      /**
       * The cells, row by row in drawing order (`rows.length × columns.length` of them): the value
       * drawn (z-scores to four decimals with `scale: row`), null where a cell has none. One flat
       * list, labels once: a row per cell repeated both labels, 9 MB of JSON for 1,000 × 200 cells.
       */
      values: z.array(z.number().nullable()),
      /** With `scale: row`: each cell's value before scaling, laid out as `values` (else absent: the same). */
      raw: z.array(z.number().nullable()).optional(),
      row_tree: z.array(mergeSchema).nullable(),
      column_tree: z.array(mergeSchema).nullable(),
      /** Each annotation's value per row, in drawing order. */
      annotations: z.array(z.object({ name: z.string(), values: z.array(z.unknown()) })),
      /** Rows of the matrix before the budget kept the most variable; columns before theirs. */
      total_rows: z.number().int(),
      total_columns: z.number().int(),
    })
    .optional(),
  /** Rarefaction: curves (groups) of the table; only the first `max_categories` by name are drawn. */
  total_curves: z.number().int().optional(),
  /** Embedding with PCA: each drawn component's share of the total variance (0–1). */
  explained_variance: z.array(z.number()).optional(),
  oncoplot: z
    .object({
      /** Genes drawn (most altered first) and samples (sorted by their alterations), with their counts. */
      genes: z.array(z.object({ name: z.string(), count: z.number().int() })),
      samples: z.array(z.object({ name: z.string(), count: z.number().int() })),
      /** Genes with an alteration before the top ones were kept. */
      total_genes: z.number().int(),
    })
    .optional(),
};
