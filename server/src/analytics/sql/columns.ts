import type { QueryRow, TableColumn } from '@service/common';
import type { DataCollectionsTable } from '../../db/tables.js';
import type { DeltaSnapshot, DeltaTable, DeltaType } from '../../engine/delta/index.js';
import type { JsonValue, SqlRow } from '../../engine/duckdb.js';
import type { TableVersion } from '../../engine/snapshot-cache.js';
import { DomainError } from '../../errors.js';

/** How a column's values behave in SQL and how they leave as JSON. */
export type Kind = 'integer' | 'float' | 'decimal' | 'boolean' | 'string' | 'binary' | 'date' | 'timestamp' | 'nested';

export interface Column {
  name: string;
  /** The quoted identifier. */
  sql: string;
  type: DeltaType;
  /** The Delta type name (`long`, `decimal(10,2)`, `array<string>`). */
  typeName: string;
  /** The DuckDB type the table's view has. */
  sqlType: string;
  kind: Kind;
  nullable: boolean;
}

const PRIMITIVE_KINDS: Record<string, Kind> = {
  long: 'integer',
  integer: 'integer',
  short: 'integer',
  byte: 'integer',
  float: 'float',
  double: 'float',
  boolean: 'boolean',
  string: 'string',
  binary: 'binary',
  date: 'date',
  timestamp: 'timestamp',
};

export function kindOf(type: DeltaType): Kind {
  if (typeof type !== 'string') return 'nested';
  return PRIMITIVE_KINDS[type] ?? (type.startsWith('decimal') ? 'decimal' : 'string');
}

export const isNumeric = (column: Column) =>
  column.kind === 'integer' || column.kind === 'float' || column.kind === 'decimal';
export const isMap = (column: Column) => typeof column.type !== 'string' && column.type.type === 'map';

/** How a value of an answer column is turned into JSON (see `cellSchema` in common). */
export type Output = 'integer' | 'timestamp' | 'plain';

export function outputOf(kind: Kind): Output {
  if (kind === 'integer') return 'integer';
  if (kind === 'timestamp') return 'timestamp';
  return 'plain';
}

export const INTEGER_TEXT = /^[+-]?\d+$/;
export const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DUCKDB_TIMESTAMP = /^(-?\d{4,}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)\+00$/;

/**
 * Integers that fit a double exactly become numbers; timestamps (session time zone UTC) ISO-8601.
 * A cell's NaN and ±Infinity arrive from DuckDB as the strings `NaN`, `Infinity` and `-Infinity`
 * and leave so (docs/data.md); a number computed here that overflowed leaves as null.
 */
export function jsonValue(value: JsonValue | undefined, output: Output): JsonValue {
  if (value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return value;
  if (output === 'integer' && INTEGER_TEXT.test(value)) {
    const number = Number(value);
    return Number.isSafeInteger(number) ? number : value;
  }
  if (output === 'timestamp') {
    const match = DUCKDB_TIMESTAMP.exec(value);
    return match === null ? value : `${match[1]}T${match[2]}Z`;
  }
  return value;
}

export function count(value: JsonValue | undefined): number {
  return Number(value ?? 0);
}

export function invalid(path: string, message: string): DomainError {
  return new DomainError('validation_failed', `${path}: ${message}`, [{ path, message }]);
}

/**
 * A table snapshot: where the rows of one request come from — the collection, its Delta table, and
 * the version read (not to be confused with `DeltaSnapshot`, the Delta log at one version).
 */
export interface TableSnapshot {
  row: DataCollectionsTable;
  table: DeltaTable;
  /** Null while the collection has no Delta table. */
  snapshot: DeltaSnapshot | null;
  /** What is known of the snapshot's version (row count, Parquet columns); null with the snapshot. */
  version: TableVersion | null;
  columns: Column[];
  byName: Map<string, Column>;
  /**
   * Columns the readers filter by range (a dashboard's range widgets and brushes), most wanted
   * first: a native copy of the version is clustered by them (engine/native-copies.ts).
   */
  clusterBy?: readonly string[];
}

/** The column a request names, or a 400 at `path`. */
export function columnOf(source: TableSnapshot, name: string, path: string): Column {
  const column = source.byName.get(name);
  if (column === undefined) throw invalid(path, `unknown column ${JSON.stringify(name)}`);
  return column;
}

export function describe(source: TableSnapshot): TableColumn[] {
  const descriptions = parseDescriptions(source.row.columns);
  return source.columns.map((column) => ({
    name: column.name,
    type: column.typeName,
    nullable: column.nullable,
    description: descriptions[column.name] ?? null,
  }));
}

export function tableRow(source: TableSnapshot, row: SqlRow): QueryRow {
  const out: QueryRow = {};
  for (const column of source.columns) out[column.name] = jsonValue(row[column.name], outputOf(column.kind));
  return out;
}

function parseDescriptions(json: string): Record<string, string> {
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    return Object.fromEntries(
      Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  } catch {
    return {};
  }
}
