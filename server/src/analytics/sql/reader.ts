import type { DataCollectionsTable } from '../../db/tables.js';
import type { DeltaSnapshot } from '../../engine/delta/index.js';
import { type DeltaTable, DeltaTableNotFound, DeltaVersionNotFound, sqlTypeOf } from '../../engine/delta/index.js';
import { formatType } from '../../engine/delta/schema.js';
import type { DuckDB, SqlConnection } from '../../engine/duckdb.js';
import type { NativeCopies } from '../../engine/native-copies.js';
import type { SnapshotCache, TableVersion } from '../../engine/snapshot-cache.js';
import { quoteIdentifier } from '../../engine/sql.js';
import { DomainError } from '../../errors.js';
import type { ObjectStorage } from '../../storage/storage.js';
import { type Column, isNumeric, kindOf, type TableSnapshot } from './columns.js';

/** What reading a collection's table needs, handed over by the composition root (context.ts). */
export interface TableReaderDeps {
  duckdb: Pick<DuckDB, 'withConnection'>;
  /** Where the table's data files live (checked when a read fails). */
  storage: Pick<ObjectStorage, 'head'>;
  /** The Delta table holding a data collection's rows. */
  tableOf(dataCollectionId: string): DeltaTable;
  /** Table versions already read. */
  snapshots: Pick<SnapshotCache, 'get'>;
  /** DuckDB-native copies of large versions, read in place of their Parquet files once built. */
  copies?: Pick<NativeCopies, 'acquire'>;
}

const ROWS = quoteIdentifier('dc_rows');

/** Loads a collection's snapshot and runs statements over its rows in DuckDB. */
export class TableReader {
  constructor(private readonly deps: TableReaderDeps) {}

  /** Loads the snapshot of a collection's table (null while there is no table). */
  async load(row: DataCollectionsTable, version: number | undefined): Promise<TableSnapshot> {
    const id = row.id;
    const table = this.deps.tableOf(id);
    let read: TableVersion | null;
    try {
      read = await this.deps.snapshots.get(table, version);
    } catch (error) {
      if (error instanceof DeltaTableNotFound) read = null;
      else if (error instanceof DeltaVersionNotFound) {
        throw new DomainError('not_found', `version ${version} of the data collection's table does not exist`);
      } else throw error;
    }
    const snapshot = read?.snapshot ?? null;
    const columns: Column[] = (snapshot?.schema.fields ?? []).map((field) => ({
      name: field.name,
      sql: quoteIdentifier(field.name),
      type: field.type,
      typeName: formatType(field.type),
      sqlType: sqlTypeOf(field.type),
      kind: kindOf(field.type),
      nullable: field.nullable,
    }));
    return {
      row,
      table,
      snapshot,
      version: read,
      columns,
      byName: new Map(columns.map((column) => [column.name, column])),
    };
  }

  /**
   * Runs work over the snapshot's rows in a connection of its own; `from` is the scan as a
   * subquery (not a view: creating and dropping one would be two more statements per request).
   * `fileOrder` is what to ORDER BY for the rows in the order of the version's files ('' when
   * `from` already reads them so): readers that show rows unsorted must use it.
   */
  async withRows<T>(
    source: TableSnapshot,
    work: (connection: SqlConnection, from: string, fileOrder: string) => Promise<T>,
  ): Promise<T> {
    const snapshot = source.snapshot;
    if (snapshot === null) throw new Error('no snapshot to query');
    const copy = this.deps.copies?.acquire(
      copyKey(snapshot),
      { rows: source.version?.rows ?? null, files: snapshot.files.length },
      clusterExpressions(source),
      (connection) => source.table.scan(connection, snapshot, source.version?.columns),
    );
    if (copy !== null && copy !== undefined) {
      try {
        return await this.deps.duckdb.withConnection((connection) =>
          work(connection, `${copy.relation} AS ${ROWS}`, copy.fileOrder),
        );
      } finally {
        copy.release();
      }
    }
    try {
      return await this.deps.duckdb.withConnection(async (connection) => {
        const scan = await source.table.scan(connection, snapshot, source.version?.columns);
        try {
          return await work(connection, `(${scan.sql}) AS ${ROWS}`, '');
        } finally {
          scan.release();
        }
      });
    } catch (error) {
      // Time travel past the vacuum retention: the log still lists the version, its files are gone.
      const missing = await firstMissingFile(this.deps.storage, snapshot.files);
      if (missing === null) throw error;
      throw new DomainError(
        'not_found',
        `version ${snapshot.version} of the data collection's table can no longer be read: vacuum removed its data files (versions older than the retention)`,
      );
    }
  }

  /**
   * The copy of the snapshot's rows that `derivation` (a SELECT over them as "dc_rows", keeping
   * their columns) makes, once built; null meanwhile, or for versions that get no native copy.
   * The first ask builds it in the background, as a native copy of its own (evicted with the
   * others): a component reads it for per-row values computed once per version instead of at
   * every filter change. The derivation is part of the key, so a copy only serves what made it.
   */
  derivedCopy(source: TableSnapshot, derivation: string): DerivedCopy | null {
    const snapshot = source.snapshot;
    if (snapshot === null || this.deps.copies === undefined) return null;
    const copy = this.deps.copies.acquire(
      `${copyKey(snapshot)}\u0000${derivation}`,
      { rows: source.version?.rows ?? null, files: snapshot.files.length },
      // Clustered as the version's own copy is: a range filter then skips the row groups it excludes.
      clusterExpressions(source),
      async (connection) => {
        const scan = await source.table.scan(connection, snapshot, source.version?.columns);
        return { sql: `WITH ${ROWS} AS (${scan.sql}) ${derivation}`, release: () => scan.release() };
      },
    );
    return copy === null ? null : { from: `${copy.relation} AS ${ROWS}`, release: () => copy.release() };
  }
}

/** A copy of a version's rows with columns of a reader's own, read as `from` until released. */
export interface DerivedCopy {
  /** The copy's table as the rows' subquery would be (aliased as it). */
  from: string;
  release(): void;
}

/** The source's clustering columns as numbers (times as epoch seconds); other kinds are left out. */
function clusterExpressions(source: TableSnapshot): string[] {
  return (source.clusterBy ?? []).flatMap((name) => {
    const column = source.byName.get(name);
    if (column === undefined) return [];
    if (isNumeric(column)) return [column.sql];
    if (column.kind === 'date' || column.kind === 'timestamp') {
      return [`CASE WHEN isfinite(${column.sql}) THEN epoch(${column.sql}) END`];
    }
    return [];
  });
}

const copyKeys = new WeakMap<DeltaSnapshot, string>();

/**
 * What identifies a version's rows for its native copy: the table, the version and its files
 * (a table dropped and written again starts over at version 0, with other files).
 */
function copyKey(snapshot: DeltaSnapshot): string {
  let key = copyKeys.get(snapshot);
  if (key === undefined) {
    key = [snapshot.root, snapshot.version, ...snapshot.files.map((file) => file.key)].join('\u0000');
    copyKeys.set(snapshot, key);
  }
  return key;
}

/** Whether any data file of a snapshot is gone from storage (asked only after a read failed). */
async function firstMissingFile(
  storage: Pick<ObjectStorage, 'head'>,
  files: readonly { key: string }[],
): Promise<string | null> {
  for (const file of files) if ((await storage.head(file.key)) === null) return file.key;
  return null;
}
