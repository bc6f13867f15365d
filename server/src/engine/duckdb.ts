import { mkdir } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  BIGINT,
  BOOLEAN,
  DOUBLE,
  type DuckDBConnection,
  type DuckDBDataChunk,
  DuckDBDoubleVector,
  DuckDBInstance,
  DuckDBListVector,
  type DuckDBType,
  DuckDBTypeId,
  HUGEINT,
  INTEGER,
  JsonDuckDBValueConverter,
  SQLNULL,
  VARCHAR,
} from '@duckdb/node-api';
import { boundedStatement, readCells } from './bounded-work.js';

/** A value bound to a `$1`/`?` placeholder. */
export type SqlValue = string | number | boolean | bigint | null;

/** A JSON-safe value as results come back: BIGINT, HUGEINT and DECIMAL arrive as strings. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type SqlRow = Record<string, JsonValue>;

/** A result whose last column is a list of doubles, that column as one matrix (see `queryMatrix`). */
export interface MatrixRows {
  /** Each row's other columns, as `query` gives them. */
  rows: SqlRow[];
  /** The lists row by row, `width` values each: NaN where an item is null, not finite or missing. */
  values: Float64Array;
  /** The longest list's length. */
  width: number;
}

/** A result's lists of doubles each as one typed array per row (see `queryLists`). */
export interface ListRows {
  /** Each row's columns that are not lists of doubles, as `query` gives them. */
  rows: SqlRow[];
  /** Each row's lists of doubles by column name: NaN where an item is null or not finite (a null list: empty). */
  lists: Record<string, Float64Array>[];
}

/** A column type as DuckDB reports it, without DuckDB's classes. */
export type SqlType =
  | { kind: 'scalar'; name: string }
  | { kind: 'decimal'; precision: number; scale: number }
  | { kind: 'list'; element: SqlType }
  | { kind: 'struct'; fields: SqlColumn[] }
  | { kind: 'map'; key: SqlType; value: SqlType };

export interface SqlColumn {
  name: string;
  type: SqlType;
}

export interface DuckDBOptions {
  /** Worker threads per query; defaults to 2. */
  threads?: number;
  /** e.g. `1GB`; DuckDB's default is 80% of RAM. */
  memoryLimit?: string;
  /** Where DuckDB spills when a query outgrows memory. */
  tempDirectory?: string;
}

/**
 * The process's DuckDB database: in memory, UTC session time zone, no extension downloads.
 * Connections are cheap; each concurrent piece of work takes its own. (Native copies sort a
 * clustered copy in a short-lived one of their own, with a memory bound of its own.)
 */
export class DuckDB {
  private constructor(private readonly instance: DuckDBInstance) {}

  static async open(options: DuckDBOptions = {}): Promise<DuckDB> {
    const config: Record<string, string> = {
      threads: String(options.threads ?? 2),
      autoinstall_known_extensions: 'false',
    };
    if (options.memoryLimit !== undefined) config.memory_limit = options.memoryLimit;
    if (options.tempDirectory !== undefined) {
      // DuckDB creates the directory itself but not its parents: without them, spilling fails.
      await mkdir(options.tempDirectory, { recursive: true });
      config.temp_directory = options.tempDirectory;
    }
    const database = new DuckDB(await DuckDBInstance.create(':memory:', config));
    await database.withConnection(async (connection) => {
      // Naive timestamps (Parquet INT96, Delta partition values) are UTC instants.
      await connection.run("SET GLOBAL TimeZone = 'UTC'");
      await connection.run('SET GLOBAL parquet_metadata_cache = true');
    });
    return database;
  }

  async connect(): Promise<SqlConnection> {
    return new SqlConnection(await this.instance.connect());
  }

  async withConnection<T>(work: (connection: SqlConnection) => Promise<T>): Promise<T> {
    const connection = await this.connect();
    try {
      return await work(connection);
    } finally {
      connection.close();
    }
  }

  close(): void {
    this.instance.closeSync();
  }
}

/**
 * One DuckDB connection: its temporary views and tables are its own. Run one statement at a time.
 * Every statement obeys the bounds of the request work it runs for (`withinBounds`): interrupted
 * when the client leaves, the request's time limit passes, the server shuts down, or the
 * statement outlives its own limit.
 */
export class SqlConnection {
  constructor(private readonly connection: DuckDBConnection) {}

  async run(sql: string, params?: SqlValue[]): Promise<void> {
    await boundedStatement(this.connection, () => this.connection.run(sql, params, paramTypes(params)));
  }

  /**
   * Every row of the result, JSON-safe (see `JsonValue`). Rows are converted one chunk (2048 rows)
   * at a time, letting other requests run in between (`/health` among them): converting a few
   * hundred thousand rows in one go held the event loop for seconds. Within request work, the
   * values read count against its limit (`readCells`) before each chunk is converted.
   */
  async query(sql: string, params?: SqlValue[]): Promise<SqlRow[]> {
    const rows: SqlRow[] = [];
    for await (const { chunk, names } of this.chunks(sql, params)) rows.push(...rowObjectsOf(chunk, names));
    return rows;
  }

  /**
   * `query` for a result whose last column is a list of doubles (a heatmap's rows): that column
   * is read from DuckDB's vectors into one Float64Array, not converted to an array of numbers per
   * row (for 1,000 lists of 200, a quarter of the statement's time and most of its garbage).
   */
  async queryMatrix(sql: string, params?: SqlValue[]): Promise<MatrixRows> {
    const rows: SqlRow[] = [];
    const lists: Float64Array[] = [];
    for await (const { chunk, names } of this.chunks(sql, params)) {
      const last = names.length - 1;
      const read = listedChunk(chunk, names, (column) => column === last);
      rows.push(...read.rows);
      lists.push(...(read.lists[0]?.[1] ?? []));
    }
    const width = lists.reduce((longest, list) => Math.max(longest, list.length), 0);
    const values = new Float64Array(lists.length * width).fill(Number.NaN);
    for (const [row, list] of lists.entries()) values.set(list, row * width);
    return { rows, values, width };
  }

  /**
   * `query` for a result with columns that are lists of doubles (a coverage track's buckets per
   * sample): those are read from DuckDB's vectors into one Float64Array per row and column, not
   * converted to an array of numbers each (40,000 buckets: about a third of the answer's time).
   */
  async queryLists(sql: string, params?: SqlValue[]): Promise<ListRows> {
    const rows: SqlRow[] = [];
    const lists: Record<string, Float64Array>[] = [];
    for await (const { chunk, names } of this.chunks(sql, params)) {
      const read = listedChunk(chunk, names, (column) => doubleListOf(chunk, column) !== null);
      rows.push(...read.rows);
      for (let row = 0; row < chunk.rowCount; row++) {
        lists.push(Object.fromEntries(read.lists.map(([name, values]) => [name, values[row]!])));
      }
    }
    return { rows, lists };
  }

  /**
   * The result's chunks (2048 rows each) with its column names, for `query`, `queryMatrix` and `queryLists` to
   * convert: from the second on, each after a turn of the event loop, and each chunk's values
   * counted against the request's limit (`readCells`) before it is handed over.
   */
  private async *chunks(sql: string, params?: SqlValue[]) {
    const result = await boundedStatement(this.connection, () => this.connection.run(sql, params, paramTypes(params)));
    const names = result.deduplicatedColumnNames();
    let first = true;
    for (
      let chunk = await result.fetchChunk();
      chunk !== null && chunk.rowCount > 0;
      chunk = await result.fetchChunk()
    ) {
      if (!first) await nextTurn();
      first = false;
      readCells(chunk.rowCount * names.length);
      yield { chunk, names };
    }
  }

  /** Result columns of a query, without running it to completion. */
  async describe(sql: string, params?: SqlValue[]): Promise<SqlColumn[]> {
    const reader = await boundedStatement(this.connection, () =>
      this.connection.runAndReadUntil(`SELECT * FROM (${sql}) LIMIT 0`, 0, params, paramTypes(params)),
    );
    const types = reader.columnTypes();
    return reader.columnNames().map((name, index) => ({ name, type: sqlType(types[index]!) }));
  }

  close(): void {
    this.connection.closeSync();
  }
}

/**
 * A chunk's rows as JSON-safe objects, as DuckDB's own `getRowObjectsJson` makes them: the
 * columns `kept` keeps (all of them for `query`; not the lists `queryMatrix` and `queryLists` read apart).
 */
function rowObjectsOf(
  chunk: DuckDBDataChunk,
  names: readonly string[],
  kept: (column: number) => boolean = () => true,
): SqlRow[] {
  // Each column's type read once per chunk, not once per value.
  const vectors = names.flatMap((name, column) => {
    if (!kept(column)) return [];
    const vector = chunk.getColumnVector(column);
    return [{ name, vector, type: vector.type }];
  });
  const rows: SqlRow[] = [];
  for (let index = 0; index < chunk.rowCount; index++) {
    const row: SqlRow = {};
    for (const { name, vector, type } of vectors) {
      row[name] = JsonDuckDBValueConverter(vector.getItem(index), type, JsonDuckDBValueConverter) as JsonValue;
    }
    rows.push(row);
  }
  return rows;
}

/**
 * A chunk read as `query` reads it, except its `listed` columns (lists of doubles), each read as
 * one typed array per row; the lists' items are counted against the request's limit
 * (`readCells`) beyond the one value per list `chunks` counted (a list of 200 means is 200 values
 * read), before the other columns are converted.
 */
function listedChunk(chunk: DuckDBDataChunk, names: readonly string[], listed: (column: number) => boolean) {
  const lists = names.flatMap((name, column) => (listed(column) ? [[name, listsOf(chunk, column)] as const] : []));
  let beyond = 0;
  for (const [, read] of lists) for (const list of read) beyond += Math.max(0, list.length - 1);
  readCells(beyond);
  return { rows: rowObjectsOf(chunk, names, (column) => !listed(column)), lists };
}

/** Column `index` of a chunk when it is a list of doubles; null otherwise. */
function doubleListOf(chunk: DuckDBDataChunk, index: number): DuckDBListVector | null {
  const vector = chunk.getColumnVector(index);
  return vector instanceof DuckDBListVector && vector.childVector instanceof DuckDBDoubleVector ? vector : null;
}

/** Column `index` of a chunk, a list of doubles, as one array per row (NaN for null or not finite). */
function listsOf(chunk: DuckDBDataChunk, index: number): Float64Array[] {
  const vector = doubleListOf(chunk, index);
  if (vector === null) throw new Error(`column ${index + 1} is not a list of doubles`);
  const lists: Float64Array[] = [];
  for (let row = 0; row < chunk.rowCount; row++) {
    // The row's items (a copy), null for a null list.
    const items = vector.getItemVector(row);
    const list = new Float64Array(items?.itemCount ?? 0);
    for (let at = 0; at < list.length; at++) {
      const value = items?.getItem(at);
      list[at] = typeof value === 'number' && Number.isFinite(value) ? value : Number.NaN;
    }
    lists.push(list);
  }
  return lists;
}

/** Whether a number is an integer BIGINT cannot hold (a filter bound of 1e300). */
const beyondBigint = (value: SqlValue) =>
  typeof value === 'number' && Number.isInteger(value) && Math.abs(value) >= 2 ** 63;

/**
 * The parameters' types, given only when an integer is beyond BIGINT: the API would bind it as a
 * BIGINT and fail; it goes as the DOUBLE it is. Otherwise the API's own choice, which this follows.
 */
function paramTypes(params: SqlValue[] | undefined): DuckDBType[] | undefined {
  if (params === undefined || !params.some(beyondBigint)) return undefined;
  return params.map((value) => {
    if (value === null) return SQLNULL;
    switch (typeof value) {
      case 'boolean':
        return BOOLEAN;
      case 'bigint':
        return HUGEINT;
      case 'string':
        return VARCHAR;
      default:
        if (!Number.isInteger(value) || beyondBigint(value)) return DOUBLE;
        return Math.abs(value) <= 2_147_483_647 ? INTEGER : BIGINT;
    }
  });
}

function sqlType(type: DuckDBType): SqlType {
  switch (type.typeId) {
    case DuckDBTypeId.DECIMAL:
      return { kind: 'decimal', precision: type.width, scale: type.scale };
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
      return { kind: 'list', element: sqlType(type.valueType) };
    case DuckDBTypeId.STRUCT:
      return {
        kind: 'struct',
        fields: type.entryNames.map((name, index) => ({ name, type: sqlType(type.entryTypes[index]!) })),
      };
    case DuckDBTypeId.MAP:
      return { kind: 'map', key: sqlType(type.keyType), value: sqlType(type.valueType) };
    default:
      return { kind: 'scalar', name: DuckDBTypeId[type.typeId] };
  }
}
