import { z } from 'zod';
import { formatSchema } from './data-collections.js';
import { columnTypeSchema, readOptionsSchema } from './workflows.js';

/** At most this many rows in a preview: enough to judge the columns, never the whole file. */
export const FILE_PREVIEW_MAX_ROWS = 200;

/** How to read a registered file for its preview; anything left out is detected from the file. */
export const filePreviewRequestSchema = z.strictObject({
  /** Unset: taken from the file's name (`.csv`, `.tsv`/`.tab`/`.txt`, `.parquet`, `.json`, `.ndjson`/`.jsonl`). */
  format: formatSchema.optional(),
  read_options: readOptionsSchema
    .pick({ delimiter: true, header: true, null_values: true, columns: true, derive: true })
    .optional(),
  limit: z.number().int().min(1).max(FILE_PREVIEW_MAX_ROWS).default(20),
});
export type FilePreviewRequest = z.input<typeof filePreviewRequestSchema>;

export const filePreviewSchema = z
  .object({
    /** Null for a file sent only to be previewed (`POST /projects/{id}/files/preview`). */
    file_id: z.string().nullable(),
    format: formatSchema,
    /** What the preview read the file with: the caller's options, the rest as detected (CSV/TSV only). */
    read_options: z.object({
      delimiter: z.string().optional(),
      header: z.boolean().optional(),
      null_values: z.array(z.string()).optional(),
    }),
    columns: z.array(
      z.object({
        name: z.string(),
        /** The column type a person picks from; null for types outside that list (lists, structs, …). */
        type: columnTypeSchema.nullable(),
        /** The type as the engine reads it. */
        engine_type: z.string(),
      }),
    ),
    rows: z.array(z.record(z.string(), z.unknown())),
    limit: z.number().int(),
  })
  .meta({ id: 'FilePreview' });
export type FilePreview = z.infer<typeof filePreviewSchema>;
