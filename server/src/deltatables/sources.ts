import type { DataCollectionsTable, FilesTable } from '../db/tables.js';
import type { SqlColumn, SqlConnection } from '../engine/duckdb.js';
import type { ObjectFiles } from '../engine/object-files.js';
import { quoteIdentifier, quoteString } from '../engine/sql.js';
import { DomainError } from '../errors.js';
import { imageRelation } from '../images/relation.js';
import type { ImageStore } from '../images/store.js';
import { realPathInsideRoots } from '../locations/allowed-roots.js';
import { compilePattern } from '../locations/patterns.js';
import { generalStatsRelation } from '../multiqc/report-file.js';
import { misfitMessage, misfitValue, type RaggedLine, raggedLine, raggedMessage } from './csv-diagnosis.js';
import { withDerivedColumns } from './derived-columns.js';
import { type ReadOptions, readFunction } from './read-source.js';

export const RUN_ID = '_run_id';
export const FILE_ID = '_file_id';

/** A registered file with the run it came from. */
export type SourceFile = FilesTable & { run_id: string };

/** A source file as a temporary DuckDB view, with its columns (the run and pattern columns included). */
export interface FileView {
  file: SourceFile;
  table: string;
  columns: SqlColumn[];
}

export interface SourceReading {
  connection: SqlConnection;
  collection: DataCollectionsTable;
  /** Where ingested files may still be read in place (their `source_path`). */
  allowedRoots: readonly string[];
  /** Local copies of stored files; each lease taken is added to `leases` for the caller to release. */
  files: Pick<ObjectFiles, 'acquire'>;
  leases: { release(): void }[];
  /** Read every value to decide the column types, not a sample. */
  fullSample: boolean;
  /** Filled in: local paths DuckDB reads → the files' own paths, to name them in errors without revealing where they sit. */
  names: Map<string, string>;
  signal?: AbortSignal | undefined;
  /** Where an image collection's thumbnails go (docs/dashboards.md "Images"). */
  images?: Pick<ImageStore, 'putThumbnail'> | undefined;
}

/**
 * Makes each file a temporary DuckDB view (read lazily, so nothing is held in memory) with its
 * derived, run, file and pattern columns. Empty files hold no rows (and no columns): they get no view.
 */
export async function readSources(reading: SourceReading, files: SourceFile[]): Promise<FileView[]> {
  const { connection, collection, names, signal } = reading;
  const pattern = compilePattern(collection.pattern);
  const groups = pattern.columns;
  const options = JSON.parse(collection.read_options) as ReadOptions;
  const sources: FileView[] = [];
  for (const [index, file] of files.entries()) {
    signal?.throwIfAborted();
    if (file.size === 0) continue;
    const localPath = await localPathOf(reading, file);
    names.set(localPath, file.path);
    const values = pattern.match(file.path) ?? {};
    const extra = [
      `${quoteString(file.run_id)} AS ${quoteIdentifier(RUN_ID)}`,
      ...groups.map(
        (name) =>
          `${values[name] === undefined ? 'NULL' : quoteString(values[name])}::VARCHAR AS ${quoteIdentifier(name)}`,
      ),
    ];
    const name = `__source_${index}`;
    try {
      // A MultiQC collection's rows are its reports' general statistics (the plots stay in the reports).
      const read = await relationOf(reading, localPath, file, options);
      const columns = await connection.describe(`SELECT * FROM ${read}`);
      const clash = columns.find(
        (column) => column.name === RUN_ID || column.name === FILE_ID || groups.includes(column.name),
      );
      if (clash) {
        throw new DomainError(
          'validation_failed',
          `${file.path}: the file has a column ${clash.name}, which the pattern or the table already provides`,
        );
      }
      const derived = withDerivedColumns(read, options.derive, {
        name: file.path,
        columns: columns.map((column) => column.name),
        taken: [RUN_ID, FILE_ID, ...groups],
      });
      await connection.run(`CREATE TEMP VIEW ${name} AS SELECT *, ${extra.join(', ')} FROM ${derived}`);
      sources.push({ file, table: name, columns: await connection.describe(`SELECT * FROM ${name}`) });
    } catch (error) {
      if (error instanceof DomainError) throw error;
      const ragged = await raggedLine(connection, collection.format, localPath, options);
      if (ragged !== null) throw raggedRefusal(file.path, ragged);
      const reason =
        (error instanceof Error ? error.message : String(error))
          .replaceAll(localPath, file.path)
          .split('\n')[0]
          ?.slice(0, 300) ?? 'unreadable';
      throw new DomainError('validation_failed', `${file.path} cannot be read as ${collection.format}: ${reason}`, [
        { path: file.path, message: reason },
      ]);
    }
  }
  return sources;
}

/** What DuckDB reads of one file: its rows, a MultiQC report's general statistics, or an image's one row. */
async function relationOf(reading: SourceReading, localPath: string, file: SourceFile, options: ReadOptions) {
  const { collection } = reading;
  if (collection.type === 'multiqc') return generalStatsRelation(reading.connection, localPath, file.path);
  if (collection.type === 'image') {
    if (reading.images === undefined) throw new Error('an image collection is read with an image store');
    return imageRelation(reading.images, collection.id, localPath, file);
  }
  return readFunction(collection.format, localPath, options, reading.fullSample);
}

/** Where DuckDB reads a registered file: its folder inside the allowed roots, or a leased local copy of its stored bytes. */
export async function localPathOf(
  reading: Pick<SourceReading, 'allowedRoots' | 'files' | 'leases'>,
  file: FilesTable,
): Promise<string> {
  if (file.source_path !== null) {
    const real = await realPathInsideRoots(file.source_path, reading.allowedRoots);
    if (real === null)
      throw new DomainError('validation_failed', `${file.path} is no longer readable inside the allowed roots`);
    return real;
  }
  if (file.storage_key === null) throw new DomainError('not_found', `${file.path} has no content`);
  const lease = await reading.files.acquire([{ key: file.storage_key, size: file.size }]);
  reading.leases.push(lease);
  return lease.paths[0] as string;
}

/** The run id of a data file written before it was a partition value: one run per file, so any row tells. */
export async function runIdInFile(connection: SqlConnection, relation: string): Promise<string | null> {
  const [row] = (await connection.query(`SELECT ${quoteIdentifier(RUN_ID)} AS run FROM ${relation} LIMIT 1`)) as {
    run: string | null;
  }[];
  return row?.run ?? null;
}

/** The sampled column types did not hold for the whole file; `refusal` is the answer if a full read fails too. */
export class SampleTooSmall extends Error {
  constructor(readonly refusal: DomainError) {
    super(refusal.message);
    this.name = 'SampleTooSmall';
  }
}

/**
 * DuckDB reads the files lazily, so a bad line deep in a file surfaces while writing: such an
 * error becomes the client's refusal (or `SampleTooSmall` when a full read may still succeed),
 * naming the file by its own path. Any other error is not a reading error: null.
 */
export async function readingRefusal(
  error: unknown,
  connection: SqlConnection,
  collection: Pick<DataCollectionsTable, 'format' | 'read_options'>,
  names: ReadonlyMap<string, string>,
): Promise<Error | null> {
  if (
    !(error instanceof Error) ||
    !/Conversion Error|Could not convert|CSV Error|Invalid Input Error/i.test(error.message)
  )
    return null;
  // A ragged line is named by its number and field counts, once, rather than in DuckDB's words.
  for (const [local, name] of names) {
    if (!error.message.includes(local) && !error.message.startsWith(`${name}: `)) continue;
    const options = JSON.parse(collection.read_options) as ReadOptions;
    const ragged = await raggedLine(connection, collection.format, local, options);
    if (ragged !== null) return raggedRefusal(name, ragged);
  }
  let text = error.message;
  for (const [local, name] of names) text = text.replaceAll(local, name);
  const misfit = misfitValue(text);
  if (misfit !== null) {
    const name = [...names.values()].find((candidate) => text.includes(candidate)) ?? 'a file';
    const { detail, reason } = misfitMessage(name, misfit);
    // With detected types, a full read may still find a type that fits every value.
    return new SampleTooSmall(new DomainError('validation_failed', detail, [{ path: name, message: reason }]));
  }
  const reason = (text.split('\n').find((line) => /convert|error/i.test(line)) ?? text.split('\n')[0] ?? '')
    // Absolute paths only: a file's own relative path (`multiqc/multiqc_data/multiqc.parquet`) names it.
    .replace(/(?<![\w.-])(?:\/[^\s/:;,'"()]+){2,}/g, '<path>')
    .slice(0, 300);
  const refusal = new DomainError('validation_failed', `a file cannot be read as ${collection.format}: ${reason}`, [
    { path: 'files', message: reason },
  ]);
  return /Conversion Error|Could not convert/i.test(error.message) ? new SampleTooSmall(refusal) : refusal;
}

function raggedRefusal(path: string, ragged: RaggedLine): DomainError {
  const { detail, reason } = raggedMessage(path, ragged);
  return new DomainError('validation_failed', detail, [{ path, message: reason }]);
}
