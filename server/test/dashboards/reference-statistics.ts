import { expect } from 'vitest';

/**
 * Statistics of a double column worked out in the test, by the meaning of docs/data.md ("NaN,
 * Infinity and extreme numbers"), to compare with what the service answers.
 */
export interface DoubleReference {
  /** Non-null values, NaN and ±Infinity included. */
  count: number;
  nonFinite: number;
  nans: number;
  /** Distinct non-null values (NaN one of them; 0 and −0 the same). */
  distinct: number;
  finite: number[];
  min: number | null;
  max: number | null;
  sum: number | null;
  mean: number | null;
  median: number | null;
  std: number | null;
  /** Whether a sum over these values may overflow on the way, depending on DuckDB's order. */
  nearLimit: boolean;
}

const orNull = (value: number) => (Number.isFinite(value) ? value : null);

export function doubleReference(values: readonly (number | null)[]): DoubleReference {
  const present = values.filter((value): value is number => value !== null);
  const finite = present.filter(Number.isFinite).sort((a, b) => a - b);
  const n = finite.length;
  const largest = finite.reduce((most, value) => Math.max(most, Math.abs(value)), 0);
  // Summed as 1/1024ths: no overflow on the way for the few values a table has here.
  const sum = n === 0 ? null : orNull(finite.reduce((total, value) => total + value / 1024, 0) * 1024);
  return {
    count: present.length,
    nonFinite: present.length - n,
    nans: present.filter(Number.isNaN).length,
    distinct: new Set(present).size,
    finite,
    min: finite[0] ?? null,
    max: finite.at(-1) ?? null,
    sum,
    mean: n === 0 ? null : orNull((finite.reduce((total, value) => total + value / 1024, 0) / n) * 1024),
    median: n === 0 ? null : quantile(finite, 0.5),
    std: n < 2 ? null : std(finite, largest),
    nearLimit: largest > 1e300,
  };
}

/** Interpolated as numpy does, without the overflow of `high − low`. */
function quantile(sorted: readonly number[], q: number): number {
  const position = q * (sorted.length - 1);
  const below = Math.floor(position);
  const low = sorted[below] ?? 0;
  const high = sorted[Math.min(below + 1, sorted.length - 1)] ?? low;
  const fraction = position - below;
  return fraction === 0 ? low : low * (1 - fraction) + high * fraction;
}

/** Sample standard deviation, the values scaled by the largest so that no square overflows. */
function std(values: readonly number[], largest: number): number | null {
  if (largest === 0) return 0;
  const scaled = values.map((value) => value / largest);
  const mean = scaled.reduce((total, value) => total + value, 0) / scaled.length;
  const squares = scaled.reduce((total, value) => total + (value - mean) ** 2, 0);
  return orNull(Math.sqrt(squares / (scaled.length - 1)) * largest);
}

/** `actual` is `expected` within a relative tolerance (exact for null and 0). */
export function expectClose(actual: unknown, expected: number | null, what: string, tolerance = 1e-9): void {
  if (expected === null) {
    expect(actual, what).toBeNull();
    return;
  }
  expect(typeof actual, `${what}: ${JSON.stringify(actual)} for ${expected}`).toBe('number');
  const error = Math.abs((actual as number) - expected);
  expect(error, `${what}: ${actual} for ${expected}`).toBeLessThanOrEqual(tolerance * Math.abs(expected) + 1e-300);
}

/**
 * A sum or mean: near the limit of a double DuckDB may overflow on the way (its order of adding
 * is its own), and answers null then; otherwise it agrees with the reference.
 */
export function expectSum(actual: unknown, expected: number | null, reference: DoubleReference, what: string) {
  if (reference.nearLimit && actual === null) return;
  const spread = reference.finite.reduce((total, value) => total + Math.abs(value) / 1024, 0) * 1024;
  if (expected === null || actual === null) {
    expectClose(actual, expected, what);
    return;
  }
  expect(typeof actual, what).toBe('number');
  const scale = what.startsWith('mean') ? spread / Math.max(reference.finite.length, 1) : spread;
  expect(Math.abs((actual as number) - expected), `${what}: ${actual} for ${expected}`).toBeLessThanOrEqual(
    1e-9 * scale + 1e-300,
  );
}

/** An int64 answer (a number when exact in a double, else decimal text) as text. */
export const int64Text = (value: unknown) => (value === null ? null : String(value));
