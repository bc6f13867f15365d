/**
 * A count with thousands separators, as the app's English text writes it ("10,000,000"); — when
 * unknown.
 *
 * Written by hand rather than with `toLocaleString`: the page's first number formatter loads the
 * locale's data, which cost the deep link to a collection tens of milliseconds of the main
 * thread's start-up for one row count (docs/performance.md, `web`).
 */
export function formatCount(value: number | null): string {
  if (value === null) return '—';
  if (!Number.isSafeInteger(value)) return String(value);
  const grouped = String(Math.abs(value)).replace(/\B(?=(\d{3})+$)/g, ',');
  return value < 0 ? `-${grouped}` : grouped;
}

/**
 * A measured number (a mean, a sum) as a card shows it: whole and grouped from 1,000 up
 * ("4,202"), 4 significant digits below ("43.92", "0.1235"); — when unknown.
 */
export function formatMeasure(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return value === null ? '—' : String(value);
  if (Math.abs(value) >= 1000) return formatCount(Math.sign(value) * Math.round(Math.abs(value)));
  if (value === 0) return '0';
  if (Math.abs(value) < 1e-4) return value.toExponential(3);
  return String(Number(value.toPrecision(4)));
}
