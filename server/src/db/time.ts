/** Times are stored as ISO-8601 UTC text; this is the one place that formats them. */
export function isoNow(): string {
  return new Date().toISOString();
}

export function isoAfterSeconds(seconds: number, from = Date.now()): string {
  return new Date(from + seconds * 1000).toISOString();
}
