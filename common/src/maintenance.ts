import { z } from 'zod';

/** `POST /internal/vacuum` body (optional). */
export const vacuumRequestSchema = z.strictObject({
  /** Report what would be removed without removing anything. */
  dry_run: z.boolean().optional(),
});
export type VacuumRequest = z.infer<typeof vacuumRequestSchema>;

/** At most this many removed keys are listed in a vacuum answer; the counts cover all of them. */
export const VACUUM_LISTED_KEYS = 1000;

/** What `POST /internal/vacuum` removed (or, in a dry run, would remove). */
export const vacuumAnswerSchema = z.object({
  dry_run: z.boolean(),
  retention_hours: z.number(),
  /** Delta tables of existing data collections that were vacuumed. */
  tables_vacuumed: z.number().int(),
  /** Data files of those tables no version within the retention needs (old versions, failed writes). */
  removed_data_files: z.number().int(),
  /** Tables (every object) of data collections that no longer exist. */
  removed_tables: z.number().int(),
  /** Uploaded files no file record names any more. */
  removed_uploads: z.number().int(),
  /** Thumbnails of image collections that no longer exist. */
  removed_thumbnails: z.number().int(),
  /**
   * What processes killed mid-run left, older than the retention: work files under the data
   * directory (DuckDB spill files, upsert and checkpoint work, downloads being sent), the local
   * store's temporary files and S3's incomplete multipart uploads. Not counted in `removed_objects`.
   */
  removed_temporary: z.number().int(),
  /** Their bytes, where known (an incomplete multipart upload's parts are not listed). */
  removed_temporary_bytes: z.number().int(),
  removed_objects: z.number().int(),
  removed_bytes: z.number().int(),
  /** Storage keys removed, the first `VACUUM_LISTED_KEYS` of them. */
  removed_keys: z.array(z.string()),
  removed_keys_truncated: z.boolean(),
  /** Tables or objects that could not be vacuumed this time (the rest went on). */
  failures: z.array(z.object({ target: z.string(), message: z.string() })),
});
export type VacuumAnswer = z.infer<typeof vacuumAnswerSchema>;
