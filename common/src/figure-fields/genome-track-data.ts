import { z } from 'zod';

/**
 * What the genome tracks' answers hold beyond a figure's columns and rows (spread into
 * `figureDataSchema`, dashboard-data.ts).
 */
export const genomeTrackDataFields = {
  /** Coverage: the width of a bucket along the positions (0: every position is its own). */
  bucket_width: z.number().optional(),
  /** Coverage with `chromosome`: every contig of the table (natural order) and the one drawn. */
  contigs: z.array(z.string()).optional(),
  contig: z.string().optional(),
  /** Coverage: samples (lines) beyond `max_categories` that were left out. */
  left_out_series: z.number().int().optional(),
  /** Tree: tips absent from the rows under the filters (drawn uncoloured). */
  unmatched_tips: z.number().int().optional(),
  /** Tree: the Newick file drawn (its path relative to its run folder). */
  tree_file: z.string().optional(),
};
