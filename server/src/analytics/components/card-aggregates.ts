import type { CardComponent } from '@service/common';
import { type Column, columnOf, outputOf, type TableSnapshot } from '../sql/columns.js';
import { finiteOrNull, measuredSql, stddevSql } from '../sql/finite.js';
import { type AggSql, aggSql } from './fit.js';

/**
 * A card's aggregate as SQL (optionally over the rows `filter` keeps): the figures' aggregates, and
 * those only cards compute (docs/dashboards.md "Cards"). Every one is a single aggregate
 * expression, so the request's shared pass can compute a card's number with other components'.
 */
export function cardAggSql(
  source: TableSnapshot,
  card: CardComponent,
  filter: string | undefined,
  approximate: boolean,
) {
  const column = card.column === undefined ? null : columnOf(source, card.column, 'column');
  const where = filter === undefined ? '' : ` FILTER (WHERE ${filter})`;
  if (column === null) return aggSql('count', null, filter);
  const m = measuredSql(column);
  switch (card.agg) {
    case 'nunique':
      return aggSql('count_distinct', column, filter);
    case 'std':
      return double(stddevSql(m, where));
    case 'variance':
      return double(finiteOrNull(`CAST(covar_samp(${m}, ${m})${where} AS DOUBLE)`));
    case 'percentile': {
      const quantile = approximate ? 'approx_quantile' : 'quantile_cont';
      return double(finiteOrNull(`CAST(${quantile}(${m}, ${(card.p ?? 50) / 100})${where} AS DOUBLE)`));
    }
    case 'range':
      return rangeSql(column, m, where);
    case 'first':
    case 'last':
      return orderedSql(source, card, column, filter);
    case 'mode':
      return asColumn(column, `mode(${column.sql})${where}`);
    default:
      return aggSql(card.agg, column, filter, approximate);
  }
}

const DOUBLE = { type: 'double', output: 'plain' } as const;
const double = (sql: string): AggSql => ({ sql, ...DOUBLE });
const asColumn = (column: Column, sql: string): AggSql => ({
  sql,
  type: column.typeName,
  output: outputOf(column.kind),
});

/** max − min: exact for integers (as a HUGEINT), a finite double otherwise. */
function rangeSql(column: Column, m: string, where: string): AggSql {
  const spread = `max(${m})${where} - min(${m})${where}`;
  return column.kind === 'integer'
    ? {
        sql: `CAST(max(${m})${where} AS HUGEINT) - CAST(min(${m})${where} AS HUGEINT)`,
        type: 'long',
        output: 'integer',
      }
    : double(finiteOrNull(`CAST(${spread} AS DOUBLE)`));
}

/**
 * `first`/`last`: the value of the row with the lowest/highest `order_by` (rows without one left
 * out); between rows of the same `order_by`, the lowest/highest value, so the answer never depends
 * on the order DuckDB's threads read the rows in.
 */
function orderedSql(source: TableSnapshot, card: CardComponent, column: Column, filter: string | undefined): AggSql {
  const order = columnOf(source, card.order_by ?? '', 'order_by');
  const kept = [`${order.sql} IS NOT NULL`, ...(filter === undefined ? [] : [filter])].join(' AND ');
  const pick = card.agg === 'first' ? 'arg_min' : 'arg_max';
  return asColumn(column, `${pick}(${column.sql}, row(${order.sql}, ${column.sql})) FILTER (WHERE ${kept})`);
}
