import { z } from 'zod';
import { listAnswerSchema } from './pagination.js';

/**
 * Queries over a data collection's table: schema, preview, summary, distinct values, aggregates,
 * downloads and versions. Column names are checked against the table's schema on the server;
 * filter values are bound as parameters, never pasted into SQL.
 */

/** A column of the table, as named in its schema (case-sensitive). */
export const columnNameSchema = z.string().min(1).max(255);

/** A table version for time travel (`version=3` reads the table as it was at version 3). */
export const tableVersionSchema = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** A value to compare a column with; it is converted to the column's type (invalid → 400). */
export const filterScalarSchema = z.union([z.string().max(10_000), z.number(), z.boolean()]);
export type FilterScalar = z.infer<typeof filterScalarSchema>;

export const filterOperatorSchema = z.enum([
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'in',
  'not_in',
  'between',
  'contains',
  'is_null',
  'not_null',
]);
export type FilterOperator = z.infer<typeof filterOperatorSchema>;

/**
 * One condition on a column; a row must meet every filter of a request. `ne` and `not_in` keep
 * rows whose value is null (they are "not equal"); the comparisons and `between` (inclusive) drop
 * them. `contains` is a case-insensitive substring test on the value as text.
 */
export const filterSchema = z
  .discriminatedUnion('op', [
    z.strictObject({
      column: columnNameSchema,
      op: z.enum(['eq', 'ne', 'lt', 'le', 'gt', 'ge']),
      value: filterScalarSchema,
    }),
    z.strictObject({
      column: columnNameSchema,
      op: z.enum(['in', 'not_in']),
      value: z.array(filterScalarSchema).min(1).max(1000),
    }),
    z.strictObject({
      column: columnNameSchema,
      op: z.literal('between'),
      value: z.tuple([filterScalarSchema, filterScalarSchema]),
    }),
    z.strictObject({ column: columnNameSchema, op: z.literal('contains'), value: z.string().min(1).max(1000) }),
    z.strictObject({ column: columnNameSchema, op: z.enum(['is_null', 'not_null']) }),
  ])
  .meta({ id: 'Filter' });
export type Filter = z.infer<typeof filterSchema>;

export const filtersSchema = z.array(filterSchema).max(50);

/**
 * A query-string parameter holding JSON (`maxLength` characters at most), parsed and then checked
 * with `schema`; text that is not JSON is refused with `message`.
 */
export function jsonParamSchema<T extends z.ZodType>(schema: T, message: string, maxLength = 100_000) {
  return z
    .string()
    .max(maxLength)
    .transform((text, context): unknown => {
      try {
        return JSON.parse(text);
      } catch {
        context.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
    })
    .pipe(schema);
}

/** `filters` in a query string: the same list as JSON text. */
export const filtersParamSchema = jsonParamSchema(filtersSchema, 'filters must be a JSON array of filters');

export const sortDirectionSchema = z.enum(['asc', 'desc']);
/** One sort key; nulls come last either way. */
export const sortKeySchema = z.strictObject({
  column: columnNameSchema,
  direction: sortDirectionSchema.default('asc'),
});
export type SortKey = z.infer<typeof sortKeySchema>;

/** `sort=col:asc,col2:desc` (the direction defaults to `asc`) as a list of sort keys. */
export const sortParamSchema = z
  .string()
  .min(1)
  .max(10_000)
  .transform((text, context): SortKey[] => {
    const keys: SortKey[] = [];
    for (const part of text.split(',')) {
      const colon = part.lastIndexOf(':');
      const suffix = colon < 0 ? '' : part.slice(colon + 1).toLowerCase();
      const direction = suffix === 'asc' || suffix === 'desc' ? suffix : 'asc';
      const column = suffix === 'asc' || suffix === 'desc' ? part.slice(0, colon) : part;
      if (column === '' || column.length > 255) {
        context.addIssue({ code: 'custom', message: `"${part}" is not column:asc or column:desc` });
        return z.NEVER;
      }
      keys.push({ column, direction });
    }
    if (keys.length > 20) {
      context.addIssue({ code: 'custom', message: 'sort by at most 20 columns' });
      return z.NEVER;
    }
    return keys;
  });

/** A column as the schema describes it; `type` is the Delta type name (`long`, `string`, `decimal(10,2)`, …). */
export const tableColumnSchema = z
  .object({
    name: z.string(),
    type: z.string(),
    nullable: z.boolean(),
    /** From the data collection's `columns` descriptions. */
    description: z.string().nullable(),
  })
  .meta({ id: 'TableColumn' });
export type TableColumn = z.infer<typeof tableColumnSchema>;

/** A column of a computed answer (aggregate). */
export const resultColumnSchema = z.object({ name: z.string(), type: z.string() }).meta({ id: 'ResultColumn' });

/**
 * A value as answers carry it: integers are numbers when they are safe integers (else decimal
 * strings), decimals are exact strings, timestamps ISO-8601 UTC strings, dates `YYYY-MM-DD`,
 * nested values arrays/objects.
 */
export const cellSchema = z.unknown();
export const queryRowSchema = z.record(z.string(), cellSchema);
export type QueryRow = z.infer<typeof queryRowSchema>;

/** `version` is null (and `columns` empty) while the collection has no data yet. */
export const tableSchemaAnswerSchema = z
  .object({ version: z.number().int().nullable(), columns: z.array(tableColumnSchema) })
  .meta({ id: 'TableSchema' });
export type TableSchemaAnswer = z.infer<typeof tableSchemaAnswerSchema>;

export const schemaQuerySchema = z.strictObject({ version: tableVersionSchema.optional() });

export const previewQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  skip: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  sort: sortParamSchema.optional(),
  filters: filtersParamSchema.optional(),
  version: tableVersionSchema.optional(),
});
export type PreviewQuery = z.infer<typeof previewQuerySchema>;

export const previewAnswerSchema = z
  .object({
    version: z.number().int().nullable(),
    columns: z.array(tableColumnSchema),
    rows: z.array(queryRowSchema),
    /** Rows matching the filters (all rows without filters). */
    total: z.number().int(),
    limit: z.number().int(),
    skip: z.number().int(),
    /** A dashboard table's scaled columns: their whole table's lowest and highest value (table-scales.ts). */
    color_ranges: z.record(z.string(), z.tuple([z.number(), z.number()])).optional(),
    /**
     * A dashboard table's shown text and boolean columns with few values (at most 30 over the whole
     * table): those values, the header's value-list filter's choices (table-filters.ts).
     */
    column_values: z.record(z.string(), z.array(z.union([z.string(), z.boolean(), z.null()]))).optional(),
    /** A dashboard table's column that names a row for selection (its `select_by`, or the collection's key). */
    select_by: z.string().optional(),
  })
  .meta({ id: 'TablePreview' });
export type PreviewAnswer = z.infer<typeof previewAnswerSchema>;

export const summaryQuerySchema = z.strictObject({ version: tableVersionSchema.optional() });

/**
 * Statistics of one column; `min`/`max` are null for nested columns, `mean`/`std` for non-numeric
 * ones. NaN and ±Infinity count in `count` and `distinct` but not in `min`, `max`, `mean` and `std`
 * (docs/data.md); `non_finite` says how many there were.
 */
export const columnSummarySchema = z
  .object({
    name: z.string(),
    type: z.string(),
    /** Non-null values. */
    count: z.number().int(),
    nulls: z.number().int(),
    /** Distinct non-null values (exact); null for map columns. */
    distinct: z.number().int().nullable(),
    min: cellSchema,
    max: cellSchema,
    mean: z.number().nullable(),
    /** Sample standard deviation. */
    std: z.number().nullable(),
    /** Values that are NaN, Infinity or -Infinity (0 for columns that cannot hold them). */
    non_finite: z.number().int(),
  })
  .meta({ id: 'ColumnSummary' });
export type ColumnSummary = z.infer<typeof columnSummarySchema>;

export const summaryAnswerSchema = z
  .object({ version: z.number().int().nullable(), rows: z.number().int(), columns: z.array(columnSummarySchema) })
  .meta({ id: 'TableSummary' });
export type SummaryAnswer = z.infer<typeof summaryAnswerSchema>;

export const columnParamsSchema = z.strictObject({ id: z.string().min(1).max(64), column: columnNameSchema });

export const valuesQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  /** Case-insensitive substring of the value as text; nulls never match. */
  search: z.string().min(1).max(1000).optional(),
  filters: filtersParamSchema.optional(),
  version: tableVersionSchema.optional(),
});
export type ValuesQuery = z.infer<typeof valuesQuerySchema>;

/** Distinct values, most frequent first (ties by value); null is a value too. */
export const valuesAnswerSchema = z
  .object({
    version: z.number().int().nullable(),
    column: z.string(),
    values: z.array(z.object({ value: cellSchema, count: z.number().int() })),
    /** More distinct values exist than were returned. */
    truncated: z.boolean(),
    /** The rows under the filters, the search aside: the whole that each value's count is a share of. */
    total_rows: z.number().int(),
  })
  .meta({ id: 'ColumnValues' });
export type ValuesAnswer = z.infer<typeof valuesAnswerSchema>;

export const aggregateFunctionSchema = z.enum(['count', 'sum', 'mean', 'min', 'max', 'median', 'quantile', 'nunique']);
export type AggregateFunction = z.infer<typeof aggregateFunctionSchema>;

/**
 * One aggregate: `count` without a column counts rows, with one its non-null values; `nunique`
 * counts distinct non-null values; `quantile` needs `q` (0–1). `as` names the output column
 * (default `<fn>_<column>`, `count` for a row count, `quantile_<q>_<column>`).
 */
export const aggregateSchema = z
  .strictObject({
    column: columnNameSchema.optional(),
    fn: aggregateFunctionSchema,
    q: z.number().min(0).max(1).optional(),
    as: z.string().min(1).max(255).optional(),
  })
  .superRefine((aggregate, context) => {
    if (aggregate.column === undefined && aggregate.fn !== 'count') {
      context.addIssue({ code: 'custom', path: ['column'], message: `${aggregate.fn} needs a column` });
    }
    if (aggregate.fn === 'quantile' && aggregate.q === undefined) {
      context.addIssue({ code: 'custom', path: ['q'], message: 'quantile needs q (0–1)' });
    }
    if (aggregate.fn !== 'quantile' && aggregate.q !== undefined) {
      context.addIssue({ code: 'custom', path: ['q'], message: 'q is only for quantile' });
    }
  })
  .meta({ id: 'Aggregate' });
export type Aggregate = z.infer<typeof aggregateSchema>;

/**
 * `POST /datacollections/{id}/aggregate`: group, aggregate, filter. The answer has the group
 * columns then the aggregates; `sort` names output columns (default: the group columns).
 */
export const aggregateRequestSchema = z
  .strictObject({
    group_by: z.array(columnNameSchema).max(20).default([]),
    aggregates: z.array(aggregateSchema).max(50).default([]),
    filters: filtersSchema.default([]),
    sort: z.array(sortKeySchema).max(20).default([]),
    limit: z.number().int().min(1).max(10_000).default(1000),
    version: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  })
  .refine((body) => body.group_by.length > 0 || body.aggregates.length > 0, {
    message: 'give group_by, aggregates or both',
    path: ['aggregates'],
  })
  .meta({ id: 'AggregateRequest' });
export type AggregateRequest = z.infer<typeof aggregateRequestSchema>;
export type AggregateRequestInput = z.input<typeof aggregateRequestSchema>;

export const aggregateAnswerSchema = z
  .object({
    version: z.number().int().nullable(),
    columns: z.array(resultColumnSchema),
    rows: z.array(queryRowSchema),
    /** More groups exist than `limit`. */
    truncated: z.boolean(),
  })
  .meta({ id: 'AggregateAnswer' });
export type AggregateAnswer = z.infer<typeof aggregateAnswerSchema>;

export const downloadFormatSchema = z.enum(['csv', 'parquet']);
export type DownloadFormat = z.infer<typeof downloadFormatSchema>;

export const downloadQuerySchema = z.strictObject({
  format: downloadFormatSchema.default('csv'),
  filters: filtersParamSchema.optional(),
  version: tableVersionSchema.optional(),
});

/** One commit of the table; `rows` are the rows it wrote (null when its log doesn't say). */
export const tableVersionEntrySchema = z
  .object({
    version: z.number().int(),
    timestamp: z.string(),
    operation: z.string().nullable(),
    rows: z.number().int().nullable(),
    files_added: z.number().int(),
    files_removed: z.number().int(),
  })
  .meta({ id: 'TableVersion' });
export type TableVersionEntry = z.infer<typeof tableVersionEntrySchema>;
export const tableVersionListSchema = listAnswerSchema(tableVersionEntrySchema).meta({ id: 'TableVersionList' });
