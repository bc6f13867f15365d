import { randomUUID } from 'node:crypto';
import { COLUMN_TYPES, type DataFormat } from '@service/common';
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

/** A value DuckDB could not convert to its column's type, as its conversion error tells. */
export interface MisfitValue {
  line: number | null;
  column: string;
  value: string;
  /** The type in the names a person picks from (`integer`), or DuckDB's name for any other. */
  type: string;
}

const MISFIT = /Error when converting column "(.+?)"\. Could not convert string "(.*?)" to '([^']+)'/;
const MISFIT_LINE = /CSV Error on Line: (\d+)/;

/** The column, value and line of a conversion error, or null when the error is not one. */
export function misfitValue(message: string): MisfitValue | null {
  const found = MISFIT.exec(message);
  if (found === null) return null;
  const [, column = '', value = '', engineType = ''] = found;
  const line = MISFIT_LINE.exec(message);
  const named = Object.entries(COLUMN_TYPES).find(([, duckdb]) => duckdb === engineType.toUpperCase());
  return { line: line ? Number(line[1]) : null, column, value, type: named ? named[0] : engineType };
}

/** The refusal's words for a value that does not fit its column's type: which column, which value, what to do. */
export function misfitMessage(path: string, misfit: MisfitValue): { detail: string; reason: string } {
  const where = misfit.line === null ? '' : `line ${misfit.line}: `;
  const reason = `${where}column ${misfit.column} holds "${misfit.value.slice(0, 60)}", which is not ${articled(misfit.type)}`;
  return {
    reason,
    detail: `${path}, ${reason}. Choose another type for ${misfit.column} (string keeps any text), add "${misfit.value.slice(0, 60)}" to the null markers if it means a missing value, or correct the file; then build the table again.`,
  };
}

function articled(type: string): string {
  return /^[aeiou]/i.test(type) ? `an ${type}` : `a ${type}`;
}
