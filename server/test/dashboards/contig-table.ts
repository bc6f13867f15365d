// The coverage table the contig tests read: its depths are what their hand-worked buckets start from.

/** Depth along three contigs (one sample): chr1 at 1…4, chr2 at 1…6, chrM at 1. */
export const CONTIGS_CSV = [
  'contig,pos,depth',
  ...[5, 1, 9, 2].map((depth, i) => `chr1,${i + 1},${depth}`),
  ...[3, 3, 0, 8, 4, 4].map((depth, i) => `chr2,${i + 1},${depth}`),
  'chrM,1,7',
  '',
].join('\n');

/** A coverage track over it, two buckets wide, by contig. */
export const COVERAGE = {
  component_id: 'c',
  type: 'figure',
  chart: 'coverage',
  chromosome: 'contig',
  position: 'pos',
  y: 'depth',
  buckets: 2,
};
