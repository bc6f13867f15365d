import type { SqlColumn, SqlConnection, SqlRow, SqlType } from '../duckdb.js';
import { quoteString } from '../sql.js';

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
export const STRING_PREFIX = 32;
/** Delta's default `delta.dataSkippingNumIndexedCols`. */
export const DEFAULT_INDEXED_COLUMNS = 32;

/** How a column's footer statistics become Delta's JSON statistics; `none`: a null count only. */
export type ValueKind = 'integer' | 'float' | 'decimal' | 'string' | 'date' | 'timestamp' | 'none';

const KINDS: Record<string, ValueKind> = {
  TINYINT: 'integer',
  SMALLINT: 'integer',
  INTEGER: 'integer',
  BIGINT: 'integer',
  FLOAT: 'float',
  DOUBLE: 'float',
  VARCHAR: 'string',
  DATE: 'date',
  TIMESTAMP_TZ: 'timestamp',
  BOOLEAN: 'none',
  BLOB: 'none',
};

/** A column that gets statistics: a top-level column or a field of a struct. */
export interface StatsLeaf {
  path: string[];
  kind: ValueKind;
  /** Digits after the point, for decimals. */
  scale: number;
  /** Its leaf column's position in the Parquet schema (`parquet_metadata().column_id`). */
  parquetColumn: number;
}

/** How many Parquet leaf columns a DuckDB type is written as. */
function parquetLeafCount(type: SqlType): number {
  switch (type.kind) {
    case 'struct':
      return type.fields.reduce((total, field) => total + parquetLeafCount(field.type), 0);
    case 'list':
      return parquetLeafCount(type.element);
    case 'map':
      return parquetLeafCount(type.key) + parquetLeafCount(type.value);
    default:
      return 1;
  }
}

/**
 * The columns that get statistics, in schema order, at most `limit`: nested struct fields count
 * one by one; lists and maps get none (as in Delta's reference writer).
 */
export function statsLeaves(columns: readonly SqlColumn[], limit: number = DEFAULT_INDEXED_COLUMNS): StatsLeaf[] {
  const out: StatsLeaf[] = [];
  let next = 0;
  const walk = (fields: readonly SqlColumn[], prefix: string[]): void => {
    for (const column of fields) {
      if (out.length >= limit) return;
      const path = [...prefix, column.name];
      const type = column.type;
      if (type.kind === 'struct') walk(type.fields, path);
      else if (type.kind === 'decimal') out.push({ path, kind: 'decimal', scale: type.scale, parquetColumn: next++ });
      else if (type.kind === 'scalar' && KINDS[type.name] !== undefined) {
        out.push({ path, kind: KINDS[type.name]!, scale: 0, parquetColumn: next++ });
      } else next += parquetLeafCount(type);
    }
  };
  walk(columns, []);
  return out;
}

/** JSON text kept as it is: the exact digits of 64-bit integers and decimals. */
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

/** A bound read from the footer: `order` compares like the column's values, `text` is its JSON. */
interface Bound {
  order: bigint | number | string | Buffer;
  text: string;
}

const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
// Finite numbers only: NaN and infinities have no JSON form.
const FLOATING = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
// DuckDB renders a UTC-adjusted Parquet timestamp statistic in UTC, with up to 9 fraction digits.
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?\+00$/;

/**
 * A footer statistic as a Delta statistic, or null when it cannot be converted exactly (then the
 * bound is left out: a missing statistic only costs data skipping, a wrong one loses rows).
 */
function boundOf(leaf: StatsLeaf, value: string): Bound | null {
  switch (leaf.kind) {
    case 'integer':
      return INTEGER.test(value) ? { order: BigInt(value), text: value } : null;
    case 'decimal': {
      const match = DECIMAL.exec(value);
      const digits = match?.[1] === undefined ? 0 : match[1].length - 1;
      return match !== null && digits === leaf.scale ? { order: BigInt(value.replace('.', '')), text: value } : null;
    }
    case 'float':
      return FLOATING.test(value) ? { order: Number(value), text: value } : null;
    case 'string':
      // Parquet orders UTF-8 strings bytewise (so does DuckDB); JavaScript's < compares UTF-16 units.
      return { order: Buffer.from(value, 'utf8'), text: value };
    case 'date':
      return DATE.test(value) ? { order: value, text: JSON.stringify(value) } : null;
    case 'timestamp': {
      const match = TIMESTAMP.exec(value);
      if (match === null) return null;
      // Delta truncates timestamp statistics to milliseconds.
      const text = `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
      return { order: text, text: JSON.stringify(text) };
    }
    case 'none':
      return null;
  }
}

function compare(a: Bound['order'], b: Bound['order']): number {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return Buffer.compare(a, b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One leaf column of one row group, as `parquet_metadata()` reports it. */
interface FooterChunk {
  path: string;
  values: string;
  nulls: string | null;
  min: string | null;
  max: string | null;
  minExact: boolean | null;
  maxExact: boolean | null;
}

/**
 * Whether a footer bound is the column's value itself. Only strings and binary-stored decimals can
 * be truncated by a writer; writers older than the `is_*_exact` flags (Spark, delta-rs) leave them unset.
 */
function exact(leaf: StatsLeaf, flag: boolean | null): boolean {
  return flag === true || (flag === null && leaf.kind !== 'string' && leaf.kind !== 'decimal');
}

/** Whole-file bounds and null count of one leaf from its row groups; null where a row group lacks what is needed. */
function combine(leaf: StatsLeaf, chunks: readonly FooterChunk[]) {
  let nulls: bigint | null = 0n;
  let min: Bound | null | undefined;
  let max: Bound | null | undefined;
  for (const chunk of chunks) {
    if (chunk.nulls === null || nulls === null) {
      nulls = null;
      min = null;
      max = null;
      break;
    }
    nulls += BigInt(chunk.nulls);
    // A row group holding only NULLs has no bounds, and needs none.
    if (BigInt(chunk.values) - BigInt(chunk.nulls) <= 0n) continue;
    if (min !== null) {
      const bound = chunk.min === null || !exact(leaf, chunk.minExact) ? null : boundOf(leaf, chunk.min);
      min = bound === null ? null : min === undefined || compare(bound.order, min.order) < 0 ? bound : min;
    }
    if (max !== null) {
      const bound = chunk.max === null || !exact(leaf, chunk.maxExact) ? null : boundOf(leaf, chunk.max);
      max = bound === null ? null : max === undefined || compare(bound.order, max.order) > 0 ? bound : max;
    }
  }
  let minText = min?.text ?? null;
  let maxText = max?.text ?? null;
  if (leaf.kind === 'string') {
    // The minimum's prefix is still a lower bound; a longer maximum has no exact short form.
    const lo = minText === null ? null : [...minText];
    const hi = maxText === null ? null : [...maxText];
    minText = lo === null ? null : JSON.stringify(lo.slice(0, STRING_PREFIX).join(''));
    maxText = hi === null || hi.length > STRING_PREFIX ? null : JSON.stringify(maxText);
  }
  return { nulls, min: minText, max: maxText };
}

/**
 * Statistics of a Parquet file, as the `add.stats` JSON string, read from the file's footer (no
 * scan of the data): numRecords, and minValues, maxValues and nullCount for the first
 * `indexedColumns` leaf columns (see `statsLeaves`; booleans and binaries only a null count). The
 * row groups' statistics are combined; a statistic the footer does not hold exactly (a row group
 * without it, a string the writer truncated or left out, NaN or an infinity in a floating column)
 * is left out rather than guessed.
 */
export async function computeStats(
  connection: SqlConnection,
  localPath: string,
  columns: readonly SqlColumn[],
  indexedColumns: number = DEFAULT_INDEXED_COLUMNS,
): Promise<{ stats: string; numRecords: number }> {
  const path = quoteString(localPath);
  const [file] = (await connection.query(
    `SELECT num_rows::VARCHAR AS num_rows, num_row_groups::VARCHAR AS row_groups FROM parquet_file_metadata(${path})`,
  )) as [SqlRow];
  const numRecords = Number(file.num_rows);
  const rowGroups = Number(file.row_groups);
  const rows = await connection.query(
    `SELECT column_id::INTEGER AS column_id, path_in_schema, num_values::VARCHAR AS num_values,
       stats_null_count::VARCHAR AS nulls, stats_min_value AS min, stats_max_value AS max, min_is_exact, max_is_exact
     FROM parquet_metadata(${path})`,
  );
  const chunks = new Map<number, FooterChunk[]>();
  for (const row of rows) {
    const list = chunks.get(Number(row.column_id)) ?? [];
    list.push({
      path: String(row.path_in_schema),
      values: String(row.num_values),
      nulls: row.nulls === null ? null : String(row.nulls),
      min: row.min === null ? null : String(row.min),
      max: row.max === null ? null : String(row.max),
      minExact: row.min_is_exact as boolean | null,
      maxExact: row.max_is_exact as boolean | null,
    });
    chunks.set(Number(row.column_id), list);
  }
  const minValues: JsonTree = new Map();
  const maxValues: JsonTree = new Map();
  const nullCount: JsonTree = new Map();
  for (const leaf of statsLeaves(columns, indexedColumns)) {
    const found = chunks.get(leaf.parquetColumn) ?? [];
    // The leaf must be the column we think it is, in every row group (a file without any has no NULLs either).
    if (found.length !== rowGroups || found.some((chunk) => chunk.path !== leaf.path.join(', '))) continue;
    const { nulls, min, max } = combine(leaf, found);
    if (nulls !== null) setPath(nullCount, leaf.path, new Raw(String(nulls)));
    if (min !== null) setPath(minValues, leaf.path, new Raw(min));
    if (max !== null) setPath(maxValues, leaf.path, new Raw(max));
  }
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
