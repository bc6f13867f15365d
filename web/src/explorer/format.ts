/** How the explorer writes the values it shows. */

/** A cell of the preview or a distinct value: ∅ for null, JSON for nested values. */
export function formatCell(value: unknown): string {
  if (value === null || value === undefined) return '∅';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A count with thousands separators; — when unknown. */
export function formatCount(value: number | null): string {
  return value === null ? '—' : value.toLocaleString();
}

/** A computed statistic (mean, standard deviation): at most 6 significant digits; — when there is none. */
export function formatStatistic(value: number | null): string {
  if (value === null) return '—';
  if (value !== 0 && (Math.abs(value) >= 1e9 || Math.abs(value) < 1e-4)) return value.toExponential(4);
  return Number(value.toPrecision(6)).toLocaleString(undefined, { maximumFractionDigits: 6 });
}
