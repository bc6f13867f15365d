import type { InteractiveComponent, OptionsData, RangeData } from '@service/common';
import type { Narrowing } from '../filters/narrowing.js';
import { columnOf, count, jsonValue, outputOf, type TableSnapshot } from '../sql/columns.js';
import { measuredSql } from '../sql/finite.js';
import { whereOf, withNarrowedRows } from '../sql/narrowed.js';
import type { TableReader } from '../sql/reader.js';
import { Statement } from '../sql/statement.js';
import type { ComputeOptions } from './fit.js';

/** Options a select, multiselect, switch or search widget lists before saying `truncated`. */
export const OPTIONS_LIMIT = 1000;

/**
 * What an interactive component offers: a range widget the column's bounds on the whole table
 * (the slider's ends must not move as other filters change), the others the column's values with
 * their counts under the filters they are given (the service leaves the widget's own filter out),
 * most frequent first.
 */
export async function interactiveData(
  reader: TableReader,
  source: TableSnapshot,
  component: InteractiveComponent,
  narrowing: Narrowing,
  options: ComputeOptions,
): Promise<OptionsData | RangeData> {
  const ranged = component.widget === 'range' || component.widget === 'date_range';
  if (source.snapshot === null) return ranged ? { min: null, max: null } : { options: [], truncated: false };
  const column = columnOf(source, component.column, 'column');
  const output = outputOf(column.kind);
  if (ranged) {
    // The same for every filter: remembered per snapshot.
    const key = options.memo.keyOf(source, `range\u0000${column.sql}`);
    const known = options.memo.get(key);
    if (known !== undefined && typeof known === 'object' && known !== null && !Array.isArray(known)) {
      return { min: known.min ?? null, max: known.max ?? null };
    }
    return reader.withRows(source, async (connection, from) => {
      const [row = {}] = await connection.query(
        `SELECT min(${measuredSql(column)}) AS "min", max(${measuredSql(column)}) AS "max" FROM ${from}`,
      );
      const bounds = { min: jsonValue(row.min, output), max: jsonValue(row.max, output) };
      options.memo.set(key, bounds);
      return bounds;
    });
  }
  const statement = new Statement();
  return withNarrowedRows(reader, source, narrowing, statement, async ({ connection, from, conditions }) => {
    const rows = await connection.query(
      `SELECT ${column.sql} AS "value", count(*) AS "count" FROM ${from}${whereOf(conditions)} GROUP BY 1 ` +
        `ORDER BY 2 DESC, 1 ASC NULLS LAST LIMIT ${OPTIONS_LIMIT + 1}`,
      statement.params,
    );
    return {
      options: rows
        .slice(0, OPTIONS_LIMIT)
        .map((row) => ({ value: jsonValue(row.value, output), count: count(row.count) })),
      truncated: rows.length > OPTIONS_LIMIT,
    };
  });
}
