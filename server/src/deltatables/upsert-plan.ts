import type { FilesTable } from '../db/tables.js';
import type { CommitRequest, DeltaFile, NewDataFile, StructType } from '../engine/delta/index.js';
import type { SqlColumn } from '../engine/duckdb.js';
import { DomainError } from '../errors.js';
import { mergeColumns, sqlTypeText } from './schema-merge.js';
import { FILE_ID, RUN_ID } from './sources.js';

/**
 * Both are constant within a data file (one data file per source file), so they are partition
 * values, stored once per file in the log rather than on every row of the Parquet file. Tables
 * written before `_run_id` became one hold it as a data column; their next write rewrites them.
 */
export const PARTITION_COLUMNS = [FILE_ID, RUN_ID];

/** What an upsert starts from: the collection's files, the table's files, what the table last took in. */
export interface UpsertState<File extends Pick<FilesTable, 'id' | 'sha256'>> {
  /** The collection's registered files (tree files aside). */
  registered: File[];
  /** The files the request names, or all of them. */
  fileIds?: readonly string[] | undefined;
  overwrite?: boolean | undefined;
  /** The table's active data files, or null when there is no table yet. */
  tableFiles: readonly Pick<DeltaFile, 'path' | 'partitionValues'>[] | null;
  /** Source file id → the content (sha256) the table holds of it. */
  recorded: ReadonlyMap<string, string>;
}

export interface UpsertPlan<File> {
  /** Every file is written anew and the table's old files all go (a first write, or an overwrite). */
  overwrite: boolean;
  /** The files to read: those wanted whose content the table does not hold yet. */
  changed: File[];
  /** Source files no longer registered, whose rows are dropped. */
  gone: string[];
  /** Source file id → the table's data files that hold its rows. */
  dataFilesOf: Map<string, string[]>;
  /** Nothing to read and nothing to drop: the table stays as it is. */
  unchanged: boolean;
}

/** Which files to read and which rows to drop; pure, so it is tested without DuckDB. */
export function planUpsert<File extends Pick<FilesTable, 'id' | 'sha256'>>(state: UpsertState<File>): UpsertPlan<File> {
  const { registered, fileIds, recorded, tableFiles } = state;
  const wanted = fileIds === undefined ? registered : chosenFiles(registered, fileIds);
  const dataFilesOf = new Map<string, string[]>();
  for (const file of tableFiles ?? []) {
    const source = file.partitionValues[FILE_ID] ?? '';
    dataFilesOf.set(source, [...(dataFilesOf.get(source) ?? []), file.path]);
  }
  const overwrite = state.overwrite === true || tableFiles === null;
  const changed = overwrite ? wanted : wanted.filter((file) => recorded.get(file.id) !== file.sha256);
  const registeredIds = new Set(registered.map((file) => file.id));
  // Without a file list, the table follows the registered files: rows of files gone are dropped.
  const gone =
    fileIds === undefined
      ? [...new Set([...dataFilesOf.keys(), ...recorded.keys()])].filter((id) => !registeredIds.has(id))
      : [];
  return { overwrite, changed, gone, dataFilesOf, unchanged: !overwrite && changed.length === 0 && gone.length === 0 };
}

/**
 * The table's columns from now on: today's (`existing`), widened and extended by the new files'.
 * An overwrite starts from the files alone (no `existing`), so it may change a column's type.
 */
export function planColumns(
  existing: readonly SqlColumn[],
  sources: readonly { file: { path: string }; columns: SqlColumn[] }[],
  keys: readonly string[] | null,
): SqlColumn[] {
  let columns = existing.filter((column) => column.name !== FILE_ID);
  for (const source of sources) {
    const merged = mergeColumns(columns, source.columns);
    if (merged.conflict) {
      const { column, existing: had, incoming } = merged.conflict;
      throw new DomainError(
        'validation_failed',
        `${source.file.path}: column ${column} holds ${incoming} where the table holds ${had}; the types cannot be combined without losing data`,
        [{ path: source.file.path, message: `column ${column}: ${incoming} does not fit ${had}` }],
      );
    }
    columns = merged.columns;
  }
  for (const key of keys ?? []) {
    if (!columns.some((column) => column.name === key)) {
      throw new DomainError('validation_failed', `the key column ${key} is in none of the files`, [
        { path: 'keys', message: `no column ${key}` },
      ]);
    }
  }
  return columns;
}

export interface Rewrite {
  /** The table still holds the run id in its data files: they move it into partition values. */
  runIdInData: boolean;
  /** Every data file kept must be rewritten (a column widened, or the run id moves). */
  rewriteAll: boolean;
}

/** Whether the data files the upsert keeps must be rewritten, and why. */
export function planRewrite(
  existing: readonly SqlColumn[],
  columns: readonly SqlColumn[],
  partitionColumns: readonly string[] | null,
  overwrite: boolean,
): Rewrite {
  // A column whose type widened means the old data files must be rewritten too.
  const widened = existing.some((old) => {
    const now = columns.find((column) => column.name === old.name);
    return now !== undefined && sqlTypeText(now.type) !== sqlTypeText(old.type);
  });
  const runIdInData = partitionColumns !== null && !partitionColumns.includes(RUN_ID);
  return { runIdInData, rewriteAll: !overwrite && (widened || runIdInData) };
}

export interface UpsertCommit {
  overwrite: boolean;
  merge: boolean;
  rewrite: Rewrite;
  /** How many data files the table has now (before this commit). */
  tableFileCount: number;
  add: NewDataFile[];
  remove: ReadonlySet<string>;
  /** The schema of the columns written, `_file_id` aside. */
  schema: StructType;
}

/** The one commit of an upsert: the files written, the files replaced, the schema from now on. */
export function upsertCommit(change: UpsertCommit): Omit<CommitRequest, 'tableId' | 'root'> {
  const { overwrite, rewrite, schema } = change;
  const fileIdField = { name: FILE_ID, type: 'string' as const, nullable: true, metadata: {} };
  return {
    operation: overwrite ? 'WRITE' : change.merge ? 'MERGE' : 'WRITE',
    operationParameters: { mode: overwrite ? 'Overwrite' : 'Append', source: 'upsert' },
    add: change.add,
    // An empty table in the old layout has no file to list, yet its partition columns change.
    ...(overwrite || (rewrite.runIdInData && change.tableFileCount === 0)
      ? { removeAll: true }
      : { remove: [...change.remove] }),
    // Accepted by the writer only when every file is replaced (an overwrite, or the rewrite).
    ...(overwrite || rewrite.runIdInData ? { partitionColumns: PARTITION_COLUMNS } : {}),
    schema: { ...schema, fields: [...schema.fields, fileIdField] },
  };
}

/**
 * The registered files among `fileIds`; any other id (missing, or a file of another collection or
 * user) is refused with the same answer, so it tells nothing of what exists elsewhere.
 */
export function chosenFiles<File extends { id: string }>(registered: File[], fileIds: readonly string[]): File[] {
  const unknown = fileIds.filter((id) => !registered.some((file) => file.id === id));
  if (unknown.length > 0) {
    throw new DomainError(
      'validation_failed',
      'some files are not registered files of this data collection',
      unknown.map((id) => ({ path: 'body.file_ids', message: `unknown file ${id}` })),
    );
  }
  return registered.filter((file) => fileIds.includes(file.id));
}
