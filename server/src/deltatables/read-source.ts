import { COLUMN_TYPES, type ColumnType, type DataFormat, type DerivedColumn } from '@service/common';
import { quoteString } from '../engine/sql.js';
import { DomainError } from '../errors.js';

export interface ReadOptions {
  delimiter?: string;
  header?: boolean;
  quote?: string;
  skip?: number;
  null_values?: string[];
  columns?: Record<string, string>;
  /** Added to the file's columns after reading (derived-columns.ts); `readFunction` leaves them. */
  derive?: DerivedColumn[];
}

const SQL_TYPE = /^[A-Za-z][A-Za-z0-9_ ]*(\(\d+(,\s*\d+)?\))?$/;

/** The DuckDB type of a column type in `read_options.columns`: one of ours by name, or a DuckDB type as written. */
export function duckdbType(name: string, type: string): string {
  if (Object.hasOwn(COLUMN_TYPES, type)) return COLUMN_TYPES[type as ColumnType];
  if (!SQL_TYPE.test(type)) {
    throw new DomainError(
      'validation_failed',
      `read option columns.${name} is not a column type: use one of ${Object.keys(COLUMN_TYPES).join(', ')}`,
    );
  }
  return type;
}

/**
 * How a CSV or TSV file is split into fields (delimiter, header, quoting, skipped lines, null
 * markers): shared by the reader and by the diagnosis of a file that cannot be read.
 */
export function csvDialect(format: 'csv' | 'tsv', options: ReadOptions): string[] {
  const parts = [`delim = ${quoteString(options.delimiter ?? (format === 'tsv' ? '\t' : ','))}`];
  parts.push(`header = ${options.header === false ? 'false' : 'true'}`);
  // RFC 4180 quoting unless told otherwise, so an unterminated quote is an error rather than
  // a "no quoting" dialect the sniffer settles on.
  const quote = options.quote ?? '"';
  parts.push(`quote = ${quoteString(quote)}`, `escape = ${quoteString(quote)}`);
  // An explicit skip: left to itself, DuckDB's sniffer may decide the first lines are junk and
  // silently drop them (header included), which would lose rows.
  parts.push(`skip = ${Number(options.skip ?? 0)}`);
  if (options.null_values !== undefined) parts.push(`nullstr = [${options.null_values.map(quoteString).join(', ')}]`);
  return parts;
}

/** The DuckDB table function that reads one source file in a data collection's format. */
export function readFunction(format: DataFormat, localPath: string, options: ReadOptions, fullSample = false): string {
  const path = quoteString(localPath);
  switch (format) {
    case 'parquet':
      return `read_parquet(${path})`;
    case 'json':
      return `read_json(${path}, format = 'array')`;
    case 'ndjson':
      return `read_json(${path}, format = 'newline_delimited')`;
    case 'csv':
    case 'tsv': {
      const parts = [path, ...csvDialect(format, options)];
      if (options.columns !== undefined) {
        const types = Object.entries(options.columns).map(
          ([name, type]) => `${quoteString(name)}: ${quoteString(duckdbType(name, type))}`,
        );
        parts.push(`types = {${types.join(', ')}}`);
      }
      // Ragged rows and bad quoting are errors, not silently padded or dropped. Types are guessed
      // from a sample; a later value that does not fit is an error too (never a silent change),
      // and the upsert then reads the file again with every row as the sample.
      parts.push('strict_mode = true', `sample_size = ${fullSample ? -1 : 20_480}`);
      return `read_csv(${parts.join(', ')})`;
    }
  }
}
