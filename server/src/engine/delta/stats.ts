import type { SqlColumn, SqlConnection, SqlRow, SqlType } from '../duckdb.js';
import { quoteIdentifier, quoteString } from '../sql.js';

/** Per-file statistics (PROTOCOL.md "Per-file Statistics"), as parsed from `add.stats`. */
export interface FileStats {
  numRecords?: number;
  tightBounds?: boolean;
  minValues?: Record<string, unknown>;
  maxValues?: Record<string, unknown>;
  nullCount?: Record<string, unknown>;
}

/** Parses `add.stats`; stats are only a hint, so anything unreadable is null. */
export function parseStats(raw: string | null | undefined): FileStats | null {
  if (raw === null || raw === undefined || raw === '') return null;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as FileStats) : null;
  } catch {
    return null;
  }
}

/** Strings longer than this get a prefix as minimum and no maximum (Delta's default prefix length). */
const STRING_PREFIX = 32;
/** Delta's default `delta.dataSkippingNumIndexedCols`. */
export const DEFAULT_INDEXED_COLUMNS = 32;

type ValueKind = 'number' | 'string' | 'date' | 'timestamp' | 'none';

const KINDS: Record<string, ValueKind> = {
  TINYINT: 'number',
  SMALLINT: 'number',
  INTEGER: 'number',
  BIGINT: 'number',
  FLOAT: 'number',
  DOUBLE: 'number',
  VARCHAR: 'string',
  DATE: 'date',
  TIMESTAMP_TZ: 'timestamp',
  BOOLEAN: 'none',
  BLOB: 'none',
};

interface Leaf {
  path: string[];
  kind: ValueKind;
  floating: boolean;
}

function leaves(columns: readonly SqlColumn[], prefix: string[], out: Leaf[], limit: number): void {
  for (const column of columns) {
    if (out.length >= limit) return;
    const path = [...prefix, column.name];
    const type: SqlType = column.type;
    if (type.kind === 'struct') leaves(type.fields, path, out, limit);
    else if (type.kind === 'decimal') out.push({ path, kind: 'number', floating: false });
    else if (type.kind === 'scalar' && KINDS[type.name] !== undefined) {
      out.push({ path, kind: KINDS[type.name]!, floating: type.name === 'FLOAT' || type.name === 'DOUBLE' });
    }
    // Lists and maps get no statistics (as in Delta's reference writer).
  }
}

function aggregates(leaf: Leaf, index: number): string[] {
  const column = leaf.path.map(quoteIdentifier).join('.');
  const nulls = `count(*) - count(${column}) AS n${index}`;
  if (leaf.kind === 'none') return [nulls];
  // NaN and infinities have no JSON form; a bound that is one is left out.
  const value = leaf.floating ? `CASE WHEN isfinite(${column}) THEN ${column} END` : column;
  const format = (aggregate: string) => {
    switch (leaf.kind) {
      case 'timestamp':
        // Delta truncates timestamp statistics to milliseconds.
        return `strftime(${aggregate}, '%Y-%m-%dT%H:%M:%S.%gZ')`;
      case 'string':
        return aggregate;
      default:
        return `CAST(${aggregate} AS VARCHAR)`;
    }
  };
  let min = `min(${value})`;
  let max = `max(${value})`;
  if (leaf.kind === 'string') {
    min = `left(min(${value}), ${STRING_PREFIX})`;
    max = `CASE WHEN length(max(${value})) <= ${STRING_PREFIX} THEN max(${value}) END`;
  }
  return [`${format(min)} AS lo${index}`, `${format(max)} AS hi${index}`, nulls];
}

/** JSON text kept as it is: DuckDB's exact digits of 64-bit integers and decimals. */
class Raw {
  constructor(readonly text: string) {}
}

type JsonTree = Map<string, JsonTree | Raw>;

function setPath(tree: JsonTree, path: string[], value: Raw): void {
  let node = tree;
  for (const part of path.slice(0, -1)) {
    const next = node.get(part);
    if (next instanceof Map) node = next;
    else {
      const child: JsonTree = new Map();
      node.set(part, child);
      node = child;
    }
  }
  node.set(path[path.length - 1]!, value);
}

function render(tree: JsonTree): string {
  const entries = [...tree].map(
    ([key, value]) => `${JSON.stringify(key)}:${value instanceof Raw ? value.text : render(value)}`,
  );
  return `{${entries.join(',')}}`;
}

function raw(leaf: Leaf, value: unknown): Raw | null {
  if (value === null || value === undefined) return null;
  const text = String(value);
  if (leaf.kind === 'number') return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text) ? new Raw(text) : null;
  return new Raw(JSON.stringify(text));
}

/**
 * Statistics of a Parquet file, as the `add.stats` JSON string: numRecords, and minValues,
 * maxValues and nullCount for the first `indexedColumns` leaf columns (nested struct fields count
 * one by one; lists and maps have none; booleans and binaries only a null count).
 */
export async function computeStats(
  connection: SqlConnection,
  localPath: string,
  indexedColumns: number = DEFAULT_INDEXED_COLUMNS,
): Promise<{ stats: string; numRecords: number }> {
  const source = `read_parquet(${quoteString(localPath)}, hive_partitioning = false)`;
  const columns = await connection.describe(`SELECT * FROM ${source}`);
  const found: Leaf[] = [];
  leaves(columns, [], found, indexedColumns);
  const select = ['count(*) AS num_records', ...found.flatMap(aggregates)];
  const [row] = (await connection.query(`SELECT ${select.join(', ')} FROM ${source}`)) as [SqlRow];
  const numRecords = Number(row.num_records);
  const minValues: JsonTree = new Map();
  const maxValues: JsonTree = new Map();
  const nullCount: JsonTree = new Map();
  found.forEach((leaf, index) => {
    setPath(nullCount, leaf.path, new Raw(String(row[`n${index}`])));
    if (leaf.kind === 'none') return;
    const lo = raw(leaf, row[`lo${index}`]);
    const hi = raw(leaf, row[`hi${index}`]);
    if (lo !== null) setPath(minValues, leaf.path, lo);
    if (hi !== null) setPath(maxValues, leaf.path, hi);
  });
  const stats = render(
    new Map<string, JsonTree | Raw>([
      ['numRecords', new Raw(String(numRecords))],
      ['minValues', minValues],
      ['maxValues', maxValues],
      ['nullCount', nullCount],
    ]),
  );
  return { stats, numRecords };
}
