import type { SqlConnection, SqlValue } from '../../engine/duckdb.js';
import { type Column, invalid } from './columns.js';

/**
 * Whether DuckDB converts a text to a type, by `type NUL text`: a pure answer, kept so that the
 * components of one request (and the next requests with the same filters) ask once, not once each.
 */
const convertible = new Map<string, boolean>();
const CONVERTIBLE_LIMIT = 10_000;

/** Parameters of one statement, and filter values that must be checked before they are cast. */
export class Statement {
  readonly params: SqlValue[] = [];
  private readonly casts: { param: string; sqlType: string; path: string; text: string; column: Column }[] = [];

  param(value: SqlValue): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** `CAST($n AS type)` of a text that must be a valid value of the column's type. */
  cast(text: string, column: Column, path: string, sqlType = column.sqlType): string {
    const param = this.param(text);
    this.casts.push({ param, sqlType, path, text, column });
    return `CAST(${param} AS ${sqlType})`;
  }

  /** Refuses (400) a filter value that doesn't convert to its column's type, before any data is read. */
  async validate(connection: SqlConnection): Promise<void> {
    const keyOf = (cast: { sqlType: string; text: string }) => `${cast.sqlType}\u0000${cast.text}`;
    const unknown = this.casts.filter((cast) => !convertible.has(keyOf(cast)));
    if (unknown.length > 0) {
      const checks = unknown.map((cast, index) => `TRY_CAST($${index + 1} AS ${cast.sqlType}) IS NULL AS "${index}"`);
      const [result] = await connection.query(
        `SELECT ${checks.join(', ')}`,
        unknown.map((cast) => cast.text),
      );
      if (convertible.size + unknown.length > CONVERTIBLE_LIMIT) convertible.clear();
      unknown.forEach((cast, index) => {
        convertible.set(keyOf(cast), result?.[String(index)] !== true);
      });
    }
    for (const cast of this.casts) {
      if (convertible.get(keyOf(cast)) === false) {
        throw invalid(cast.path, `${JSON.stringify(cast.text)} is not a valid ${cast.column.typeName}`);
      }
    }
  }
}
