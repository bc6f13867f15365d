/**
 * The numbers behind clustered heatmaps (docs/dashboards.md "Clustered heatmaps"): small, dense
 * matrices already reduced by DuckDB to what is drawn, so plain loops over typed arrays suffice.
 */

/**
 * A matrix in one typed array, row by row; NaN where a cell has no value. The heatmap's 1,000 × 200
 * kept values stay in such arrays from DuckDB's rows to the answer: arrays of boxed numbers per
 * row (read, scaled, transposed, copied again for the distances) left garbage that cost as much
 * as the distances themselves.
 */
export interface DenseMatrix {
  values: Float64Array;
  rows: number;
  columns: number;
}

/** One merge: the clusters joined (leaves 0…n−1 in input order, n + k the k-th merge) and their distance. */
export type Merge = [number, number, number];

export interface Clustering {
  merges: Merge[];
  /** The leaves in dendrogram order: each merge's left cluster before its right one. */
  order: number[];
}

/**
 * Average-linkage (UPGMA) hierarchical clustering of a matrix's rows on Euclidean distances. Two
 * rows' distance is over the positions both have, scaled up to all positions (as R's `dist` does
 * with missing values). Each step joins the two closest clusters (ties: the pair met first in
 * input order); the distance of the new cluster to another is the mean of the distances between
 * their members (Lance–Williams update). The cluster holding the earlier input row goes left.
 * Rows sharing no position are as far apart as the farthest pair, so they join last. Distances
 * live in one typed array (n × n doubles).
 */
export function averageLinkage(matrix: DenseMatrix): Clustering {
  const { values, rows: n, columns: width } = matrix;
  if (n === 0) return { merges: [], order: [] };
  const distance = distancesOf(values, completeRows(matrix), n, width);
  let farthest = 0;
  for (let at = 0; at < n * n; at++) if ((distance[at] as number) > farthest) farthest = distance[at] as number;
  for (let at = 0; at < n * n; at++) if (Number.isNaN(distance[at])) distance[at] = farthest;
  return joinClosest(distance, n);
}

/** 1 for each row with every value (those take the short way), 0 for the others. */
function completeRows({ values, rows, columns }: DenseMatrix): Uint8Array {
  const complete = new Uint8Array(rows).fill(1);
  for (let at = 0; at < rows * columns; at++) if (Number.isNaN(values[at])) complete[Math.floor(at / columns)] = 0;
  return complete;
}

/**
 * The distances between every two rows of `values` (`width` each), as an n × n matrix; NaN where
 * two share no position. Three complete rows at a time meet the complete rows after them four at
 * a time: each distance the same sums in the same order as one at a time (the same to the last
 * bit), twelve running at once, each value read once for twelve of them. Twelve sums still fit
 * V8's registers (eight took a quarter longer at 1,000 × 200; sixteen spilled).
 */
function distancesOf(values: Float64Array, complete: Uint8Array, n: number, width: number): Float64Array {
  const distance = new Float64Array(n * n);
  const one = (i: number, j: number) => {
    distance[i * n + j] = distanceOf(values, i, j, width, complete[i] === 1 && complete[j] === 1);
  };
  const allComplete = (from: number, count: number) => {
    for (let at = from; at < from + count; at++) if (complete[at] !== 1) return false;
    return true;
  };
  let i = 0;
  for (; i + 2 < n; i += 3) {
    one(i, i + 1);
    one(i, i + 2);
    one(i + 1, i + 2);
    let j = i + 3;
    if (allComplete(i, 3)) {
      for (; j + 3 < n; j += 4) {
        if (allComplete(j, 4)) twelveDistances(values, i, j, width, distance, n);
        else for (let m = j; m < j + 4; m++) for (let r = i; r < i + 3; r++) one(r, m);
      }
    }
    for (; j < n; j++) for (let r = i; r < i + 3; r++) one(r, j);
  }
  // The last one or two rows, when n is not a multiple of three.
  for (; i < n; i++) for (let j = i + 1; j < n; j++) one(i, j);
  mirror(distance, n);
  return distance;
}

/** The distances of complete rows `i`…`i + 2` to complete rows `j`…`j + 3`, into `into` (n × n). */
function twelveDistances(values: Float64Array, i: number, j: number, width: number, into: Float64Array, n: number) {
  const [a0, a1, a2] = [i * width, (i + 1) * width, (i + 2) * width];
  const [b0, b1, b2, b3] = [j * width, (j + 1) * width, (j + 2) * width, (j + 3) * width];
  let [s00, s01, s02, s03, s10, s11, s12, s13, s20, s21, s22, s23] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  for (let k = 0; k < width; k++) {
    const x = values[a0 + k] as number;
    const y = values[a1 + k] as number;
    const z = values[a2 + k] as number;
    const c0 = values[b0 + k] as number;
    const c1 = values[b1 + k] as number;
    const c2 = values[b2 + k] as number;
    const c3 = values[b3 + k] as number;
    let gap = x - c0;
    s00 += gap * gap;
    gap = x - c1;
    s01 += gap * gap;
    gap = x - c2;
    s02 += gap * gap;
    gap = x - c3;
    s03 += gap * gap;
    gap = y - c0;
    s10 += gap * gap;
    gap = y - c1;
    s11 += gap * gap;
    gap = y - c2;
    s12 += gap * gap;
    gap = y - c3;
    s13 += gap * gap;
    gap = z - c0;
    s20 += gap * gap;
    gap = z - c1;
    s21 += gap * gap;
    gap = z - c2;
    s22 += gap * gap;
    gap = z - c3;
    s23 += gap * gap;
  }
  const sums = [s00, s01, s02, s03, s10, s11, s12, s13, s20, s21, s22, s23];
  for (let at = 0; at < 12; at++) into[(i + Math.floor(at / 4)) * n + j + (at % 4)] = Math.sqrt(sums[at] as number);
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

/** The distance of rows `i` and `j` of `values`; NaN when they share no position. */
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
 * Every loop visits only the active slots (`ActiveSlots`), in ascending order as before.
 */
function joinClosest(distance: Float64Array, n: number): Clustering {
  // Per slot: its cluster id, size and leaves in order.
  const id = Array.from({ length: n }, (_, i) => i);
  const size = new Float64Array(n).fill(1);
  const leaves: number[][] = Array.from({ length: n }, (_, i) => [i]);
  const active = new ActiveSlots(n);
  const slots = active.slots;
  const nearest = new Int32Array(n).fill(-1);
  const nearestAt = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  // 1 when `nearest` may no longer be the first later slot at the least distance (`nearestAt` a bound).
  const stale = new Uint8Array(n);
  const rescan = (i: number) => {
    let best = -1;
    let least = Number.POSITIVE_INFINITY;
    const row = i * n;
    for (let at = active.after(i); at < active.count; at++) {
      const j = slots[at] as number;
      const d = distance[row + j] as number;
      if (best < 0 || d < least) {
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
      for (let at = 0; at < active.count; at++) {
        const k = slots[at] as number;
        if ((nearest[k] as number) >= 0 && (i < 0 || (nearestAt[k] as number) < (nearestAt[i] as number))) i = k;
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
    active.remove(j);
    for (let at = 0; at < active.count; at++) {
      const k = slots[at] as number;
      if (k === i) continue;
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
  return { merges, order: leaves[slots[0] as number] ?? [] };
}

/**
 * The slots not yet joined, ascending, packed at the front of `slots`: the loops of each step
 * visit only these (half of all slots on average over the steps) instead of testing every slot.
 */
class ActiveSlots {
  readonly slots: Int32Array;
  count: number;

  constructor(n: number) {
    this.slots = Int32Array.from({ length: n }, (_, i) => i);
    this.count = n;
  }

  /** The position of the first active slot after `slot`. */
  after(slot: number): number {
    let [low, high] = [0, this.count];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.slots[middle] as number) <= slot) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  remove(slot: number): void {
    const at = this.after(slot) - 1;
    this.slots.copyWithin(at, at + 1, this.count);
    this.count--;
  }
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
export function zScores({ values, rows, columns }: DenseMatrix): DenseMatrix {
  const scaled = new Float64Array(values.length);
  for (let row = 0; row < rows; row++) {
    const start = row * columns;
    let [sum, count] = [0, 0];
    for (let at = start; at < start + columns; at++) {
      const value = values[at] as number;
      if (Number.isNaN(value)) continue;
      sum += value;
      count++;
    }
    const mean = sum / Math.max(1, count);
    let squares = 0;
    for (let at = start; at < start + columns; at++) {
      const value = values[at] as number;
      if (!Number.isNaN(value)) squares += (value - mean) ** 2;
    }
    const sd = Math.sqrt(squares / Math.max(1, count - 1));
    for (let at = start; at < start + columns; at++) {
      const value = values[at] as number;
      scaled[at] = Number.isNaN(value) ? Number.NaN : sd > 0 ? (value - mean) / sd : 0;
    }
  }
  return { values: scaled, rows, columns };
}

/** The columns of a matrix as rows. */
export function transposed({ values, rows, columns }: DenseMatrix): DenseMatrix {
  const flipped = new Float64Array(values.length);
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      flipped[column * rows + row] = values[row * columns + column] as number;
    }
  }
  return { values: flipped, rows: columns, columns: rows };
}
