import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { averageLinkage, type Clustering, type DenseMatrix, transposed, zScores } from '../../src/analytics/index.js';

/*
 * The clustered heatmap's numbers (analytics/components/clustering.ts) against a reference written
 * the plain way here: every distance over the positions two rows share, then at every step a scan
 * of every pair of clusters for the closest (the first pair in input order on a tie) and a fresh
 * mean for the new cluster. The server's code reaches the same merges by other means (twelve
 * distances at once, a nearest neighbour remembered per row): they must agree to the last bit.
 */

type Rows = (number | null)[][];

/** Euclidean distance over the shared positions, scaled up to all of them; null when none is shared. */
function referenceDistance(a: (number | null)[], b: (number | null)[]): number | null {
  let [sum, shared] = [0, 0];
  a.forEach((u, k) => {
    const v = b[k];
    if (u === null || v === null || v === undefined) return;
    sum += (u - v) * (u - v);
    shared++;
  });
  if (shared === 0) return null;
  return shared === a.length ? Math.sqrt(sum) : Math.sqrt((sum * a.length) / shared);
}

/** The distances of every two rows; pairs sharing nothing as far as the farthest pair. */
function referenceDistances(rows: Rows): number[][] {
  const found = rows.map((a) => rows.map((b) => referenceDistance(a, b)));
  const farthest = Math.max(0, ...found.flat().filter((d): d is number => d !== null));
  return found.map((line) => line.map((d) => d ?? farthest));
}

/** Average linkage by scanning every pair at every step (cubic, fine for a few dozen rows). */
function referenceLinkage(rows: Rows): Clustering {
  const n = rows.length;
  const distance = referenceDistances(rows);
  const clusters = rows.map((_, i) => ({ id: i, size: 1, leaves: [i], active: true }));
  const merges: Clustering['merges'] = [];
  for (let step = 1; step < n; step++) {
    let best: [number, number] = [-1, -1];
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        if (!clusters[i]?.active || !clusters[j]?.active) continue;
        const d = distance[i]?.[j] as number;
        if (best[0] < 0 || d < (distance[best[0]]?.[best[1]] as number)) best = [i, j];
      }
    }
    const [i, j] = best;
    const [left, right] = [clusters[i], clusters[j]] as [(typeof clusters)[0], (typeof clusters)[0]];
    merges.push([left.id, right.id, distance[i]?.[j] as number]);
    for (let k = 0; k < n; k++) {
      if (!clusters[k]?.active || k === i || k === j) continue;
      const mean =
        (left.size * (distance[i]?.[k] as number) + right.size * (distance[j]?.[k] as number)) /
        (left.size + right.size);
      (distance[i] as number[])[k] = mean;
      (distance[k] as number[])[i] = mean;
    }
    clusters[i] = {
      id: n + step - 1,
      size: left.size + right.size,
      leaves: [...left.leaves, ...right.leaves],
      active: true,
    };
    right.active = false;
  }
  return { merges, order: clusters.find((cluster) => cluster.active)?.leaves ?? [] };
}

function dense(rows: Rows): DenseMatrix {
  const columns = rows[0]?.length ?? 0;
  const values = new Float64Array(rows.length * columns);
  rows.forEach((row, i) => {
    row.forEach((value, k) => {
      values[i * columns + k] = value ?? Number.NaN;
    });
  });
  return { values, rows: rows.length, columns };
}

const rowsOf = ({ values, rows, columns }: DenseMatrix): Rows =>
  Array.from({ length: rows }, (_, i) =>
    Array.from(values.subarray(i * columns, (i + 1) * columns), (value) => (Number.isNaN(value) ? null : value)),
  );

/**
 * Matrices of 1–30 rows × 1–9 columns: small integers (ties everywhere) or doubles, some rows
 * with gaps and some without, so that the twelve-at-a-time distances meet complete and
 * incomplete rows.
 */
const matrices = fc
  .record({ rows: fc.integer({ min: 1, max: 30 }), columns: fc.integer({ min: 1, max: 9 }), ties: fc.boolean() })
  .chain(({ rows, columns, ties }) => {
    const value = ties ? fc.integer({ min: 0, max: 3 }) : fc.double({ min: -5, max: 5, noNaN: true });
    const gappy = fc.oneof({ weight: 4, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) });
    const row = fc.oneof(
      fc.array(value, { minLength: columns, maxLength: columns }),
      fc.array(gappy, { minLength: columns, maxLength: columns }),
    );
    return fc.array(row, { minLength: rows, maxLength: rows });
  });

describe('average-linkage clustering', () => {
  it('joins the rows as scanning every pair at every step does', () => {
    fc.assert(
      fc.property(matrices, (rows) => {
        expect(averageLinkage(dense(rows))).toEqual(referenceLinkage(rows));
      }),
      { seed: 28, numRuns: 300 },
    );
  });

  it('joins larger matrices as the reference does', () => {
    // Enough rows for many blocks of twelve distances and joins deep into the active-slot list.
    const larger = fc.integer({ min: 31, max: 90 }).chain((rows) =>
      fc.array(fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 5, maxLength: 5 }), {
        minLength: rows,
        maxLength: rows,
      }),
    );
    fc.assert(
      fc.property(larger, (rows) => {
        expect(averageLinkage(dense(rows))).toEqual(referenceLinkage(rows));
        const scaled = zScores(dense(rows));
        expect(averageLinkage(scaled)).toEqual(referenceLinkage(rowsOf(scaled)));
      }),
      { seed: 30, numRuns: 30 },
    );
  });

  it('joins the columns of z-scored rows as the reference does', () => {
    fc.assert(
      fc.property(matrices, (rows) => {
        const columns = transposed(zScores(dense(rows)));
        expect(averageLinkage(columns)).toEqual(referenceLinkage(rowsOf(columns)));
      }),
      { seed: 29, numRuns: 200 },
    );
  });

  it('scales each row to z-scores over the values it has', () => {
    const scaled = rowsOf(
      zScores(
        dense([
          [1, 2, null, 3],
          [4, 4, 4, null],
          [null, null, null, null],
        ]),
      ),
    );
    expect(scaled[0]?.[0]).toBeCloseTo(-1, 15);
    expect(scaled[0]?.slice(1)).toEqual([0, null, 1]);
    // A constant row scales to zeros; a row without values stays without.
    expect(scaled.slice(1)).toEqual([
      [0, 0, 0, null],
      [null, null, null, null],
    ]);
  });

  it('transposes a matrix', () => {
    expect(
      rowsOf(
        transposed(
          dense([
            [1, 2, 3],
            [4, null, 6],
          ]),
        ),
      ),
    ).toEqual([
      [1, 4],
      [2, null],
      [3, 6],
    ]);
  });
});
