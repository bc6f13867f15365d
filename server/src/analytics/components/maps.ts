import { type FigureComponent, type FigureData, MAX_REGION_CODES, type UnmatchedRegions } from '@service/common';
import type { JsonValue } from '../../engine/duckdb.js';
import { columnOf, count, jsonValue, outputOf, type TableSnapshot } from '../sql/columns.js';
import { type NarrowedRows, scalarRow, whereOf } from '../sql/narrowed.js';
import type { Statement } from '../sql/statement.js';
import { countryKeySql, countryValuesSql } from './country-codes.js';
import { figureAnswer, figureColumns, numberRole, type Role } from './figure-rows.js';
import { aggSql, approximateOver, type ComputeOptions } from './fit.js';

/**
 * A choropleth's countries (docs/dashboards.md "Maps"): `agg` of `y` (a row count without it) per
 * country of the map, its region codes matched in DuckDB against every code and name of each
 * country (country-codes.ts), so that "USA", "US" and "840" in one column are one country and its
 * aggregate is over all their rows. Codes of no country on the map are counted and the commonest
 * named (`unmatched`); the answer lists, per country, the table's values that named it (the first
 * `MAX_REGION_CODES` in order, and how many there are): a click filters by them, and the filter
 * selects every row of their countries (filters/map-filters.ts).
 */
export async function choroplethData(
  rows: NarrowedRows,
  source: TableSnapshot,
  figure: FigureComponent,
  statement: Statement,
  options: ComputeOptions,
): Promise<FigureData> {
  const { connection, from, conditions } = rows;
  if (figure.region === undefined) throw new Error('a choropleth needs region');
  const region = columnOf(source, figure.region, 'region');
  const { y } = figureColumns(source, figure);
  const agg = figure.agg ?? 'count';
  const measured = agg === 'count' ? null : y;
  const value = aggSql(agg, measured, undefined, agg === 'median' && approximateOver(source, options));
  // The lookup's columns have names no table column is likely to have: the filters name columns unqualified.
  const join =
    ` LEFT JOIN ${countryValuesSql()} AS "__map"("__map_key", "__map_name", "__map_alpha3") ` +
    `ON "__map_key" = ${countryKeySql(region.sql)}`;
  const matched = await connection.query(
    `SELECT "__map_name" AS "region", any_value("__map_alpha3") AS "code", ${value.sql} AS "y", count(*) AS "rows", ` +
      `list_slice(array_sort(list(DISTINCT ${region.sql})), 1, ${MAX_REGION_CODES}) AS "codes", ` +
      `count(DISTINCT ${region.sql}) AS "code_count" FROM ${from}${join}` +
      `${whereOf(conditions, '"__map_name" IS NOT NULL')} GROUP BY 1 ORDER BY 1`,
    statement.params,
  );
  const unmatched = await connection.query(
    `SELECT ${region.sql} AS "code", count(*) AS "n", count(*) OVER () AS "values", sum(count(*)) OVER () AS "rows" ` +
      `FROM ${from}${join}${whereOf(conditions, '"__map_name" IS NULL', `${region.sql} IS NOT NULL`)} ` +
      'GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10',
    statement.params,
  );
  const totals = await scalarRow(rows, statement.params, {
    n: 'count(*)',
    missing: `count(*) FILTER (WHERE ${region.sql} IS NULL)`,
  });
  const codeOutput = outputOf(region.kind);
  const roles: Role[] = [
    // The country's name on the map, for the table's column of codes.
    { name: 'region', type: 'string', column: region.name, output: 'plain' },
    { name: 'code', type: 'string', column: null, output: 'plain' },
    numberRole('y', measured, value.type),
    numberRole('rows', null, 'long'),
    { name: 'codes', type: `array<${region.typeName}>`, column: region.name, output: 'plain' },
    numberRole('code_count', null, 'long'),
  ];
  const answer = figureAnswer(
    roles,
    matched.map((row) => ({ ...row, codes: codesOf(row.codes, codeOutput) })),
    false,
    count(totals.n),
  );
  const first = unmatched[0];
  const report: UnmatchedRegions = {
    rows: count(first?.rows),
    values: count(first?.values),
    examples: unmatched.map((row) => ({ code: jsonValue(row.code, codeOutput), rows: count(row.n) })),
    missing: count(totals.missing),
  };
  return { ...answer, unmatched: report };
}

/** A DuckDB list of codes as JSON values of the column's kind. */
function codesOf(list: JsonValue | undefined, output: ReturnType<typeof outputOf>): JsonValue {
  return Array.isArray(list) ? list.map((code) => jsonValue(code, output)) : [];
}
