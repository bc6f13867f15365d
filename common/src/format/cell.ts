/** A cell of a table or a distinct value, as the web app and the export page write it: ∅ for null, JSON for nested values. */
export function formatCell(value: unknown): string {
  if (value === null || value === undefined) return '∅';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
