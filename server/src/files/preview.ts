import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  type ColumnType,
  type DataFormat,
  type FilePreview,
  type FilePreviewRequest,
  FORMAT_OF_EXTENSION,
  filePreviewRequestSchema,
} from '@service/common';
import { misfitMessage, misfitValue, raggedLine, raggedMessage } from '../deltatables/csv-diagnosis.js';
import { withDerivedColumns } from '../deltatables/derived-columns.js';
import { type ReadOptions, readFunction } from '../deltatables/read-source.js';
import { sqlTypeText } from '../deltatables/schema-merge.js';
import { localPathOf } from '../deltatables/sources.js';
import type { DuckDB, SqlConnection, SqlType } from '../engine/duckdb.js';
import type { ObjectFiles } from '../engine/object-files.js';
import { quoteString } from '../engine/sql.js';
import { DomainError } from '../errors.js';
import { assertRelativePath } from '../locations/relative-path.js';
import type { Actor } from '../policy/actor.js';
import type { ProjectsService } from '../projects/service.js';
import { HashingStream } from './hashing-stream.js';
import type { FilesService } from './service.js';

const INTEGERS = [
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'HUGEINT',
  'UTINYINT',
  'USMALLINT',
  'UINTEGER',
  'UBIGINT',
];
const TYPE_OF_SCALAR: Record<string, ColumnType> = {
  VARCHAR: 'string',
  FLOAT: 'double',
  DOUBLE: 'double',
  BOOLEAN: 'boolean',
  DATE: 'date',
  TIMESTAMP: 'timestamp',
  TIMESTAMP_TZ: 'timestamp',
  TIMESTAMP_S: 'timestamp',
  TIMESTAMP_MS: 'timestamp',
  TIMESTAMP_NS: 'timestamp',
  ...Object.fromEntries(INTEGERS.map((name) => [name, 'integer' as const])),
};

/** The column type a person picks from for an engine type, or null when none fits. */
export function columnTypeOf(type: SqlType): ColumnType | null {
  if (type.kind === 'decimal') return 'double';
  return type.kind === 'scalar' ? (TYPE_OF_SCALAR[type.name] ?? null) : null;
}

/** A file sent for a preview only (Add data, before anything is created): its name and its bytes. */
export interface PreviewUpload {
  name: string;
  content: Readable;
}

export interface FilePreviewsDeps {
  files: Pick<FilesService, 'access'>;
  projects: Pick<ProjectsService, 'access'>;
  duckdb: Pick<DuckDB, 'withConnection'>;
  objectFiles: Pick<ObjectFiles, 'acquire'>;
  allowedRoots: readonly string[];
  /** Where a sent file is kept while it is read (`<dataDir>/tmp`); removed right after. */
  tempDirectory: string;
  /** The largest file that may be sent (the upload limit). */
  maxBytes: number;
}

/**
 * The first rows of a file as its collection would read them, with the detected dialect and
 * column types: what Add data shows before a table is built. DuckDB reads only the type sample
 * and the rows asked for; nothing of the file is held in Node beyond those rows.
 */
export class FilePreviews {
  constructor(private readonly deps: FilePreviewsDeps) {}

  /** A registered file (`POST /files/{id}/preview`): whoever may read its project. */
  async preview(actor: Actor, fileId: string, body: FilePreviewRequest): Promise<FilePreview> {
    const request = filePreviewRequestSchema.parse(body);
    const file = await this.deps.files.access(actor, fileId);
    const format = request.format ?? formatOfName(file.path);
    if (file.size === 0) return emptyPreview(file.id, format, request.limit);
    const leases: { release(): void }[] = [];
    try {
      const localPath = await localPathOf(
        { allowedRoots: this.deps.allowedRoots, files: this.deps.objectFiles, leases },
        file,
      );
      return await this.read({ fileId: file.id, name: file.path, localPath, format }, request);
    } finally {
      for (const lease of leases) lease.release();
    }
  }

  /**
   * A file sent with the request and registered nowhere (`POST /projects/{id}/files/preview`):
   * the project's editors, who are the ones who may add data to it. The bytes are kept in a
   * temporary folder while DuckDB reads them, and removed before the answer goes out.
   */
  async previewUpload(
    actor: Actor,
    projectId: string,
    upload: PreviewUpload,
    body: FilePreviewRequest,
  ): Promise<FilePreview> {
    const request = filePreviewRequestSchema.parse(body);
    try {
      await this.deps.projects.access(actor, projectId, 'resource.edit');
      assertRelativePath(upload.name, 'file');
    } catch (error) {
      upload.content.resume();
      throw error;
    }
    const format = request.format ?? formatOfName(upload.name);
    await mkdir(this.deps.tempDirectory, { recursive: true });
    const directory = await mkdtemp(join(this.deps.tempDirectory, 'preview-'));
    try {
      // The name's extension only: DuckDB tells a compressed file (`.csv.gz`) by it.
      const localPath = join(directory, `sent${/(\.[A-Za-z0-9]+)*$/.exec(basename(upload.name))?.[0] ?? ''}`);
      const counting = new HashingStream(this.deps.maxBytes);
      await pipeline(upload.content, counting, createWriteStream(localPath));
      if (counting.size === 0) return emptyPreview(null, format, request.limit);
      return await this.read({ fileId: null, name: upload.name, localPath, format }, request);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }

  private read(
    file: { fileId: string | null; name: string; localPath: string; format: DataFormat },
    request: FilePreviewRequest & { limit: number },
  ): Promise<FilePreview> {
    const { localPath, format } = file;
    return this.deps.duckdb.withConnection(async (connection) => {
      const options = await dialectOf(connection, format, localPath, request.read_options ?? {});
      try {
        const fileRead = readFunction(format, localPath, options);
        const fileColumns = await connection.describe(`SELECT * FROM ${fileRead}`);
        const read = withDerivedColumns(fileRead, options.derive, {
          name: file.name,
          columns: fileColumns.map((column) => column.name),
        });
        const columns = await connection.describe(`SELECT * FROM ${read}`);
        const rows = await connection.query(`SELECT * FROM ${read} LIMIT ${request.limit}`);
        return {
          file_id: file.fileId,
          format,
          limit: request.limit,
          read_options: { delimiter: options.delimiter, header: options.header, null_values: options.null_values },
          columns: columns.map((column) => ({
            name: column.name,
            type: columnTypeOf(column.type),
            engine_type: sqlTypeText(column.type),
          })),
          rows,
        };
      } catch (error) {
        if (error instanceof DomainError) throw error;
        throw await unreadable(connection, error, file.name, format, localPath, options);
      }
    });
  }
}

function emptyPreview(fileId: string | null, format: DataFormat, limit: number): FilePreview {
  return { file_id: fileId, format, limit, read_options: {}, columns: [], rows: [] };
}

function formatOfName(path: string): DataFormat {
  const extension = /\.([A-Za-z0-9]+)(?:\.gz)?$/.exec(path)?.[1]?.toLowerCase() ?? '';
  const format = FORMAT_OF_EXTENSION[extension];
  if (format === undefined) {
    throw new DomainError(
      'validation_failed',
      `the format of ${path} cannot be told from its name: choose one of csv, tsv, parquet, json, ndjson`,
      [{ path: 'format', message: 'choose the file’s format' }],
    );
  }
  return format;
}

/**
 * The caller's dialect, completed by DuckDB's sniffer for a CSV/TSV file: the delimiter (kept
 * only when it splits the lines into more than one field; a ragged file can fool the sniffer) and
 * whether the first line is a header.
 */
async function dialectOf(
  connection: SqlConnection,
  format: DataFormat,
  localPath: string,
  given: ReadOptions,
): Promise<ReadOptions> {
  if (format !== 'csv' && format !== 'tsv') return given;
  if (given.delimiter !== undefined && given.header !== undefined) return given;
  const fallback = format === 'tsv' ? '\t' : ',';
  try {
    const [sniffed] = (await connection.query(
      `SELECT "Delimiter" AS delimiter, "HasHeader" AS header, len("Columns") AS columns FROM sniff_csv(${quoteString(localPath)}${given.delimiter === undefined ? '' : `, delim = ${quoteString(given.delimiter)}`})`,
    )) as { delimiter: string; header: boolean; columns: number }[];
    const delimiter = sniffed !== undefined && sniffed.columns > 1 ? sniffed.delimiter : fallback;
    return { delimiter, header: sniffed?.header ?? true, ...given };
  } catch {
    return { delimiter: fallback, header: true, ...given };
  }
}

async function unreadable(
  connection: SqlConnection,
  error: unknown,
  path: string,
  format: DataFormat,
  localPath: string,
  options: ReadOptions,
): Promise<DomainError> {
  const ragged = await raggedLine(connection, format, localPath, options);
  if (ragged !== null) {
    const { detail, reason } = raggedMessage(path, ragged);
    return new DomainError('validation_failed', detail, [{ path, message: reason }]);
  }
  const misfit = misfitValue(error instanceof Error ? error.message : String(error));
  if (misfit !== null) {
    const { detail, reason } = misfitMessage(path, misfit);
    return new DomainError('validation_failed', detail, [{ path, message: reason }]);
  }
  const reason = (error instanceof Error ? error.message : String(error))
    .replaceAll(localPath, path)
    .split('\n')[0]
    ?.slice(0, 300);
  return new DomainError(
    'validation_failed',
    `${path} cannot be read as ${format}: ${reason ?? 'unreadable'}. Check the format, delimiter and header, or upload the file again.`,
    [{ path, message: reason ?? 'unreadable' }],
  );
}
