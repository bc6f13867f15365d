import type { SqlConnection, SqlValue } from '../../engine/duckdb.js';
import { type Column, invalid } from './columns.js';

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
    if (this.casts.length === 0) return;
    const checks = this.casts.map((cast, index) => `TRY_CAST($${index + 1} AS ${cast.sqlType}) IS NULL AS "${index}"`);
    const [result] = await connection.query(
      `SELECT ${checks.join(', ')}`,
      this.casts.map((cast) => cast.text),
    );
    this.casts.forEach((cast, index) => {
      if (result?.[String(index)] === true) {
        throw invalid(cast.path, `${JSON.stringify(cast.text)} is not a valid ${cast.column.typeName}`);
      }
    });
  }
}
