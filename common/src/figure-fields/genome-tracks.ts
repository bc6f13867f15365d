import { z } from 'zod';
import { columnNameSchema } from '../queries.js';

/**
 * The fields of the genome tracks (docs/dashboards.md "Coverage tracks and phylogenetic trees"):
 * `coverage` (depth along positions per sample) and `tree` (a Newick file of the collection, its
 * tips joined to the collection's rows). Kept apart from dashboard-components.ts, which spreads them.
 */

/** Coverage: buckets along the positions per sample (its width in pixels, roughly). */
export const DEFAULT_COVERAGE_BUCKETS = 2000;
/** Coverage: samples (lines) drawn; the others are left out and counted. */
export const DEFAULT_COVERAGE_SERIES = 20;

export const TREE_LAYOUTS = ['rectangular', 'radial'] as const;
export type TreeLayout = (typeof TREE_LAYOUTS)[number];

/** A collection's files named so are its trees (Newick): the table is built without them. */
export const TREE_FILE_SUFFIXES = ['.nwk', '.newick', '.tree', '.treefile'] as const;
export const isTreeFile = (path: string) => {
  const lower = path.toLowerCase();
  return TREE_FILE_SUFFIXES.some((suffix) => lower.endsWith(suffix));
};

export const genomeTrackFields = {
  /** Coverage: buckets along the positions (default 2,000); each keeps its lowest and highest depth. */
  buckets: z.number().int().min(2).max(20_000).optional(),
  /**
   * Coverage with a `chromosome` column (several contigs): the contig drawn, in any spelling
   * (`chr2`, `2`); default the first in natural order.
   */
  contig: z.string().min(1).max(1000).optional(),
  /** Tree: the column naming each row's tip (the Newick leaf labels). */
  tip: columnNameSchema.optional(),
  /** Tree: the path (relative to its run folder) of the Newick file to draw; default the newest. */
  tree_file: z
    .string()
    .min(1)
    .max(1000)
    .refine(isTreeFile, `a tree file's name ends in ${TREE_FILE_SUFFIXES.join(', ')}`)
    .optional(),
  /** Tree: `rectangular` (default) or `radial`. */
  layout: z.enum(TREE_LAYOUTS).optional(),
};

interface TrackFigure {
  chart: string;
  chromosome?: string | undefined;
  contig?: string | undefined;
  y?: string | undefined;
  position?: string | undefined;
  tip?: string | undefined;
}

/** What a coverage track or a tree lacks, as zod issues' path and message. */
export function genomeTrackProblems(figure: TrackFigure): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  const need = (field: 'y' | 'position' | 'tip', message: string) => {
    if (figure[field] === undefined) problems.push({ path: field, message });
  };
  if (figure.chart === 'coverage') {
    need('position', 'a coverage track needs position');
    need('y', 'a coverage track needs y (the depth)');
  }
  if (figure.contig !== undefined && (figure.chart !== 'coverage' || figure.chromosome === undefined)) {
    problems.push({ path: 'contig', message: 'contig names the contig a coverage track of chromosome draws' });
  }
  if (figure.chart === 'tree') need('tip', 'a tree needs tip (the column naming its tips)');
  return problems;
}

/** Charts brushed along a genome: their filter is a genomic interval. */
export const GENOME_BRUSH_CHARTS: readonly string[] = ['manhattan'];

/** Whether a figure's brush is a genomic interval: a Manhattan plot, a coverage track of contigs. */
export const brushesGenome = (figure: { chart: string; chromosome?: string | undefined }) =>
  GENOME_BRUSH_CHARTS.includes(figure.chart) || (figure.chart === 'coverage' && figure.chromosome !== undefined);

/** Why a value is not a genomic interval, or null when it is. */
export function genomicIntervalProblem(value: unknown): string | null {
  const fits =
    Array.isArray(value) &&
    value.length === 4 &&
    [value[0], value[2]].every(
      (name) => (typeof name === 'string' && name.trim() !== '') || typeof name === 'number',
    ) &&
    [value[1], value[3]].every((position) => typeof position === 'number' && Number.isFinite(position));
  return fits
    ? null
    : 'a brush along a genome filters by a genomic interval [from chromosome, from position, to chromosome, to position]';
}
