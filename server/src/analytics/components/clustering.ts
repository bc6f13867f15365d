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
 * farthest pair, so they join last. Distances live in one typed array (n × n doubles).
 */
export function averageLinkage(rows: Matrix): Clustering {
  const n = rows.length;
  if (n === 0) return { merges: [], order: [] };
  const width = rows[0]?.length ?? 0;
  // Values row by row, NaN where a cell has none.
  const values = new Float64Array(n * width);
  // Rows with every value take the short way.
  const complete = new Uint8Array(n).fill(1);
  rows.forEach((row, i) => {
    for (let k = 0; k < width; k++) {
      const value = row[k] ?? Number.NaN;
      values[i * width + k] = value;
      if (Number.isNaN(value)) complete[i] = 0;
    }
  });
  const distance = new Float64Array(n * n);
  let farthest = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = distanceOf(values, i * width, j * width, width, complete[i] === 1 && complete[j] === 1);
      distance[i * n + j] = d;
      distance[j * n + i] = d;
      if (d > farthest) farthest = d;
    }
  }
  for (let at = 0; at < n * n; at++) if (Number.isNaN(distance[at])) distance[at] = farthest;
  return joinClosest(distance, n);
}

/** `euclidean` of the rows of `values` starting at `a` and `b`; NaN when they share no position. */
function distanceOf(values: Float64Array, a: number, b: number, width: number, complete: boolean): number {
  let sum = 0;
  if (complete) {
    for (let k = 0; k < width; k++) {
      const gap = (values[a + k] as number) - (values[b + k] as number);
      sum += gap * gap;
    }
    return Math.sqrt(sum);
  }
  let shared = 0;
  for (let k = 0; k < width; k++) {
    const gap = (values[a + k] as number) - (values[b + k] as number);
    if (!Number.isNaN(gap)) {
      sum += gap * gap;
      shared++;
    }
  }
  return shared === 0 ? Number.NaN : Math.sqrt((sum * width) / shared);
}

/**
 * Joins the closest clusters of a distance matrix until one is left. Each active slot remembers
 * its nearest later slot (the first at the least distance), so a step reads n values, and only
 * slots whose nearest changed are scanned again: the first closest pair in input order is the
 * earliest slot of least remembered distance with its nearest.
 */
function joinClosest(distance: Float64Array, n: number): Clustering {
  // Per slot: its cluster id, size, leaves in order and whether it is still active.
  const id = Array.from({ length: n }, (_, i) => i);
  const size = new Float64Array(n).fill(1);
  const leaves: number[][] = Array.from({ length: n }, (_, i) => [i]);
  const active = new Uint8Array(n).fill(1);
  const nearest = new Int32Array(n).fill(-1);
  const nearestAt = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  const at = (i: number, j: number) => distance[i * n + j] as number;
  const rescan = (i: number) => {
    let [best, least] = [-1, Number.POSITIVE_INFINITY];
    for (let j = i + 1; j < n; j++) {
      if (active[j] === 1 && (best < 0 || at(i, j) < least)) [best, least] = [j, at(i, j)];
    }
    nearest[i] = best;
    nearestAt[i] = least;
  };
  for (let i = 0; i < n; i++) rescan(i);
  const merges: Merge[] = [];
  for (let step = 1; step < n; step++) {
    let i = -1;
    for (let k = 0; k < n; k++) {
      if (
        active[k] === 1 &&
        (nearest[k] as number) >= 0 &&
        (i < 0 || (nearestAt[k] as number) < (nearestAt[i] as number))
      )
        i = k;
    }
    const j = nearest[i] as number;
    const d = at(i, j);
    const [left, right] = (leaves[i]?.[0] ?? 0) < (leaves[j]?.[0] ?? 0) ? [i, j] : [j, i];
    merges.push([id[left] as number, id[right] as number, d]);
    const [sizeI, sizeJ] = [size[i] as number, size[j] as number];
    for (let k = 0; k < n; k++) {
      if (active[k] === 0 || k === i || k === j) continue;
      const joined = (sizeI * at(i, k) + sizeJ * at(j, k)) / (sizeI + sizeJ);
      distance[i * n + k] = joined;
      distance[k * n + i] = joined;
    }
    // The joined cluster lives on in slot i.
    leaves[i] = [...(leaves[left] ?? []), ...(leaves[right] ?? [])];
    size[i] = sizeI + sizeJ;
    id[i] = n + merges.length - 1;
    active[j] = 0;
    rescan(i);
    for (let k = 0; k < n; k++) {
      if (active[k] === 0 || k === i) continue;
      if (nearest[k] === i || nearest[k] === j) rescan(k);
      else if (
        k < i &&
        (at(k, i) < (nearestAt[k] as number) || (at(k, i) === nearestAt[k] && i < (nearest[k] as number)))
      ) {
        nearest[k] = i;
        nearestAt[k] = at(k, i);
      }
    }
  }
  const root = active.indexOf(1);
  return { merges, order: leaves[root] ?? [] };
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
