import type { ColorRanges, TableComponent } from '@service/common';
import type { JsonValue } from '../../engine/duckdb.js';
import { type Column, isNumeric, type TableSnapshot } from '../sql/columns.js';
import { measuredSql } from '../sql/finite.js';
import type { TableReader } from '../sql/reader.js';
import type { WholeTableMemo } from '../sql/whole-table.js';
import type { FitProblem } from './fit.js';

/**
 * The whole table's lowest and highest finite value of each numeric column a table component
 * colours (docs/dashboards.md "Tables"): one scan per table version, remembered, so colours mean
 * the same on every page and under every filter. Columns the table no longer has, or no longer
 * holds numbers in, are left uncoloured.
 */
export async function colorRanges(
  reader: TableReader,
  source: TableSnapshot,
  scales: TableComponent['color_scales'],
  memo: WholeTableMemo,
): Promise<ColorRanges | undefined> {
  const columns = (scales ?? []).flatMap((scale) => {
    const column = source.byName.get(scale.column);
    return column !== undefined && isNumeric(column) ? [column] : [];
  });
  if (columns.length === 0 || source.snapshot === null) return undefined;
  const key = memo.keyOf(source, `color-ranges\u0000${columns.map((column) => column.name).join('\u0000')}`);
  const known = memo.get(key);
  if (isRanges(known)) return known;
  const selects = columns.flatMap((column, index) => [
    `CAST(min(${measuredSql(column)}) AS DOUBLE) AS "low${index}"`,
    `CAST(max(${measuredSql(column)}) AS DOUBLE) AS "high${index}"`,
  ]);
  const [row = {}] = await reader.withRows(source, (connection, from) =>
    connection.query(`SELECT ${selects.join(', ')} FROM ${from}`),
  );
  const ranges: Record<string, [number, number]> = {};
  columns.forEach((column, index) => {
    const [low, high] = [row[`low${index}`], row[`high${index}`]];
    if (typeof low === 'number' && typeof high === 'number') ranges[column.name] = [low, high];
  });
  memo.set(key, ranges);
  return ranges;
}

function isRanges(value: JsonValue | undefined): value is Record<string, [number, number]> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A table component's coloured columns the table lacks or holds no numbers in (checked when saved). */
export function colorScaleProblems(byName: ReadonlyMap<string, Column>, table: TableComponent): FitProblem[] {
  return (table.color_scales ?? []).flatMap((scale, index): FitProblem[] => {
    const column = byName.get(scale.column);
    const field = `color_scales[${index}].column`;
    if (column === undefined) {
      return [{ code: 'unknown_column', field, message: `the table has no column ${JSON.stringify(scale.column)}` }];
    }
    if (isNumeric(column)) return [];
    return [
      {
        code: 'unsuitable_column',
        field,
        message: `a colour scale needs a numeric column; ${column.name} is ${column.typeName}`,
      },
    ];
  });
}
