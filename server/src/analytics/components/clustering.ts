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
  const distance = distancesOf(values, complete, n, width);
  let farthest = 0;
  for (let at = 0; at < n * n; at++) if ((distance[at] as number) > farthest) farthest = distance[at] as number;
  for (let at = 0; at < n * n; at++) if (Number.isNaN(distance[at])) distance[at] = farthest;
  return joinClosest(distance, n);
}

/**
 * The distances between every two rows of `values` (`width` each), as an n × n matrix; NaN where
 * two share no position. Row i meets the complete rows after it four at a time: the same sums in
 * the same order as one at a time (the same distances to the last bit), four running at once.
 */
function distancesOf(values: Float64Array, complete: Uint8Array, n: number, width: number): Float64Array {
  const distance = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    let j = i + 1;
    if (complete[i] === 1) {
      for (; j + 3 < n; j += 4) {
        if (complete[j] === 1 && complete[j + 1] === 1 && complete[j + 2] === 1 && complete[j + 3] === 1) {
          fourDistances(values, i, j, width, distance, i * n + j);
        } else {
          for (let m = j; m < j + 4; m++) distance[i * n + m] = distanceOf(values, i, m, width, complete[m] === 1);
        }
      }
    }
    for (; j < n; j++) {
      distance[i * n + j] = distanceOf(values, i, j, width, complete[i] === 1 && complete[j] === 1);
    }
  }
  mirror(distance, n);
  return distance;
}

/** The distances of complete row `i` to complete rows `j`…`j + 3`, into `into` from `at` on. */
function fourDistances(values: Float64Array, i: number, j: number, width: number, into: Float64Array, at: number) {
  const a = i * width;
  const [b0, b1, b2, b3] = [j * width, (j + 1) * width, (j + 2) * width, (j + 3) * width];
  let [s0, s1, s2, s3] = [0, 0, 0, 0];
  for (let k = 0; k < width; k++) {
    const x = values[a + k] as number;
    const g0 = x - (values[b0 + k] as number);
    const g1 = x - (values[b1 + k] as number);
    const g2 = x - (values[b2 + k] as number);
    const g3 = x - (values[b3 + k] as number);
    s0 += g0 * g0;
    s1 += g1 * g1;
    s2 += g2 * g2;
    s3 += g3 * g3;
  }
  into[at] = Math.sqrt(s0);
  into[at + 1] = Math.sqrt(s1);
  into[at + 2] = Math.sqrt(s2);
  into[at + 3] = Math.sqrt(s3);
}

/** Copies the upper triangle onto the lower one a tile at a time (a column at a time misses the cache). */
function mirror(distance: Float64Array, n: number) {
  const tile = 64;
  for (let top = 0; top < n; top += tile) {
    for (let left = top; left < n; left += tile) {
      for (let i = top; i < Math.min(top + tile, n); i++) {
        for (let j = Math.max(left, i + 1); j < Math.min(left + tile, n); j++)
          distance[j * n + i] = distance[i * n + j] as number;
      }
    }
  }
}

/** `euclidean` of rows `i` and `j` of `values`; NaN when they share no position. */
function distanceOf(values: Float64Array, i: number, j: number, width: number, complete: boolean): number {
  const [a, b] = [i * width, j * width];
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
 * Joins the closest clusters of a distance matrix until one is left (the "generic" algorithm of
 * Müllner, arXiv:1109.2378). Each active slot remembers a nearest later slot and a lower bound of
 * its least distance to the later slots; a step takes the earliest slot of least bound and, when
 * what it remembers went stale (its nearest was joined, or moved away), scans its row again and
 * looks once more. Joining never brings clusters closer than the nearer of the two was (the new
 * distance is a mean), so bounds stay bounds and most rows are never scanned again: the first
 * closest pair in input order is found as by scanning every pair, in about n² steps, not n³.
 */
function joinClosest(distance: Float64Array, n: number): Clustering {
  // Per slot: its cluster id, size, leaves in order and whether it is still active.
  const id = Array.from({ length: n }, (_, i) => i);
  const size = new Float64Array(n).fill(1);
  const leaves: number[][] = Array.from({ length: n }, (_, i) => [i]);
  const active = new Uint8Array(n).fill(1);
  const nearest = new Int32Array(n).fill(-1);
  const nearestAt = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  // 1 when `nearest` may no longer be the first later slot at the least distance (`nearestAt` a bound).
  const stale = new Uint8Array(n);
  const rescan = (i: number) => {
    let best = -1;
    let least = Number.POSITIVE_INFINITY;
    const row = i * n;
    for (let j = i + 1; j < n; j++) {
      const d = distance[row + j] as number;
      if (active[j] === 1 && (best < 0 || d < least)) {
        best = j;
        least = d;
      }
    }
    nearest[i] = best;
    nearestAt[i] = least;
    stale[i] = 0;
  };
  const closest = () => {
    for (;;) {
      let i = -1;
      for (let k = 0; k < n; k++) {
        if (
          active[k] === 1 &&
          (nearest[k] as number) >= 0 &&
          (i < 0 || (nearestAt[k] as number) < (nearestAt[i] as number))
        )
          i = k;
      }
      if (stale[i] === 0) return i;
      rescan(i);
    }
  };
  /** Slot k (before i) after i's distance to it became `d` and slot j left. */
  const updateNearest = (k: number, i: number, j: number, d: number) => {
    const bound = nearestAt[k] as number;
    if (d < bound) {
      // Closer than the bound of every later slot: the nearest for certain.
      nearest[k] = i;
      nearestAt[k] = d;
      stale[k] = 0;
    } else if (stale[k] === 1) return;
    else if (nearest[k] === j || (nearest[k] === i && d > bound)) stale[k] = 1;
    else if (d === bound && i < (nearest[k] as number)) nearest[k] = i;
  };
  for (let i = 0; i < n; i++) rescan(i);
  const merges: Merge[] = [];
  for (let step = 1; step < n; step++) {
    const i = closest();
    const j = nearest[i] as number;
    const d = distance[i * n + j] as number;
    // Slot i holds the cluster of the earlier first leaf: it goes left.
    merges.push([id[i] as number, id[j] as number, d]);
    const [sizeI, sizeJ] = [size[i] as number, size[j] as number];
    active[j] = 0;
    for (let k = 0; k < n; k++) {
      if (active[k] === 0 || k === i) continue;
      const joined =
        (sizeI * (distance[i * n + k] as number) + sizeJ * (distance[j * n + k] as number)) / (sizeI + sizeJ);
      distance[i * n + k] = joined;
      distance[k * n + i] = joined;
      if (k < i) updateNearest(k, i, j, joined);
      else if (nearest[k] === j) stale[k] = 1;
    }
    leaves[i] = [...(leaves[i] ?? []), ...(leaves[j] ?? [])];
    size[i] = sizeI + sizeJ;
    id[i] = n + merges.length - 1;
    rescan(i);
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
