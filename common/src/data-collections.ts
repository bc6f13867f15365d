import { z } from 'zod';
import { listAnswerSchema } from './pagination.js';

/**
 * A data collection as the API answers it, and the names its definition is made of. Apart from
 * the requests (workflows.ts) so that a page that only reads collections does not load what
 * checking a definition needs (the RE2 parser of derived columns: docs/performance.md, `web`).
 */

export const formatSchema = z.enum(['csv', 'tsv', 'parquet', 'json', 'ndjson']);
export type DataFormat = z.infer<typeof formatSchema>;

/** The format a file's extension means (the server's preview and the web app's Add data read the same names; docs/data.md). */
export const FORMAT_OF_EXTENSION: Readonly<Record<string, DataFormat>> = {
  csv: 'csv',
  tsv: 'tsv',
  tab: 'tsv',
  txt: 'tsv',
  parquet: 'parquet',
  json: 'json',
  ndjson: 'ndjson',
  jsonl: 'ndjson',
};

/**
 * `table`: rows read from files of one structure. `multiqc`: each run's MultiQC report
 * (`multiqc.parquet`, format `parquet`); its table holds the report's general statistics, and its
 * plots are read from the reports themselves (docs/data.md, "MultiQC reports"). `image`: each file one
 * image (PNG, JPEG, WebP, TIFF, SVG…), its table one row per image (images.ts; `format` is not read).
 */
export const collectionTypeSchema = z.enum(['table', 'multiqc', 'image']);
export type CollectionType = z.infer<typeof collectionTypeSchema>;

export const dataCollectionSchema = z
  .object({
    data_collection_id: z.string(),
    workflow_id: z.string(),
    project_id: z.string(),
    tag: z.string(),
    type: collectionTypeSchema,
    pattern: z.string(),
    format: formatSchema,
    read_options: z.record(z.string(), z.unknown()),
    keys: z.array(z.string()).nullable(),
    columns: z.record(z.string(), z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'DataCollection' });
export type DataCollection = z.infer<typeof dataCollectionSchema>;
export const dataCollectionListSchema = listAnswerSchema(dataCollectionSchema).meta({ id: 'DataCollectionList' });
