/** SQL text helpers for DuckDB statements built by the engine. */

/** A double-quoted identifier; embedded quotes are doubled. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
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
