import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DataCollectionsTable } from '../db/tables.js';
import {
  type DeltaSnapshot,
  type DeltaTable,
  deltaSchemaOf,
  type NewDataFile,
  type StructType,
  writableSelectList,
} from '../engine/delta/index.js';
import type { DuckDB, SqlColumn, SqlConnection } from '../engine/duckdb.js';
import { quoteIdentifier, quoteString } from '../engine/sql.js';
import { sqlTypeText } from './schema-merge.js';
import {
  FILE_ID,
  type FileView,
  RUN_ID,
  readingRefusal,
  readSources,
  runIdInFile,
  type SourceFile,
  type SourceReading,
} from './sources.js';
import type { Rewrite } from './upsert-plan.js';

/** The columns the table has from now on, and its merge keys (null: rows are only appended). */
export interface UpsertLayout {
  columns: SqlColumn[];
  keys: string[] | null;
}

/**
 * The SQL of one upsert attempt: one DuckDB connection and a work directory where the new Parquet
 * files are written, one per source file, before the commit takes them (`add`) and drops the data
 * files they replace (`remove`). `close` releases everything, whether the attempt committed or not.
 */
export class UpsertWriter {
  readonly add: NewDataFile[] = [];
  readonly remove = new Set<string>();
  /** Local paths DuckDB reads → the files' own paths, to name them in errors without revealing where they sit. */
  private readonly names = new Map<string, string>();
  private readonly leases: { release(): void }[] = [];

  private constructor(
    private readonly connection: SqlConnection,
    private readonly workDirectory: string,
  ) {}

  static async open(dataDir: string, duckdb: Pick<DuckDB, 'connect'>): Promise<UpsertWriter> {
    const workDirectory = join(dataDir, 'tmp', `upsert-${randomUUID()}`);
    await mkdir(workDirectory, { recursive: true });
    return new UpsertWriter(await duckdb.connect(), workDirectory);
  }

  /** The files to read, as temporary views (see `readSources`). */
  readSources(
    reading: Omit<SourceReading, 'connection' | 'leases' | 'names'>,
    files: SourceFile[],
  ): Promise<FileView[]> {
    return readSources({ ...reading, connection: this.connection, leases: this.leases, names: this.names }, files);
  }

  /** The columns of the table as it is. */
  async tableColumns(table: DeltaTable): Promise<SqlColumn[]> {
    const view = await table.view(this.connection, `__current_${randomUUID().replaceAll('-', '')}`);
    try {
      return await this.connection.describe(`SELECT * FROM ${view.name}`);
    } finally {
      await view.release();
    }
  }

  /**
   * One data file per source file. With keys, a later file's row wins over an earlier file's row
   * with the same key; the rows are staged in `__incoming`, which `keepExistingRows` compares with.
   */
  async writeNewRows(
    sources: FileView[],
    layout: UpsertLayout,
    dataFilesOf: ReadonlyMap<string, readonly string[]>,
    signal?: AbortSignal,
  ): Promise<void> {
    if (layout.keys !== null && sources.length > 0) await this.stageIncoming(sources, layout);
    for (const [order, source] of sources.entries()) {
      signal?.throwIfAborted();
      const { id, run_id } = source.file;
      try {
        if (layout.keys === null) await this.write(layout, source.table, source.columns, id, run_id);
        else await this.write(layout, '__incoming', dataColumns(layout), id, run_id, `WHERE __order = ${order}`);
      } catch (error) {
        // The file is read while it is written: name it in whatever goes wrong.
        if (error instanceof Error) error.message = `${source.file.path}: ${error.message}`;
        throw error;
      }
      this.removeAll(dataFilesOf.get(id));
    }
  }

  /** The data files of these source files go (their source file is gone, or its rows were just rewritten). */
  removeAll(paths: readonly string[] | undefined): void {
    for (const path of paths ?? []) this.remove.add(path);
  }

  /**
   * Existing rows that stay: untouched files are kept as they are, unless a merge removes some of
   * their rows (then the file is rewritten without them) or every file must be rewritten.
   */
  async keepExistingRows(
    table: DeltaTable,
    snapshot: DeltaSnapshot,
    layout: UpsertLayout,
    rewrite: Rewrite,
    incoming: boolean,
  ): Promise<void> {
    const scan = await table.scan(this.connection, snapshot);
    this.leases.push(scan);
    const keyList = keyListOf(layout);
    const collides = layout.keys !== null && incoming ? `(${keyList}) IN (SELECT (${keyList}) FROM __incoming)` : null;
    for (const { file, localPath } of scan.localFiles) {
      if (this.remove.has(file.path)) continue;
      const relation = `read_parquet(${quoteString(localPath)})`;
      if (collides !== null && !rewrite.rewriteAll && !(await this.any(relation, collides))) continue;
      const fileColumns = await this.connection.describe(`SELECT * FROM ${relation}`);
      const fileId = file.partitionValues[FILE_ID] ?? '';
      const runId = rewrite.runIdInData
        ? await runIdInFile(this.connection, relation)
        : (file.partitionValues[RUN_ID] ?? null);
      // coalesce: a row whose key is NULL matches nothing and stays.
      const where = collides === null ? '' : `WHERE NOT coalesce(${collides}, false)`;
      await this.write(layout, relation, fileColumns, fileId, runId, where);
      this.remove.add(file.path);
    }
  }

  /** The Delta schema of these columns, as DuckDB types them. */
  async schemaOf(columns: SqlColumn[]): Promise<StructType> {
    return deltaSchemaOf(await this.connection.describe(select('(SELECT 1)', [], '', columns)));
  }

  /** The refusal to answer for an error met while reading the files, if it is one (see `readingRefusal`). */
  refusal(error: unknown, collection: DataCollectionsTable): Promise<Error | null> {
    return readingRefusal(error, this.connection, collection, this.names);
  }

  async close(): Promise<void> {
    for (const lease of this.leases) lease.release();
    this.connection.close();
    await rm(this.workDirectory, { recursive: true, force: true });
  }

  private async stageIncoming(sources: FileView[], layout: UpsertLayout): Promise<void> {
    const union = sources
      .map(
        (source, order) =>
          `SELECT *, ${order} AS __order FROM (${select(source.table, source.columns, '', dataColumns(layout))}) AS s${order}`,
      )
      .join(' UNION ALL BY NAME ');
    const keyList = keyListOf(layout);
    await this.connection.run(
      `CREATE TEMP TABLE __incoming AS SELECT * EXCLUDE (__rank) FROM (SELECT *, row_number() OVER (PARTITION BY ${keyList} ORDER BY __order DESC) AS __rank FROM (${union})) WHERE __rank = 1`,
    );
  }

  /** Whether any row of the relation meets the condition. */
  private async any(relation: string, condition: string): Promise<boolean> {
    const [{ hit } = { hit: 0 }] = (await this.connection.query(
      `SELECT count(*)::INTEGER AS hit FROM ${relation} WHERE ${condition}`,
    )) as { hit: number }[];
    return hit > 0;
  }

  /** Writes the rows as one Parquet file, to be added unless it holds none. */
  private async write(
    layout: UpsertLayout,
    relation: string,
    available: SqlColumn[],
    fileId: string,
    runId: string | null,
    where = '',
  ): Promise<void> {
    const path = join(this.workDirectory, `${randomUUID()}.parquet`);
    const rows = select(relation, available, where, dataColumns(layout));
    await this.connection.run(`COPY (${rows}) TO ${quoteString(path)} (FORMAT parquet)`);
    const [{ n } = { n: 0 }] = (await this.connection.query(
      `SELECT count(*)::INTEGER AS n FROM read_parquet(${quoteString(path)})`,
    )) as { n: number }[];
    // The file is ours (in the work directory): local storage takes it as it is, without a copy.
    if (n > 0) this.add.push({ localPath: path, partitionValues: { [FILE_ID]: fileId, [RUN_ID]: runId }, move: true });
  }
}

/** What the Parquet files hold: every column but the partition values. */
function dataColumns(layout: UpsertLayout): SqlColumn[] {
  return layout.columns.filter((column) => column.name !== RUN_ID);
}

function keyListOf(layout: UpsertLayout): string {
  return (layout.keys ?? []).map(quoteIdentifier).join(', ');
}

/** The relation's rows in the `wanted` columns, cast to their types; a column it lacks is NULL. */
function select(relation: string, available: SqlColumn[], where: string, wanted: SqlColumn[]): string {
  const casts = wanted.map((column) => {
    const has = available.some((candidate) => candidate.name === column.name);
    return `CAST(${has ? quoteIdentifier(column.name) : 'NULL'} AS ${sqlTypeText(column.type)}) AS ${quoteIdentifier(column.name)}`;
  });
  return `SELECT ${writableSelectList(wanted)} FROM (SELECT ${casts.join(', ')} FROM ${relation} ${where})`;
}
