import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  AggregateAnswer,
  AggregateRequest,
  ComponentData,
  DownloadFormat,
  Filter,
  ImageComponent,
  PreviewAnswer,
  SortKey,
  SummaryAnswer,
  TableColumnFilter,
  TableComponent,
  TableSchemaAnswer,
  ValuesAnswer,
} from '@service/common';
import {
  type AnalyticComponent,
  aggregate,
  type ComputeOptions,
  colorScaleProblems,
  columnFiltered,
  columnFilterMatches,
  componentData,
  type DataComponent,
  type Download,
  dataProblems,
  describe,
  distinctValues,
  download,
  EXACT_BOX_VALUES,
  EXACT_QUANTILE_ROWS,
  everyRow,
  type FitProblem,
  fitProblems,
  galleryPage,
  type Narrowing,
  narrowedCsv,
  onlyColumns,
  type PageQuery,
  page,
  profile,
  readerColumns,
  type SharedScalars,
  Statement,
  scalarNeeds,
  selectByProblems,
  selectionCarry,
  sharedPass,
  summarize,
  TableReader,
  type TableReaderDeps,
  type TableSnapshot,
  type TreeInput,
  tableExtras,
  tableVersions,
  WholeTableMemo,
  whereOf,
  withNarrowedRows,
} from '../analytics/index.js';
import type { DataCollectionsTable } from '../db/tables.js';
import type { Actor } from '../policy/actor.js';
import type { ObjectStorage } from '../storage/storage.js';
import type { DataCollectionsService } from './service.js';

export type {
  AnalyticComponent,
  DataComponent,
  Download,
  FitProblem,
  SharedScalars,
  TableSnapshot,
} from '../analytics/index.js';

/**
 * What the queries use, handed over by the composition root (context.ts) rather than the whole
 * application context, so that this module and its callers (dashboards, routes) don't import it.
 */
export interface DataCollectionQueriesDeps extends TableReaderDeps {
  /** Decides read access to a collection. */
  dataCollections: Pick<DataCollectionsService, 'access'>;
  storage: Pick<ObjectStorage, 'head' | 'getBuffer'>;
  /** Where temporary files go (downloads use a `downloads` folder inside); the OS's when undefined. */
  tempDirectory: string | undefined;
  /** Rows up to which dashboard quantiles are exact (see `Config.dashboards`). */
  exactQuantileRows?: number;
  /** Rows under the filters up to which box plots' quartiles are exact (see `Config.dashboards`). */
  exactBoxValues?: number;
}

/**
 * Read-only queries over a data collection's Delta table (docs/architecture.md "Data collections"): each runs in DuckDB over a view of
 * the snapshot's Parquet files, with filters in SQL (pushed down into the scans), values bound as
 * parameters, column names checked against the schema and quoted, and answers capped. This class
 * checks access and loads the snapshot; the SQL of each concern lives in `analytics/`.
 */
export class DataCollectionQueries {
  private readonly downloadDirectory: string;
  private readonly reader: TableReader;
  private readonly wholeTable = new WholeTableMemo();

  constructor(private readonly deps: DataCollectionQueriesDeps) {
    this.downloadDirectory = join(deps.tempDirectory ?? tmpdir(), 'downloads');
    this.reader = new TableReader(deps);
  }

  async schema(actor: Actor, id: string, version?: number): Promise<TableSchemaAnswer> {
    const source = await this.open(actor, id, version);
    return { version: source.snapshot?.version ?? null, columns: describe(source) };
  }

  async preview(
    actor: Actor,
    id: string,
    query: PageQuery & { filters?: Filter[]; version?: number },
  ): Promise<PreviewAnswer> {
    return page(this.reader, await this.open(actor, id, query.version), query);
  }

  /**
   * A page of the rows of a snapshot the caller was authorized for elsewhere (a dashboard's table
   * component), narrowed by the dashboard's filters and the table's column filters (400 at
   * `querystring.column_filters` for a column it does not show or a filter its type does not
   * take), showing only the component's `columns` (in that order) when given; columns the table no
   * longer has are left out, and `sort` may only name shown columns.
   */
  async componentPage(
    source: TableSnapshot,
    component: Pick<TableComponent, 'columns' | 'color_scales' | 'select_by'>,
    query: PageQuery & { column_filters?: readonly TableColumnFilter[] | undefined },
    narrowing: Narrowing = everyRow,
  ) {
    const shown = component.columns === undefined ? source : onlyColumns(source, component.columns);
    const matches = columnFilterMatches(shown, query.column_filters ?? [], 'querystring.column_filters');
    const carry = selectionCarry(source, shown, component);
    const [answer, extras] = await Promise.all([
      page(this.reader, shown, { ...query, carry }, columnFiltered(narrowing, matches)),
      tableExtras(this.reader, source, shown, component, this.wholeTable),
    ]);
    return { ...answer, ...extras };
  }

  /** A page of a gallery (an image component, authorized by its dashboard) under the dashboard's filters. */
  galleryPage(
    source: TableSnapshot,
    component: ImageComponent,
    at: { skip: number; limit?: number | undefined },
    narrowing?: Narrowing,
  ) {
    return galleryPage(this.reader, source, component, at, narrowing);
  }

  /**
   * The snapshot of a collection's table a dashboard reads (authorized by the dashboard), at
   * `version` or the current one; its `snapshot` is null while there is no table.
   */
  snapshotOf(row: DataCollectionsTable, version?: number): Promise<TableSnapshot> {
    return this.reader.load(row, version);
  }

  /** Why a component cannot be computed from the snapshot's columns (none: it can). */
  fitProblems(source: TableSnapshot, component: AnalyticComponent | TableComponent): FitProblem[] {
    return component.type === 'table'
      ? [...colorScaleProblems(source.byName, component), ...selectByProblems(source.byName, component)]
      : fitProblems(source.byName, component);
  }

  /** What a figure's columns hold that it cannot draw (read from the table; its columns fit). */
  dataProblems(source: TableSnapshot, component: AnalyticComponent): Promise<FitProblem[]> {
    return component.type === 'figure' ? dataProblems(this.reader, source, component) : Promise.resolve([]);
  }

  /**
   * One dashboard component's data over a snapshot, narrowed by the dashboard's filters, with the
   * aggregates the request computed once for several components (`sharedScalars`).
   */
  componentData(
    source: TableSnapshot,
    component: DataComponent,
    narrowing: Narrowing,
    shared?: SharedScalars,
    tree?: TreeInput,
  ): Promise<ComponentData> {
    const options = { ...this.computeOptions(), shared, ...(tree === undefined ? {} : { tree }) };
    return componentData(this.reader, source, component, narrowing, options);
  }

  /** The aggregates over its narrowed rows a component will ask for, to compute once with others'. */
  scalarNeeds(source: TableSnapshot, component: DataComponent): string[] {
    return scalarNeeds(source, component, this.computeOptions());
  }

  /** Aggregates over a snapshot's rows narrowed by a dashboard's filters, in one scan. */
  sharedScalars(source: TableSnapshot, narrowing: Narrowing, expressions: readonly string[]) {
    return sharedPass(this.reader, source, narrowing, expressions);
  }

  /**
   * The distinct values of `column` per run in the rows a dashboard's filters leave, or null when
   * no filter narrows the rows (a MultiQC plot then draws every sample of its reports).
   */
  async narrowedValuesByRun(
    source: TableSnapshot,
    column: string,
    narrowing: Narrowing,
  ): Promise<Map<string, Set<string>> | null> {
    const target = source.byName.get(column);
    const run = source.byName.get('_run_id');
    if (source.snapshot === null || target === undefined || run === undefined) return null;
    const statement = new Statement();
    return withNarrowedRows(this.reader, source, narrowing, statement, async ({ connection, from, conditions }) => {
      if (conditions.length === 0) return null;
      const rows = await connection.query(
        `SELECT DISTINCT ${run.sql}::VARCHAR AS "run", ${target.sql}::VARCHAR AS "value" FROM ${from}${whereOf(conditions)}`,
        statement.params,
      );
      const byRun = new Map<string, Set<string>>();
      for (const row of rows) {
        if (typeof row.run !== 'string' || typeof row.value !== 'string') continue;
        const values = byRun.get(row.run) ?? new Set<string>();
        values.add(row.value);
        byRun.set(row.run, values);
      }
      return byRun;
    });
  }

  private computeOptions(): ComputeOptions {
    return {
      exactQuantileRows: this.deps.exactQuantileRows ?? EXACT_QUANTILE_ROWS,
      exactBoxValues: this.deps.exactBoxValues ?? EXACT_BOX_VALUES,
      memo: this.wholeTable,
    };
  }

  async summary(actor: Actor, id: string, version?: number): Promise<SummaryAnswer> {
    return summarize(this.reader, await this.open(actor, id, version));
  }

  /**
   * The generated overview's statistics beyond the summary (analytics `profile`): correlations of
   * numeric pairs and samples of candidate join keys' values, computed in DuckDB.
   */
  async profile(actor: Actor, id: string, request: Parameters<typeof profile>[2]) {
    return profile(this.reader, await this.open(actor, id, undefined), request);
  }

  /** Distinct values of a column with their counts; an unknown column is a 404 (it is in the path). */
  async values(
    actor: Actor,
    id: string,
    columnName: string,
    query: { limit: number; search?: string; filters?: Filter[]; version?: number },
  ): Promise<ValuesAnswer> {
    return distinctValues(this.reader, await this.open(actor, id, query.version), columnName, query);
  }

  async aggregate(actor: Actor, id: string, request: AggregateRequest): Promise<AggregateAnswer> {
    return aggregate(this.reader, await this.open(actor, id, request.version), request);
  }

  /** The (filtered) rows as a CSV or Parquet file, streamed and then removed. */
  async download(
    actor: Actor,
    id: string,
    query: { format: DownloadFormat; filters?: Filter[]; version?: number },
  ): Promise<Download> {
    return download(this.reader, await this.open(actor, id, query.version), query, this.downloadDirectory);
  }

  /**
   * A dashboard table component's rows as CSV (authorized by the dashboard, like `componentPage`):
   * all of them under its filters, its `columns` only (those the table still has), in `sort`'s
   * order; of those, the reader's (`query.columns`, in their order; 400 for one the table lacks).
   */
  componentCsv(
    source: TableSnapshot,
    columns: readonly string[] | undefined,
    query: {
      sort: SortKey[];
      column_filters?: readonly TableColumnFilter[] | undefined;
      columns?: readonly string[] | undefined;
    },
    narrowing: Narrowing,
  ) {
    const shown = columns === undefined ? source : onlyColumns(source, columns);
    const matches = columnFilterMatches(shown, query.column_filters ?? [], 'querystring.column_filters');
    const output = readerColumns(shown, query.columns, 'querystring.columns');
    const narrowed = columnFiltered(narrowing, matches);
    return narrowedCsv(this.reader, shown, query.sort, narrowed, this.downloadDirectory, output);
  }

  /** The table's commits, newest first. */
  async versions(actor: Actor, id: string, page: { limit: number; skip: number }) {
    await this.deps.dataCollections.access(actor, id, 'resource.read');
    return tableVersions(this.deps.tableOf(id), this.deps.storage, page);
  }

  /** The commits of a collection's table the caller was authorized for elsewhere (a dashboard). */
  componentVersions(id: string, page: { limit: number; skip: number }) {
    return tableVersions(this.deps.tableOf(id), this.deps.storage, page);
  }

  /** Checks read access and loads the snapshot (null while there is no table). */
  private async open(actor: Actor, id: string, version: number | undefined): Promise<TableSnapshot> {
    const { row } = await this.deps.dataCollections.access(actor, id, 'resource.read');
    return this.reader.load(row, version);
  }
}
