import { type RawBuilder, type SqlBool, sql } from 'kysely';

/** `%`, `_` and the escape character itself, which LIKE would read as wildcards. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/**
 * `column` contains `text`, any case, on SQLite and PostgreSQL alike (PostgreSQL's LIKE minds the
 * case, SQLite's does not; both lower the column here). The text is a bound parameter and its
 * wildcards are escaped, so a search for `50%` finds "50%" and nothing else.
 */
export function nameContains(column: string, text: string): RawBuilder<SqlBool> {
  const pattern = `%${escapeLike(text)}%`;
  // The database lowers both sides, so they agree on every letter (SQLite lowers ASCII only).
  return sql<SqlBool>`lower(${sql.ref(column)}) like lower(${pattern}) escape '\\'`;
}
