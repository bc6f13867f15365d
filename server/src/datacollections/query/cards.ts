import type { CardComponent, CardData } from '@service/common';
import { columnOf, jsonValue, type Source } from './columns.js';
import { aggSql, approximateOver, type ComputeOptions } from './fit.js';
import { whereOf, withNarrowedRows } from './narrowed.js';
import type { Narrowing } from './narrowing.js';
import type { TableReader } from './reader.js';
import { Statement } from './statement.js';

/**
 * A card's number on the filtered rows and on the whole table. The whole table's is remembered
 * per snapshot; until it is, one scan computes both, the filtered one as the same aggregate
 * restricted (`FILTER (WHERE …)`) to the rows the dashboard's filters keep.
 */
export async function cardData(
  reader: TableReader,
  source: Source,
  card: CardComponent,
  narrowing: Narrowing,
  options: ComputeOptions,
): Promise<CardData> {
  if (source.snapshot === null) {
    const empty = card.agg === 'count' || card.agg === 'count_distinct' ? 0 : null;
    return { value: empty, unfiltered_value: empty };
  }
  const column = card.column === undefined ? null : columnOf(source, card.column, 'column');
  const statement = new Statement();
  return withNarrowedRows(reader, source, narrowing, statement, async ({ connection, from, conditions }) => {
    // Medians of big tables are approximate (bounded memory), filtered or not.
    const approximate = approximateOver(source, options);
    const all = aggSql(card.agg, column, undefined, approximate);
    const key = options.memo.keyOf(source, `card\u0000${all.sql}`);
    const known = options.memo.get(key);
    if (known !== undefined && conditions.length > 0) {
      const [row = {}] = await connection.query(
        `SELECT ${all.sql} AS "value" FROM ${from}${whereOf(conditions)}`,
        statement.params,
      );
      return { value: jsonValue(row.value, all.output), unfiltered_value: known };
    }
    const narrowed = conditions.length === 0 ? all : aggSql(card.agg, column, conditions.join(' AND '), approximate);
    const [row = {}] = await connection.query(
      `SELECT ${narrowed.sql} AS "value", ${all.sql} AS "unfiltered" FROM ${from}`,
      statement.params,
    );
    const unfiltered = jsonValue(row.unfiltered, all.output);
    options.memo.set(key, unfiltered);
    return { value: jsonValue(row.value, all.output), unfiltered_value: unfiltered };
  });
}
