/** SQL text helpers for DuckDB statements built by the engine. */

/** A double-quoted identifier; embedded quotes are doubled. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * `name` as a quoted identifier no column of `taken` has, `_` put before it until none does: a
 * column a statement adds beside a table's own (a copy's cells and ranks).
 */
export function identifierApart(name: string, taken: ReadonlySet<string>): string {
  let chosen = name;
  while (taken.has(chosen)) chosen = `_${chosen}`;
  return quoteIdentifier(chosen);
}

/** A single-quoted string literal; embedded quotes are doubled (DuckDB has no backslash escapes). */
export function quoteString(value: string): string {
  if (value.includes('\0')) throw new Error('SQL string literals cannot hold NUL characters');
  return `'${value.replaceAll("'", "''")}'`;
}

/** A `['a', 'b']` list literal of strings. */
export function stringList(values: readonly string[]): string {
  return `[${values.map(quoteString).join(', ')}]`;
}
