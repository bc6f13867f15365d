import type { SqlConnection } from '../duckdb.js';
import { quoteIdentifier, stringList } from '../sql.js';
import type { DeltaEngine } from './engine.js';
import { partitionValueSql } from './partition-values.js';
import type { DeltaFile, DeltaSnapshot } from './snapshot.js';
import { sqlTypeOf } from './types.js';

/** A SELECT over a snapshot's rows; its local files stay readable until `release()`. */
export interface DeltaScan {
  /** A query with the table's columns in schema order, typed as the schema says. */
  sql: string;
  snapshot: DeltaSnapshot;
  /** Where DuckDB reads each active file, for per-file queries (e.g. which files hold which rows). */
  localFiles: { file: DeltaFile; localPath: string }[];
  release(): void;
}

/** A temporary view over a snapshot in one connection; `release()` drops it. */
export interface DeltaView {
  name: string;
  snapshot: DeltaSnapshot;
  release(): Promise<void>;
}

function parquetSource(paths: readonly string[]): string {
  // Partition values come from the log only, never from directory names.
  return `read_parquet(${stringList(paths)}, union_by_name = true, hive_partitioning = false)`;
}

/**
 * The columns each `read_parquet` source has (lower-cased name to name), by source. Files are
 * immutable, so a caller that reads one snapshot again can keep this and skip reading footers.
 */
export type ParquetColumnsMemo = Map<string, Map<string, string>>;

/**
 * Builds the query over a snapshot's files: one `read_parquet` per distinct set of partition
 * values, with the partition columns as typed literals (so a filter on them drops whole groups),
 * columns a group's files lack (added by schema evolution) as typed NULLs, and every column cast
 * to its schema type. Reads only Parquet footers; the data stays on disk until the query runs.
 */
export async function openScan(
  engine: DeltaEngine,
  connection: SqlConnection,
  snapshot: DeltaSnapshot,
  memo?: ParquetColumnsMemo,
): Promise<DeltaScan> {
  const fields = snapshot.schema.fields;
  const partitionColumns = new Set(snapshot.partitionColumns);
  if (snapshot.files.length === 0) {
    const columns = fields.map((field) => `CAST(NULL AS ${sqlTypeOf(field.type)}) AS ${quoteIdentifier(field.name)}`);
    return { sql: `SELECT ${columns.join(', ')} LIMIT 0`, snapshot, localFiles: [], release: () => undefined };
  }
  const lease = await engine.files.acquire(snapshot.files.map((file) => ({ key: file.key, size: file.size })));
  try {
    const groups = new Map<string, { file: DeltaFile; paths: string[] }>();
    snapshot.files.forEach((file, index) => {
      const id = JSON.stringify(snapshot.partitionColumns.map((column) => file.partitionValues[column] ?? null));
      const group = groups.get(id) ?? { file, paths: [] };
      group.paths.push(lease.paths[index]!);
      groups.set(id, group);
    });
    if (groups.size > MAX_SCAN_GROUPS) {
      return {
        sql: await oneSourceScan(connection, snapshot, lease.paths, memo),
        snapshot,
        localFiles: snapshot.files.map((file, index) => ({ file, localPath: lease.paths[index]! })),
        release: () => lease.release(),
      };
    }
    const selects: string[] = [];
    for (const { file, paths } of groups.values()) {
      const source = parquetSource(paths);
      const present = await presentColumns(connection, source, memo);
      const columns = fields.map((field) => {
        const name = quoteIdentifier(field.name);
        if (partitionColumns.has(field.name)) {
          return `${partitionValueSql(file.partitionValues[field.name], field.type, field.name)} AS ${name}`;
        }
        return storedColumnSql(field, present);
      });
      selects.push(`SELECT ${columns.join(', ')} FROM ${source}`);
    }
    return {
      sql: selects.join('\nUNION ALL\n'),
      snapshot,
      localFiles: snapshot.files.map((file, index) => ({ file, localPath: lease.paths[index]! })),
      release: () => lease.release(),
    };
  } catch (error) {
    lease.release();
    throw error;
  }
}

/**
 * Partition groups above which a scan reads every file with one `read_parquet`. DuckDB keeps each
 * `read_parquet` of a query open while it runs, so a table of one file per partition value (an
 * image collection: one file per image) with thousands of files ran out of file descriptors
 * ("Too many open files", a 500 for its preview at 10,000 images).
 */
export const MAX_SCAN_GROUPS = 256;

/**
 * A column the Parquet files store, as the table's type under the table's name (files may spell
 * it in another case); NULL where the files lack it (a column added after they were written).
 */
function storedColumnSql(field: DeltaSnapshot['schema']['fields'][number], present: Map<string, string>): string {
  const name = quoteIdentifier(field.name);
  const type = sqlTypeOf(field.type);
  const physical = present.get(field.name.toLowerCase());
  return physical === undefined
    ? `CAST(NULL AS ${type}) AS ${name}`
    : `CAST(${quoteIdentifier(physical)} AS ${type}) AS ${name}`;
}

/** The columns a `read_parquet` source has, lower-cased name to name (from `memo` when it has them). */
async function presentColumns(
  connection: SqlConnection,
  source: string,
  memo: ParquetColumnsMemo | undefined,
): Promise<Map<string, string>> {
  const present =
    memo?.get(source) ??
    new Map(
      (await connection.describe(`SELECT * FROM ${source}`)).map((column) => [column.name.toLowerCase(), column.name]),
    );
  memo?.set(source, present);
  return present;
}

/**
 * The scan of a table of many partition groups as one `read_parquet` over every file (in the
 * snapshot's order), each row's partition values picked from a list by its `file_index`. A filter
 * on a partition column no longer drops whole files here; the files are read in one pass.
 */
async function oneSourceScan(
  connection: SqlConnection,
  snapshot: DeltaSnapshot,
  paths: readonly string[],
  memo: ParquetColumnsMemo | undefined,
): Promise<string> {
  const source = parquetSource(paths);
  const present = await presentColumns(connection, source, memo);
  const partitionColumns = new Set(snapshot.partitionColumns);
  const columns = snapshot.schema.fields.map((field) => {
    const name = quoteIdentifier(field.name);
    const type = sqlTypeOf(field.type);
    if (partitionColumns.has(field.name)) {
      const values = snapshot.files.map((file) =>
        partitionValueSql(file.partitionValues[field.name], field.type, field.name),
      );
      return `CAST([${values.join(', ')}][CAST(file_index AS BIGINT) + 1] AS ${type}) AS ${name}`;
    }
    return storedColumnSql(field, present);
  });
  return `SELECT ${columns.join(', ')} FROM ${source}`;
}

/**
 * Creates (or replaces) a temporary view named `name` in the connection over a snapshot, so any
 * SQL can run over the table without loading it into Node's memory.
 */
export async function createDeltaView(
  engine: DeltaEngine,
  connection: SqlConnection,
  name: string,
  snapshot: DeltaSnapshot,
): Promise<DeltaView> {
  const scan = await openScan(engine, connection, snapshot);
  try {
    await connection.run(`CREATE OR REPLACE TEMP VIEW ${quoteIdentifier(name)} AS ${scan.sql}`);
  } catch (error) {
    scan.release();
    throw error;
  }
  let released = false;
  return {
    name,
    snapshot,
    async release() {
      if (released) return;
      released = true;
      try {
        await connection.run(`DROP VIEW IF EXISTS ${quoteIdentifier(name)}`);
      } finally {
        scan.release();
      }
    },
  };
}
