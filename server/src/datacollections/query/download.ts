import { randomUUID } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DownloadFormat, Filter } from '@service/common';
import { quoteString } from '../../engine/sql.js';
import { DomainError } from '../../errors.js';
import type { Source } from './columns.js';
import { where as whereClause } from './filters.js';
import type { TableReader } from './reader.js';
import { Statement } from './statement.js';

/** A download ready to stream; the file is deleted once the stream closes. */
export interface Download {
  stream: ReadStream;
  size: number;
  filename: string;
  contentType: string;
}

const CONTENT_TYPES: Record<DownloadFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};

/**
 * Writes the (filtered) rows to a temporary CSV or Parquet file in `directory` with DuckDB's COPY
 * and hands it over as a stream; the file is removed when the stream closes, however it ends.
 */
export async function download(
  reader: TableReader,
  source: Source,
  query: { format: DownloadFormat; filters?: readonly Filter[] | undefined },
  directory: string,
): Promise<Download> {
  if (source.snapshot === null) throw new DomainError('not_found', 'the data collection has no data yet');
  const statement = new Statement();
  const where = whereClause(source, query.filters ?? [], statement, 'querystring.filters');
  await mkdir(directory, { recursive: true });
  const path = join(directory, `${randomUUID()}.${query.format}`);
  try {
    await reader.withRows(source, async (connection, from) => {
      await statement.validate(connection);
      const options = query.format === 'csv' ? 'FORMAT csv, HEADER true' : 'FORMAT parquet';
      await connection.run(
        `COPY (SELECT * FROM ${from}${where}) TO ${quoteString(path)} (${options})`,
        statement.params,
      );
    });
    const { size } = await stat(path);
    const stream = createReadStream(path);
    stream.once('close', () => {
      void rm(path, { force: true });
    });
    const base = source.row.tag.replace(/[^A-Za-z0-9._-]/g, '_') || 'data';
    return { stream, size, filename: `${base}.${query.format}`, contentType: CONTENT_TYPES[query.format] };
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
}
