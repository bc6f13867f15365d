import { randomUUID } from 'node:crypto';
import type { DataFormat } from '@service/common';
import type { SqlConnection } from '../engine/duckdb.js';
import { quoteIdentifier, quoteString } from '../engine/sql.js';
import { csvDialect, type ReadOptions } from './read-source.js';

/** A line whose number of fields differs from the header's. */
export interface RaggedLine {
  line: number;
  fields: number;
  expected: number;
}

const COUNTS = /Expected Number of Columns: (\d+) Found: (\d+)/;

/**
 * The first line of a CSV/TSV file with the wrong number of fields, or null when there is none.
 * DuckDB's own error for such a file is a page about its sniffer; this reads the file again with
 * every value as text and its rejects stored (in DuckDB, streamed: nothing is held in Node), so
 * the person learns which line to fix.
 */
export async function raggedLine(
  connection: SqlConnection,
  format: DataFormat,
  localPath: string,
  options: ReadOptions,
): Promise<RaggedLine | null> {
  if (format !== 'csv' && format !== 'tsv') return null;
  const suffix = randomUUID().replaceAll('-', '');
  const rejects = `__rejects_${suffix}`;
  const scans = `__reject_scans_${suffix}`;
  const read = [
    quoteString(localPath),
    ...csvDialect(format, options),
    'all_varchar = true',
    'store_rejects = true',
    `rejects_table = ${quoteString(rejects)}`,
    `rejects_scan = ${quoteString(scans)}`,
  ];
  try {
    await connection.run(`SELECT count(*) FROM read_csv(${read.join(', ')})`);
    const found = (await connection.query(
      `SELECT line::BIGINT::DOUBLE AS line, error_message AS message FROM ${quoteIdentifier(rejects)}
       WHERE error_type IN ('TOO MANY COLUMNS', 'MISSING COLUMNS')
       AND line = (SELECT min(line) FROM ${quoteIdentifier(rejects)} WHERE error_type IN ('TOO MANY COLUMNS', 'MISSING COLUMNS'))`,
    )) as { line: number; message: string }[];
    let ragged: RaggedLine | null = null;
    // A line with too many fields is reported once per extra field: the largest count is the line's.
    for (const { line, message } of found) {
      const counts = COUNTS.exec(message);
      if (counts === null) continue;
      const fields = Number(counts[2]);
      if (ragged === null || fields > ragged.fields) ragged = { line, fields, expected: Number(counts[1]) };
    }
    return ragged;
  } catch {
    // A file that cannot even be split into lines (bad quoting, bad encoding) has no line to name.
    return null;
  } finally {
    await connection.run(`DROP TABLE IF EXISTS ${quoteIdentifier(rejects)}`).catch(() => undefined);
    await connection.run(`DROP TABLE IF EXISTS ${quoteIdentifier(scans)}`).catch(() => undefined);
  }
}

/** The refusal's words for a ragged line: what is wrong, where, and what to do. */
export function raggedMessage(path: string, ragged: RaggedLine): { detail: string; reason: string } {
  const reason = `line ${ragged.line}: ${ragged.fields} fields, expected ${ragged.expected}`;
  return {
    reason,
    detail: `${path}, ${reason}. Every line needs as many fields as the header: fix that line (a value holding the delimiter must be quoted) or choose the file's delimiter, then upload it again.`,
  };
}
