/**
 * The numbers behind clustered heatmaps and computed PCA (docs/dashboards.md "Clustered heatmaps"):
 * small, dense matrices already reduced by DuckDB to what is drawn, so plain loops suffice.
 */

/** A matrix row by row; null where a cell has no value. */
export type Matrix = (number | null)[][];

/** One merge: the clusters joined (leaves 0…n−1 in input order, n + k the k-th merge) and their distance. */
export type Merge = [number, number, number];

export interface Clustering {
  merges: Merge[];
  /** The leaves in dendrogram order: each merge's left cluster before its right one. */
  order: number[];
}

/**
 * Euclidean distance over the positions both rows have, scaled up to all positions (as R's `dist`
 * does with missing values); null when they share none.
 */
export function euclidean(a: readonly (number | null)[], b: readonly (number | null)[]): number | null {
  let sum = 0;
  let shared = 0;
  for (let i = 0; i < a.length; i++) {
    const [u, v] = [a[i], b[i]];
    if (u === null || u === undefined || v === null || v === undefined) continue;
    sum += (u - v) ** 2;
    shared++;
  }
  return shared === 0 ? null : Math.sqrt((sum * a.length) / shared);
}

/**
 * Average-linkage (UPGMA) hierarchical clustering on Euclidean distances. Each step joins the two
 * closest clusters (ties: the pair met first in input order); the distance of the new cluster to
 * another is the mean of the distances between their members (Lance–Williams update). The cluster
 * holding the earlier input row goes left. Rows sharing no position are as far apart as the
 * farthest pair, so they join last.
 */
export function averageLinkage(rows: Matrix): Clustering {
  const n = rows.length;
  if (n === 0) return { merges: [], order: [] };
  const distance: number[][] = rows.map(() => new Array<number>(n).fill(0));
  let farthest = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = euclidean(rows[i] ?? [], rows[j] ?? []);
      const value = d ?? Number.NaN;
      (distance[i] as number[])[j] = value;
      (distance[j] as number[])[i] = value;
      if (d !== null && d > farthest) farthest = d;
    }
  }
  for (const line of distance) {
    for (let j = 0; j < n; j++) if (Number.isNaN(line[j])) line[j] = farthest;
  }
  return joinClosest(distance);
}

/** Joins the closest clusters of a distance matrix until one is left. */
function joinClosest(distance: number[][]): Clustering {
  const n = distance.length;
  // Per active slot: its cluster id, size, first input row and leaves in order.
  const id = Array.from({ length: n }, (_, i) => i);
  const size = new Array<number>(n).fill(1);
  const leaves: number[][] = Array.from({ length: n }, (_, i) => [i]);
  const active = new Set(id);
  const merges: Merge[] = [];
  while (active.size > 1) {
    let best: [number, number, number] = [-1, -1, Number.POSITIVE_INFINITY];
    const slots = [...active];
    for (const i of slots) {
      for (const j of slots) {
        if (j <= i) continue;
        const d = (distance[i] as number[])[j] as number;
        if (d < best[2]) best = [i, j, d];
      }
    }
    const [i, j, d] = best;
    const [left, right] = (leaves[i]?.[0] ?? 0) < (leaves[j]?.[0] ?? 0) ? [i, j] : [j, i];
    merges.push([id[left] as number, id[right] as number, d]);
    for (const k of active) {
      if (k === i || k === j) continue;
      const joined =
        ((size[i] as number) * ((distance[i] as number[])[k] as number) +
          (size[j] as number) * ((distance[j] as number[])[k] as number)) /
        ((size[i] as number) + (size[j] as number));
      (distance[i] as number[])[k] = joined;
      (distance[k] as number[])[i] = joined;
    }
    // The joined cluster lives on in slot i.
    leaves[i] = [...(leaves[left] ?? []), ...(leaves[right] ?? [])];
    size[i] = (size[i] as number) + (size[j] as number);
    id[i] = n + merges.length - 1;
    active.delete(j);
  }
  const [root] = [...active];
  return { merges, order: leaves[root ?? 0] ?? [] };
}

/**
 * The merges renumbered for drawing: leaves by their position in `order` (the dendrogram's leaf
 * order), merges keeping their n + k.
 */
export function inDrawingOrder({ merges, order }: Clustering): Merge[] {
  const position = new Map(order.map((leaf, at) => [leaf, at]));
  const n = order.length;
  const renumber = (index: number) => (index < n ? (position.get(index) ?? index) : index);
  return merges.map(([a, b, height]) => [renumber(a), renumber(b), height]);
}

/** Each row's z-scores: (value − mean) / sample standard deviation; 0 for a constant row. */
export function zScores(rows: Matrix): Matrix {
  return rows.map((row) => {
    const values = row.filter((value): value is number => value !== null);
    const mean = values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
    const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / Math.max(1, values.length - 1);
    const sd = Math.sqrt(variance);
    return row.map((value) => (value === null ? null : sd > 0 ? (value - mean) / sd : 0));
  });
}

/** The columns of a matrix as rows. */
export function transposed(rows: Matrix, width: number): Matrix {
  return Array.from({ length: width }, (_, j) => rows.map((row) => row[j] ?? null));
}
