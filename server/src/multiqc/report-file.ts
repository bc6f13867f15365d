import { GENERAL_STATS_PLOT, MULTIQC_SAMPLE_COLUMN } from '@service/common';
import type { SqlConnection } from '../engine/duckdb.js';
import { quoteIdentifier, quoteString } from '../engine/sql.js';
import { DomainError } from '../errors.js';

/**
 * Reading MultiQC's parquet form of a report (`multiqc.parquet`, MultiQC ≥ 1.25) with DuckDB: one
 * row per plot input (`type = 'plot_input'`, the plot's data as JSON in `plot_input_data`), one
 * row per sample and metric of its tables (`type = 'plot_input_row'`, the value in `val_raw`) and
 * one `run_metadata` row (version, modules).
 */

/** The columns every report has that we read; a parquet without them is not a MultiQC report we know. */
const REQUIRED_COLUMNS = [
  'anchor',
  'type',
  'plot_type',
  'plot_input_data',
  'sample',
  'section_key',
  'metric',
  'val_raw',
];

/** MultiQC's marker for a missing number (NaN) inside `plot_input_data`. */
export const NAN_MARKER = '__NAN__MARKER__';

const reportOf = (localPath: string) => `read_parquet(${quoteString(localPath)}, file_row_number = true)`;

/** Refuses (400, naming the file) a parquet that lacks the columns of a MultiQC report. */
export async function checkReport(connection: SqlConnection, localPath: string, name: string): Promise<void> {
  const columns = new Set((await connection.describe(`SELECT * FROM ${reportOf(localPath)}`)).map((c) => c.name));
  const missing = REQUIRED_COLUMNS.filter((column) => !columns.has(column));
  if (missing.length > 0) {
    const message = `${name} is not a MultiQC report (multiqc.parquet of MultiQC 1.25 or later): it has no column ${missing.join(', ')}`;
    throw new DomainError('validation_failed', message, [{ path: name, message }]);
  }
}

/**
 * The report's general statistics as a relation: one row per sample, one column per metric named
 * `<section_key>-<metric>` as in MultiQC's `multiqc_general_stats.txt` — numbers, or text where the
 * report holds only text. A report without general statistics gives one row whose sample is null,
 * so that the table still records the report (its plots are read from it).
 */
export async function generalStatsRelation(
  connection: SqlConnection,
  localPath: string,
  name: string,
): Promise<string> {
  await checkReport(connection, localPath, name);
  const rows = `SELECT * FROM ${reportOf(localPath)} WHERE type = 'plot_input_row' AND anchor = ${quoteString(GENERAL_STATS_PLOT)}`;
  const metrics = (await connection.query(
    `SELECT section_key, metric, bool_or(val_raw IS NOT NULL) AS numeric
     FROM (${rows}) WHERE sample IS NOT NULL AND metric IS NOT NULL
     GROUP BY section_key, metric ORDER BY min(section_order), min(file_row_number)`,
  )) as { section_key: string | null; metric: string; numeric: boolean }[];
  const sample = quoteIdentifier(MULTIQC_SAMPLE_COLUMN);
  if (metrics.length === 0) return `(SELECT NULL::VARCHAR AS ${sample})`;
  const columns = metrics.map(({ section_key: section, metric, numeric }) => {
    const where = `section_key IS NOT DISTINCT FROM ${section === null ? 'NULL' : quoteString(section)} AND metric = ${quoteString(metric)}`;
    const value = numeric ? 'val_raw' : 'val_fmt';
    return `first(${value} ORDER BY file_row_number) FILTER (WHERE ${where}) AS ${quoteIdentifier(metricKey(section, metric))}`;
  });
  return `(SELECT sample AS ${sample}, ${columns.join(', ')} FROM (${rows}) WHERE sample IS NOT NULL GROUP BY sample ORDER BY min(file_row_number))`;
}

/** A general-statistics column's name, as MultiQC's own `multiqc_general_stats.txt` writes it. */
export function metricKey(section: string | null, metric: string): string {
  return section === null || section === '' ? metric : `${section}-${metric}`;
}

/** A plot input as the report holds it: its anchor, MultiQC's plot type, and its data (JSON text). */
export interface PlotInput {
  anchor: string;
  plotType: string;
  json: string;
}

/** Every plot input of the report, in the report's order (their JSON is parsed when a plot is drawn). */
export async function plotInputs(connection: SqlConnection, localPath: string): Promise<PlotInput[]> {
  const rows = (await connection.query(
    `SELECT anchor, plot_type, plot_input_data FROM ${reportOf(localPath)}
     WHERE type = 'plot_input' AND anchor IS NOT NULL AND plot_input_data IS NOT NULL ORDER BY file_row_number`,
  )) as { anchor: string; plot_type: string | null; plot_input_data: string }[];
  return rows.map((row) => ({ anchor: row.anchor, plotType: row.plot_type ?? '', json: row.plot_input_data }));
}

/** What the report says of itself: MultiQC's version, when it was made, and its modules. */
export interface RunMetadata {
  multiqcVersion: string | null;
  creationDate: string | null;
  /** MultiQC's `modules` JSON (name, anchor, sections with their plots' HTML), or null. */
  modules: string | null;
}

export async function runMetadata(connection: SqlConnection, localPath: string): Promise<RunMetadata> {
  const described = new Set((await connection.describe(`SELECT * FROM ${reportOf(localPath)}`)).map((c) => c.name));
  const pick = (column: string, cast = '') =>
    described.has(column) ? `${quoteIdentifier(column)}${cast}` : `NULL::VARCHAR`;
  const [row] = (await connection.query(
    `SELECT ${pick('multiqc_version')} AS version, ${pick('creation_date', '::VARCHAR')} AS created,
            ${pick('modules')} AS modules
     FROM ${reportOf(localPath)} WHERE type = 'run_metadata' LIMIT 1`,
  )) as { version: string | null; created: string | null; modules: string | null }[];
  return {
    multiqcVersion: row?.version ?? null,
    creationDate: row?.created ?? null,
    modules: row?.modules ?? null,
  };
}
