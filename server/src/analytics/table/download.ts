import { randomUUID } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CSV_FORMULA_START,
  CSV_PLAIN_NUMBER,
  type DownloadFormat,
  type Filter,
  neutraliseCsvCell,
  type SortKey,
} from '@service/common';
import { quoteIdentifier, quoteString } from '../../engine/sql.js';
import { DomainError } from '../../errors.js';
import { where as whereClause } from '../filters/filters.js';
import type { Narrowing } from '../filters/narrowing.js';
import { type Column, columnOf, type TableSnapshot } from '../sql/columns.js';
import { csvNumberSql } from '../sql/finite.js';
import { whereOf, withNarrowedRows } from '../sql/narrowed.js';
import type { TableReader } from '../sql/reader.js';
import { Statement } from '../sql/statement.js';

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
  source: TableSnapshot,
  query: { format: DownloadFormat; filters?: readonly Filter[] | undefined },
  directory: string,
): Promise<Download> {
  if (source.snapshot === null) throw new DomainError('not_found', 'the data collection has no data yet');
  const statement = new Statement();
  const where = whereClause(source, query.filters ?? [], statement, 'querystring.filters');
  return copyToFile(source, query.format, directory, (path, options) =>
    reader.withRows(source, async (connection, from, fileOrder) => {
      await statement.validate(connection);
      // The table's columns by name, as every other query here names what it reads.
      const columns =
        query.format === 'csv' ? csvColumns(source.columns) : source.columns.map((column) => column.sql).join(', ');
      const orderBy = fileOrder === '' ? '' : ` ORDER BY ${fileOrder}`;
      await connection.run(
        `COPY (SELECT ${columns} FROM ${from}${where}${orderBy}) TO ${path} (${options})`,
        statement.params,
      );
    }),
  );
}

/**
 * A dashboard table component's rows as CSV: every row its filters leave (`narrowing`), in `sort`'s
 * order with the source's other columns breaking ties; `output` of the source's columns (the
 * reader's, in their order), all of them (the component's) unless told.
 */
export async function narrowedCsv(
  reader: TableReader,
  source: TableSnapshot,
  sort: readonly SortKey[],
  narrowing: Narrowing,
  directory: string,
  output: readonly Column[] = source.columns,
): Promise<Download> {
  if (source.snapshot === null) throw new DomainError('not_found', 'the data collection has no data yet');
  if (source.columns.length === 0) throw new DomainError('not_found', 'the component shows no columns');
  const keys = sort.map((key) => ({
    column: columnOf(source, key.column, 'querystring.sort'),
    direction: key.direction,
  }));
  const sorted = new Set(keys.map((key) => key.column.name));
  // As the table shows them: in the table's own order when no sort is given.
  const order =
    keys.length === 0
      ? []
      : [
          ...keys.map((key) => `${key.column.sql} ${key.direction.toUpperCase()} NULLS LAST`),
          ...source.columns
            .filter((column) => !sorted.has(column.name) && column.kind !== 'nested')
            .map((column) => `${column.sql} ASC NULLS LAST`),
        ];
  const selected = csvColumns(output);
  const statement = new Statement();
  return copyToFile(source, 'csv', directory, (path, options) =>
    withNarrowedRows(reader, source, narrowing, statement, async ({ connection, from, conditions, fileOrder }) => {
      const orderBy =
        order.length > 0 ? ` ORDER BY ${order.join(', ')}` : fileOrder === '' ? '' : ` ORDER BY ${fileOrder}`;
      await connection.run(
        `COPY (SELECT ${selected} FROM ${from}${whereOf(conditions)}${orderBy}) TO ${path} (${options})`,
        statement.params,
      );
    }),
  );
}

/**
 * The columns as CSV cells: text that a spreadsheet would run as a formula gets a leading `'`, by
 * common's rule (`neutraliseCsvCell`) done inside DuckDB; the header names go through it too.
 */
function csvColumns(columns: readonly Column[]): string {
  return columns.map((column) => `${csvCell(column)} AS ${quoteIdentifier(neutraliseCsvCell(column.name))}`).join(', ');
}

function csvCell(column: Column): string {
  if (column.kind === 'float') return csvNumberSql(column);
  if (column.kind !== 'string') return column.sql;
  const formula = `regexp_matches(${column.sql}, ${quoteString(CSV_FORMULA_START)})`;
  const number = `regexp_matches(${column.sql}, ${quoteString(CSV_PLAIN_NUMBER)})`;
  return `CASE WHEN ${formula} AND NOT ${number} THEN '''' || ${column.sql} ELSE ${column.sql} END`;
}

/** Runs `write` (a COPY to the quoted path given) into a fresh temporary file, and streams the file. */
async function copyToFile(
  source: TableSnapshot,
  format: DownloadFormat,
  directory: string,
  write: (quotedPath: string, options: string) => Promise<void>,
): Promise<Download> {
  await mkdir(directory, { recursive: true });
  const path = join(directory, `${randomUUID()}.${format}`);
  try {
    await write(quoteString(path), format === 'csv' ? 'FORMAT csv, HEADER true' : 'FORMAT parquet');
    const { size } = await stat(path);
    const stream = createReadStream(path);
    stream.once('close', () => {
      void rm(path, { force: true });
    });
    const base = source.row.tag.replace(/[^A-Za-z0-9._-]/g, '_') || 'data';
    return { stream, size, filename: `${base}.${format}`, contentType: CONTENT_TYPES[format] };
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
}
