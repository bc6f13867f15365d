/**
 * Principal component analysis of an embedding's numeric columns (docs/dashboards.md "Embeddings"):
 * each column centred and scaled to unit variance (so that units do not weigh), the eigenvectors of
 * their correlation matrix found by Jacobi rotations (a few columns: exact and short), and every
 * row projected on the first two (or three).
 */

export interface Pca {
  /** Per row: its first `dimensions` principal component scores. */
  scores: number[][];
  /** The share of the total variance of each of those components (0–1). */
  explained: number[];
}

/** PCA of complete rows (every value finite); fewer than two rows give zeros. */
export function pca(rows: readonly number[][], dimensions: 2 | 3 = 2): Pca {
  const width = rows[0]?.length ?? 0;
  const n = rows.length;
  const standardized = standardize(rows, width);
  const correlation = Array.from({ length: width }, (_, a) =>
    Array.from({ length: width }, (_, b) => {
      let sum = 0;
      for (const row of standardized) sum += (row[a] as number) * (row[b] as number);
      return n > 1 ? sum / (n - 1) : 0;
    }),
  );
  const { values, vectors } = jacobiEigen(correlation);
  const ranked = values
    .map((value, index) => ({ value, index }))
    .sort((a, b) => b.value - a.value || a.index - b.index);
  const total = values.reduce((sum, value) => sum + Math.max(0, value), 0);
  const axes = ranked.slice(0, dimensions).map(({ index }) => oriented(vectors.map((line) => line[index] as number)));
  const project = (row: number[], axis: number[] | undefined) =>
    axis === undefined ? 0 : row.reduce((sum, value, k) => sum + value * (axis[k] as number), 0);
  const share = (at: number) => (total > 0 ? Math.max(0, ranked[at]?.value ?? 0) / total : 0);
  const components = Array.from({ length: dimensions }, (_, at) => at);
  return {
    scores: standardized.map((row) => components.map((at) => project(row, axes[at]))),
    explained: components.map(share),
  };
}

/** Columns centred on their mean and divided by their sample standard deviation (constant: zeros). */
function standardize(rows: readonly number[][], width: number): number[][] {
  const n = rows.length;
  const means = Array.from({ length: width }, (_, k) => rows.reduce((sum, row) => sum + (row[k] as number), 0) / n);
  const sds = means.map((mean, k) =>
    Math.sqrt(rows.reduce((sum, row) => sum + ((row[k] as number) - mean) ** 2, 0) / Math.max(1, n - 1)),
  );
  return rows.map((row) =>
    row.map((value, k) => ((sds[k] as number) > 0 ? (value - (means[k] as number)) / (sds[k] as number) : 0)),
  );
}

/** An eigenvector's sign fixed: its largest loading (the first among equals) is positive. */
function oriented(vector: number[]): number[] {
  let at = 0;
  vector.forEach((value, k) => {
    if (Math.abs(value) > Math.abs(vector[at] as number) + 1e-12) at = k;
  });
  return (vector[at] as number) < 0 ? vector.map((value) => -value) : vector;
}

/** Eigenvalues and eigenvectors (columns of `vectors`) of a symmetric matrix, by cyclic Jacobi rotations. */
export function jacobiEigen(symmetric: readonly number[][]): { values: number[]; vectors: number[][] } {
  const size = symmetric.length;
  const a = symmetric.map((line) => [...line]);
  const v = Array.from({ length: size }, (_, i) => Array.from({ length: size }, (_, j) => (i === j ? 1 : 0)));
  const at = (m: number[][], i: number, j: number) => (m[i] as number[])[j] as number;
  const set = (m: number[][], i: number, j: number, value: number) => {
    (m[i] as number[])[j] = value;
  };
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < size; p++) for (let q = p + 1; q < size; q++) off += at(a, p, q) ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < size; p++) {
      for (let q = p + 1; q < size; q++) {
        if (Math.abs(at(a, p, q)) < 1e-300) continue;
        const theta = (at(a, q, q) - at(a, p, p)) / (2 * at(a, p, q));
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < size; k++) {
          const [akp, akq] = [at(a, k, p), at(a, k, q)];
          set(a, k, p, c * akp - s * akq);
          set(a, k, q, s * akp + c * akq);
        }
        for (let k = 0; k < size; k++) {
          const [apk, aqk] = [at(a, p, k), at(a, q, k)];
          set(a, p, k, c * apk - s * aqk);
          set(a, q, k, s * apk + c * aqk);
        }
        for (let k = 0; k < size; k++) {
          const [vkp, vkq] = [at(v, k, p), at(v, k, q)];
          set(v, k, p, c * vkp - s * vkq);
          set(v, k, q, s * vkp + c * vkq);
        }
      }
    }
  }
  return { values: a.map((line, i) => line[i] as number), vectors: v };
}
