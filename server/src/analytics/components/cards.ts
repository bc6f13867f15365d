import { type CardComponent, type CardData, COUNTING_AGGS } from '@service/common';
import type { Narrowing } from '../filters/narrowing.js';
import { jsonValue, type TableSnapshot } from '../sql/columns.js';
import { scalarRow, withNarrowedRows } from '../sql/narrowed.js';
import type { TableReader } from '../sql/reader.js';
import { Statement } from '../sql/statement.js';
import { cardAggSql } from './card-aggregates.js';
import { cardExtras } from './card-history.js';
import { approximateOver, type ComputeOptions } from './fit.js';

/** The aggregate a card shows over all the rows it reads, with what restricting it takes. */
function cardAggregate(source: TableSnapshot, card: CardComponent, options: ComputeOptions) {
  // Medians and percentiles of big tables are approximate (bounded memory), filtered or not.
  const approximate = approximateOver(source, options);
  return { approximate, all: cardAggSql(source, card, undefined, approximate) };
}

/** The aggregate a card shows, over whatever rows it is computed on. */
export function cardSelects(source: TableSnapshot, card: CardComponent, options: ComputeOptions): { value: string } {
  return { value: cardAggregate(source, card, options).all.sql };
}

/**
 * A card's number on the filtered rows and on the whole table, with its comparison and sparkline
 * when it asks for them (card-history.ts).
 */
export async function cardData(
  reader: TableReader,
  source: TableSnapshot,
  card: CardComponent,
  narrowing: Narrowing,
  options: ComputeOptions,
): Promise<CardData> {
  const numbers = await cardNumbers(reader, source, card, narrowing, options);
  if (card.comparison === undefined && card.sparkline === undefined) return numbers;
  return { ...numbers, ...(await cardExtras(reader, source, card, narrowing, options, numbers.value)) };
}

/**
 * A card's number on the filtered rows and on the whole table. The whole table's is remembered
 * per snapshot. Filtered, the number comes from the request's shared pass when it has it;
 * otherwise, until the whole table's is known, one scan computes both, the filtered one as the
 * same aggregate restricted (`FILTER (WHERE …)`) to the rows the dashboard's filters keep.
 */
async function cardNumbers(
  reader: TableReader,
  source: TableSnapshot,
  card: CardComponent,
  narrowing: Narrowing,
  options: ComputeOptions,
): Promise<CardData> {
  if (source.snapshot === null) {
    const empty = COUNTING_AGGS.includes(card.agg) ? 0 : null;
    return { value: empty, unfiltered_value: empty };
  }
  const { approximate, all } = cardAggregate(source, card, options);
  const statement = new Statement();
  return withNarrowedRows(
    reader,
    source,
    narrowing,
    statement,
    async (rows) => {
      const { connection, from, conditions } = rows;
      const key = options.memo.keyOf(source, `card\u0000${all.sql}`);
      const known = options.memo.get(key);
      if (known !== undefined) {
        if (conditions.length === 0) return { value: known, unfiltered_value: known };
        const { value } = await scalarRow(rows, statement.params, { value: all.sql });
        return { value: jsonValue(value ?? null, all.output), unfiltered_value: known };
      }
      const shared = await rows.shared.get(all.sql);
      if (shared !== undefined && conditions.length === 0) {
        // Unfiltered, the shared pass computed the whole table's number.
        const whole = jsonValue(shared, all.output);
        options.memo.set(key, whole);
        return { value: whole, unfiltered_value: whole };
      }
      // The whole table's number alone (the shared pass has the filtered one), or both in one scan.
      const narrowed =
        shared !== undefined
          ? null
          : conditions.length === 0
            ? all
            : cardAggSql(source, card, conditions.join(' AND '), approximate);
      const [row = {}] = await connection.query(
        `SELECT ${all.sql} AS "unfiltered"${narrowed === null ? '' : `, ${narrowed.sql} AS "value"`} FROM ${from}`,
        narrowed === null ? [] : statement.params,
      );
      const unfiltered = jsonValue(row.unfiltered, all.output);
      options.memo.set(key, unfiltered);
      return { value: jsonValue(shared !== undefined ? shared : row.value, all.output), unfiltered_value: unfiltered };
    },
    options.shared,
  );
}
