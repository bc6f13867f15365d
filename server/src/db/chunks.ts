/** Ids per query's `in` list, well under any database's parameter limit. */
const CHUNK = 500;

/** The items in slices of at most CHUNK, one query's `in` list each. */
export function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += CHUNK) result.push(items.slice(start, start + CHUNK));
  return result;
}
