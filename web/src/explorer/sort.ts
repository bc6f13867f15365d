import { type SortKey, sortParamSchema } from '@service/common';

/**
 * The preview's sort as it travels: the API's own `sort=col:asc,col2:desc` text, kept as is in the
 * address bar, so a shared link sorts the same way the server reads it.
 */

/** The sort keys of a `sort` parameter; none when it is missing or malformed (the preview then stays unsorted). */
export function parseSort(text: string | null): SortKey[] {
  if (text === null || text === '') return [];
  const parsed = sortParamSchema.safeParse(text);
  return parsed.success ? parsed.data : [];
}

/** The `sort` parameter of a list of keys; null for none. */
export function formatSort(keys: readonly SortKey[]): string | null {
  return keys.length === 0 ? null : keys.map((key) => `${key.column}:${key.direction}`).join(',');
}

/**
 * The sort after a click on `column`'s header: ascending, then descending, then unsorted. A plain
 * click sorts by that column alone; with `additive` (shift-click) the column is added to, turned
 * in, or removed from the existing keys and the others keep their place.
 */
export function nextSort(keys: readonly SortKey[], column: string, additive: boolean): SortKey[] {
  const current = keys.find((key) => key.column === column);
  const next: SortKey | null =
    current === undefined
      ? { column, direction: 'asc' }
      : current.direction === 'asc'
        ? { column, direction: 'desc' }
        : null;
  if (!additive) return next === null ? [] : [next];
  if (current === undefined) return [...keys, next as SortKey];
  return next === null ? keys.filter((key) => key !== current) : keys.map((key) => (key === current ? next : key));
}
