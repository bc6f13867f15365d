const twoDigits = (value: number) => String(value).padStart(2, '0');

/**
 * A timestamp in the reader's time zone, written the ISO 8601 way to the minute
 * ("2026-11-22 14:05"), as Grafana does: unambiguous in every locale and sortable as text.
 *
 * Written by hand rather than with `Intl.DateTimeFormat`: the first formatter of a page loads the
 * locale's data, which took the browser's main thread 40–100 ms on the deep link to a collection,
 * in the middle of the app's start-up (docs/performance.md, `web`).
 */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const day = `${date.getFullYear()}-${twoDigits(date.getMonth() + 1)}-${twoDigits(date.getDate())}`;
  return `${day} ${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}`;
}

/**
 * `formatDate` to the second ("2026-11-22 14:05:09"): for table versions, which one ingestion
 * often commits within the same minute.
 */
export function formatDateSeconds(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${formatDate(iso)}:${twoDigits(date.getSeconds())}`;
}
