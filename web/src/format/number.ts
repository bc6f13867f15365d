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
