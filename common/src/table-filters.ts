import { z } from 'zod';
import { columnNameSchema, jsonParamSchema } from './queries.js';

/**
 * The filters a reader sets in a dashboard table's header (docs/dashboards.md "Tables"): one per
 * column, local to that table (they narrow its rows, count, pages, order and CSV, not the other
 * components), computed on the server with the values bound as parameters. By the column's type:
 * - `contains`: text columns; the value as text contains this, ignoring case.
 * - `between`: numbers, dates and times; `[low, high]`, both included, either null (open). A date
 *   as the high end of a time column takes in that whole day.
 * - `in`: text and boolean columns with few values; one of the listed values (null matches nulls).
 */

/** Values a value-list filter may name at most. */
export const MAX_COLUMN_FILTER_VALUES = 200;
/** Distinct values at most for a text column to offer a value list (`column_values` of a table's answer). */
export const COLUMN_VALUES_LIMIT = 30;

const boundSchema = z.union([z.number(), z.string().max(100), z.null()]);
const listedSchema = z.union([z.string().max(1000), z.boolean(), z.null()]);

export const tableColumnFilterSchema = z
  .discriminatedUnion(
    'op',
    [
      z.strictObject({ column: columnNameSchema, op: z.literal('contains'), value: z.string().min(1).max(1000) }),
      z.strictObject({
        column: columnNameSchema,
        op: z.literal('between'),
        value: z.tuple([boundSchema, boundSchema]),
      }),
      z.strictObject({
        column: columnNameSchema,
        op: z.literal('in'),
        value: z.array(listedSchema).min(1).max(MAX_COLUMN_FILTER_VALUES),
      }),
    ],
    { error: (issue) => (issue.code === 'invalid_union' ? 'op must be one of contains, between, in' : undefined) },
  )
  .meta({ id: 'TableColumnFilter' });
export type TableColumnFilter = z.infer<typeof tableColumnFilterSchema>;

/** At most one filter per column (a second one for a column is refused). */
export const tableColumnFiltersSchema = z
  .array(tableColumnFilterSchema)
  .max(50)
  .superRefine((filters, context) => {
    const seen = new Set<string>();
    filters.forEach((filter, index) => {
      if (seen.has(filter.column)) {
        context.addIssue({ code: 'custom', path: [index, 'column'], message: 'another filter is on this column' });
      }
      seen.add(filter.column);
    });
  });

/** `column_filters` in a query string (the rows and download routes, the address bar): the list as JSON. */
export const tableColumnFiltersParamSchema = jsonParamSchema(
  tableColumnFiltersSchema,
  'column_filters must be a JSON array of {column, op, value}',
);

/**
 * The columns a reader shows of a dashboard table, in their order (the "Columns" menu, `columns` of
 * the address bar's `?tables=`): names of the table's own columns, each once. The download and
 * export routes take it as `columns`, a JSON list, to leave the others out.
 */
export const shownColumnsSchema = z
  .array(columnNameSchema)
  .min(1)
  .max(1000)
  .superRefine((columns, context) => {
    const seen = new Set<string>();
    columns.forEach((column, index) => {
      if (seen.has(column)) context.addIssue({ code: 'custom', path: [index], message: 'this column is listed twice' });
      seen.add(column);
    });
  });

/** `columns` in a query string (the download and export routes): the list as JSON. */
export const shownColumnsParamSchema = jsonParamSchema(shownColumnsSchema, 'columns must be a JSON array of names');

/** What a column's filters treat it as, from its Delta type name (`long`, `decimal(10,2)`, `date`, …). */
export type ColumnFilterKind = 'text' | 'boolean' | 'number' | 'temporal' | 'other';

const NUMBER_TYPES = new Set(['long', 'integer', 'short', 'byte', 'float', 'double']);

export function columnFilterKind(type: string): ColumnFilterKind {
  if (NUMBER_TYPES.has(type) || type.startsWith('decimal')) return 'number';
  if (type === 'date' || type === 'timestamp' || type === 'timestamp_ntz') return 'temporal';
  if (type === 'boolean') return 'boolean';
  if (type === 'string') return 'text';
  return 'other';
}

/** The filters a column of a kind takes: `contains` and `in` on text, `in` on booleans, `between` on numbers and times. */
export const COLUMN_FILTER_OPS: Record<ColumnFilterKind, readonly TableColumnFilter['op'][]> = {
  text: ['contains', 'in'],
  boolean: ['in'],
  number: ['between'],
  temporal: ['between'],
  other: [],
};
