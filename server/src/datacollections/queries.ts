import { randomUUID } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  AggregateAnswer,
  AggregateRequest,
  ColumnSummary,
  DownloadFormat,
  Filter,
  FilterScalar,
  PreviewAnswer,
  QueryRow,
  SortKey,
  SummaryAnswer,
  TableColumn,
  TableSchemaAnswer,
  TableVersionEntry,
  ValuesAnswer,
} from '@service/common';
import type { AppContext } from '../context.js';
import type { DataCollectionsTable } from '../db/tables.js';
import {
  type DeltaSnapshot,
  type DeltaTable,
  DeltaTableNotFound,
  type DeltaType,
  DeltaVersionNotFound,
  type LogAction,
  parseCommit,
  parseStats,
  sqlTypeOf,
} from '../engine/delta/index.js';
import { commitKey } from '../engine/delta/log-files.js';
import { formatType } from '../engine/delta/schema.js';
import type { JsonValue, SqlConnection, SqlRow, SqlValue } from '../engine/duckdb.js';
import type { TableVersion } from '../engine/snapshot-cache.js';
import { quoteIdentifier, quoteString } from '../engine/sql.js';
import { DomainError } from '../errors.js';
import type { Actor } from '../policy/actor.js';
import { ObjectNotFound, type ObjectStorage } from '../storage/storage.js';

/** How a column's values behave in SQL and how they leave as JSON. */
type Kind = 'integer' | 'float' | 'decimal' | 'boolean' | 'string' | 'binary' | 'date' | 'timestamp' | 'nested';

interface Column {
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

function kindOf(type: DeltaType): Kind {
  if (typeof type !== 'string') return 'nested';
  return PRIMITIVE_KINDS[type] ?? (type.startsWith('decimal') ? 'decimal' : 'string');
}

const isNumeric = (column: Column) => column.kind === 'integer' || column.kind === 'float' || column.kind === 'decimal';
const isMap = (column: Column) => typeof column.type !== 'string' && column.type.type === 'map';

/** How a value of an answer column is turned into JSON (see `cellSchema` in common). */
type Output = 'integer' | 'timestamp' | 'plain';

function outputOf(kind: Kind): Output {
  if (kind === 'integer') return 'integer';
  if (kind === 'timestamp') return 'timestamp';
  return 'plain';
}

const INTEGER_TEXT = /^[+-]?\d+$/;
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DUCKDB_TIMESTAMP = /^(-?\d{4,}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)\+00$/;

/** Integers that fit a double exactly become numbers; timestamps (session time zone UTC) ISO-8601. */
function jsonValue(value: JsonValue | undefined, output: Output): JsonValue {
  if (value === undefined) return null;
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

function count(value: JsonValue | undefined): number {
  return Number(value ?? 0);
}

function invalid(path: string, message: string): DomainError {
  return new DomainError('validation_failed', `${path}: ${message}`, [{ path, message }]);
}

/** Which rows of a table a page shows. */
interface PageQuery {
  limit: number;
  skip: number;
  sort?: SortKey[] | undefined;
}

/** Where the rows of one request come from: the collection, its table, and the snapshot read. */
interface Source {
  row: DataCollectionsTable;
  table: DeltaTable;
  /** Null while the collection has no Delta table. */
  snapshot: DeltaSnapshot | null;
  /** What is known of the snapshot's version (row count, Parquet columns); null with the snapshot. */
  version: TableVersion | null;
  columns: Column[];
  byName: Map<string, Column>;
}

/** Parameters of one statement, and filter values that must be checked before they are cast. */
class Statement {
  readonly params: SqlValue[] = [];
  private readonly casts: { param: string; sqlType: string; path: string; text: string; column: Column }[] = [];

  param(value: SqlValue): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** `CAST($n AS type)` of a text that must be a valid value of the column's type. */
  cast(text: string, column: Column, path: string, sqlType = column.sqlType): string {
    const param = this.param(text);
    this.casts.push({ param, sqlType, path, text, column });
    return `CAST(${param} AS ${sqlType})`;
  }

  /** Refuses (400) a filter value that doesn't convert to its column's type, before any data is read. */
  async validate(connection: SqlConnection): Promise<void> {
    if (this.casts.length === 0) return;
    const checks = this.casts.map((cast, index) => `TRY_CAST($${index + 1} AS ${cast.sqlType}) IS NULL AS "${index}"`);
    const [result] = await connection.query(
      `SELECT ${checks.join(', ')}`,
      this.casts.map((cast) => cast.text),
    );
    this.casts.forEach((cast, index) => {
      if (result?.[String(index)] === true) {
        throw invalid(cast.path, `${JSON.stringify(cast.text)} is not a valid ${cast.column.typeName}`);
      }
    });
  }
}

/** A download ready to stream; the file is deleted once the stream closes. */
export interface Download {
  stream: ReadStream;
  size: number;
  filename: string;
  contentType: string;
}

const ROWS = quoteIdentifier('dc_rows');
const CONTENT_TYPES: Record<DownloadFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};

/**
 * Read-only queries over a data collection's Delta table (§8): each runs in DuckDB over a view of
 * the snapshot's Parquet files, with filters in SQL (pushed down into the scans), values bound as
 * parameters, column names checked against the schema and quoted, and answers capped.
 */
export class DataCollectionQueries {
  private readonly tempDirectory: string;

  constructor(
    private readonly context: Pick<AppContext, 'dataCollections' | 'duckdb' | 'delta' | 'tableOf' | 'snapshots'>,
  ) {
    this.tempDirectory = join(context.delta.tempDirectory ?? tmpdir(), 'downloads');
  }

  async schema(actor: Actor, id: string, version?: number): Promise<TableSchemaAnswer> {
    const source = await this.open(actor, id, version);
    return { version: source.snapshot?.version ?? null, columns: this.describe(source) };
  }

  async preview(
    actor: Actor,
    id: string,
    query: PageQuery & { filters?: Filter[]; version?: number },
  ): Promise<PreviewAnswer> {
    return this.page(await this.open(actor, id, query.version), query);
  }

  /**
   * A page of the current rows of a collection the caller was authorized for elsewhere (a
   * dashboard's table component), showing only `columns` (in that order) when given; columns the
   * table no longer has are left out, and `sort` may only name shown columns.
   */
  async componentPage(row: DataCollectionsTable, query: PageQuery & { columns?: readonly string[] }) {
    const source = await this.load(row, undefined);
    if (query.columns === undefined) return this.page(source, query);
    const shown = query.columns.flatMap((name) => source.byName.get(name) ?? []);
    return this.page(
      { ...source, columns: shown, byName: new Map(shown.map((column) => [column.name, column])) },
      query,
    );
  }

  private async page(source: Source, query: PageQuery & { filters?: Filter[] }): Promise<PreviewAnswer> {
    const { limit, skip } = query;
    if (source.snapshot === null) return { version: null, columns: [], rows: [], total: 0, limit, skip };
    const statement = new Statement();
    const where = this.where(source, query.filters ?? [], statement, 'querystring.filters');
    const keys = (query.sort ?? []).map((key) => ({
      column: this.column(source, key.column, 'querystring.sort'),
      direction: key.direction,
    }));
    let order = '';
    if (keys.length > 0) {
      // The other columns break ties, so pages don't overlap or skip rows.
      const sorted = new Set(keys.map((key) => key.column.name));
      const tieBreakers = source.columns.filter((column) => !sorted.has(column.name) && column.kind !== 'nested');
      order = ` ORDER BY ${[
        ...keys.map((key) => `${key.column.sql} ${key.direction.toUpperCase()} NULLS LAST`),
        ...tieBreakers.map((column) => `${column.sql} ASC NULLS LAST`),
      ].join(', ')}`;
    }
    const selected = source.columns.length === 0 ? null : source.columns.map((column) => column.sql).join(', ');
    return this.withRows(source, async (connection, from) => {
      await statement.validate(connection);
      const rows =
        selected === null
          ? []
          : await connection.query(
              `SELECT ${selected} FROM ${from}${where}${order} LIMIT ${limit} OFFSET ${skip}`,
              statement.params,
            );
      // Unfiltered, the files' statistics already say how many rows there are.
      const known = where === '' ? (source.version?.rows ?? null) : null;
      const total =
        known ?? count((await connection.query(`SELECT count(*) AS "n" FROM ${from}${where}`, statement.params))[0]?.n);
      return {
        version: source.snapshot?.version ?? null,
        columns: this.describe(source),
        rows: rows.map((row) => this.tableRow(source, row)),
        total,
        limit,
        skip,
      };
    });
  }

  async summary(actor: Actor, id: string, version?: number): Promise<SummaryAnswer> {
    const source = await this.open(actor, id, version);
    if (source.snapshot === null) return { version: null, rows: 0, columns: [] };
    const selects = ['count(*) AS "rows"'];
    source.columns.forEach((column, index) => {
      const c = column.sql;
      selects.push(`count(${c}) AS "${index}_count"`);
      if (!isMap(column)) selects.push(`count(DISTINCT ${c}) AS "${index}_distinct"`);
      if (column.kind !== 'nested') selects.push(`min(${c}) AS "${index}_min"`, `max(${c}) AS "${index}_max"`);
      if (isNumeric(column)) {
        selects.push(
          `CAST(avg(${c}) AS DOUBLE) AS "${index}_mean"`,
          `CAST(stddev_samp(${c}) AS DOUBLE) AS "${index}_std"`,
        );
      }
    });
    return this.withRows(source, async (connection, from) => {
      const [row = {}] = await connection.query(`SELECT ${selects.join(', ')} FROM ${from}`);
      const rows = count(row.rows);
      const number = (value: JsonValue | undefined) => (typeof value === 'number' ? value : null);
      return {
        version: source.snapshot?.version ?? null,
        rows,
        columns: source.columns.map((column, index): ColumnSummary => {
          const output = outputOf(column.kind);
          const nonNull = count(row[`${index}_count`]);
          return {
            name: column.name,
            type: column.typeName,
            count: nonNull,
            nulls: rows - nonNull,
            distinct: isMap(column) ? null : count(row[`${index}_distinct`]),
            min: jsonValue(row[`${index}_min`], output),
            max: jsonValue(row[`${index}_max`], output),
            mean: number(row[`${index}_mean`]),
            std: number(row[`${index}_std`]),
          };
        }),
      };
    });
  }

  /** Distinct values of a column with their counts; an unknown column is a 404 (it is in the path). */
  async values(
    actor: Actor,
    id: string,
    columnName: string,
    query: { limit: number; search?: string; filters?: Filter[]; version?: number },
  ): Promise<ValuesAnswer> {
    const source = await this.open(actor, id, query.version);
    if (source.snapshot === null) return { version: null, column: columnName, values: [], truncated: false };
    const column = source.byName.get(columnName);
    if (column === undefined) {
      throw new DomainError('not_found', `the data collection has no column ${JSON.stringify(columnName)}`);
    }
    const statement = new Statement();
    const conditions = this.conditions(source, query.filters ?? [], statement, 'querystring.filters');
    if (query.search !== undefined) {
      conditions.push(`contains(lower(CAST(${column.sql} AS VARCHAR)), lower(${statement.param(query.search)}))`);
    }
    const where = conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
    return this.withRows(source, async (connection, from) => {
      await statement.validate(connection);
      const rows = await connection.query(
        `SELECT ${column.sql} AS "value", count(*) AS "count" FROM ${from}${where} GROUP BY 1 ` +
          `ORDER BY 2 DESC, 1 ASC NULLS LAST LIMIT ${query.limit + 1}`,
        statement.params,
      );
      const output = outputOf(column.kind);
      return {
        version: source.snapshot?.version ?? null,
        column: column.name,
        values: rows
          .slice(0, query.limit)
          .map((row) => ({ value: jsonValue(row.value, output), count: count(row.count) })),
        truncated: rows.length > query.limit,
      };
    });
  }

  async aggregate(actor: Actor, id: string, request: AggregateRequest): Promise<AggregateAnswer> {
    const source = await this.open(actor, id, request.version);
    if (source.snapshot === null) return { version: null, columns: [], rows: [], truncated: false };
    const statement = new Statement();
    const where = this.where(source, request.filters, statement, 'body.filters');
    const outputs: { name: string; sql: string; type: string; output: Output }[] = [];
    const names = new Map<string, string>();
    const claim = (name: string, path: string) => {
      const earlier = names.get(name);
      if (earlier !== undefined) throw invalid(path, `the output column ${JSON.stringify(name)} is also ${earlier}`);
      names.set(name, path);
    };
    request.group_by.forEach((name, index) => {
      const path = `body.group_by[${index}]`;
      const column = this.column(source, name, path);
      claim(column.name, path);
      outputs.push({ name: column.name, sql: column.sql, type: column.typeName, output: outputOf(column.kind) });
    });
    request.aggregates.forEach((aggregate, index) => {
      const path = `body.aggregates[${index}]`;
      const column = aggregate.column === undefined ? null : this.column(source, aggregate.column, `${path}.column`);
      const compiled = aggregateSql(aggregate.fn, column, aggregate.q, path);
      const name =
        aggregate.as ??
        (column === null
          ? aggregate.fn
          : aggregate.fn === 'quantile'
            ? `quantile_${aggregate.q}_${column.name}`
            : `${aggregate.fn}_${column.name}`);
      claim(name, aggregate.as === undefined ? path : `${path}.as`);
      outputs.push({ name, ...compiled });
    });
    const byOutput = new Map(outputs.map((output) => [output.name, output]));
    const keys =
      request.sort.length > 0
        ? request.sort.map((key, index) => {
            if (!byOutput.has(key.column)) {
              throw invalid(
                `body.sort[${index}].column`,
                `unknown output column ${JSON.stringify(key.column)} (sort by a group_by column or an aggregate's name)`,
              );
            }
            return `${quoteIdentifier(key.column)} ${key.direction.toUpperCase()} NULLS LAST`;
          })
        : request.group_by.map((name) => `${quoteIdentifier(name)} ASC NULLS LAST`);
    const select = outputs.map((output) => `${output.sql} AS ${quoteIdentifier(output.name)}`).join(', ');
    // Grouping by position: an aggregate named like a table column can't capture the grouping.
    const groupBy =
      request.group_by.length === 0
        ? ''
        : ` GROUP BY ${request.group_by.map((_name, index) => String(index + 1)).join(', ')}`;
    const order = keys.length === 0 ? '' : ` ORDER BY ${keys.join(', ')}`;
    return this.withRows(source, async (connection, from) => {
      await statement.validate(connection);
      const rows = await connection.query(
        `SELECT * FROM (SELECT ${select} FROM ${from}${where}${groupBy}) AS "groups"${order} LIMIT ${request.limit + 1}`,
        statement.params,
      );
      return {
        version: source.snapshot?.version ?? null,
        columns: outputs.map((output) => ({ name: output.name, type: output.type })),
        rows: rows.slice(0, request.limit).map((row) => {
          const out: QueryRow = {};
          for (const output of outputs) out[output.name] = jsonValue(row[output.name], output.output);
          return out;
        }),
        truncated: rows.length > request.limit,
      };
    });
  }

  /**
   * Writes the (filtered) rows to a temporary CSV or Parquet file with DuckDB's COPY and hands it
   * over as a stream; the file is removed when the stream closes, however it ends.
   */
  async download(
    actor: Actor,
    id: string,
    query: { format: DownloadFormat; filters?: Filter[]; version?: number },
  ): Promise<Download> {
    const source = await this.open(actor, id, query.version);
    if (source.snapshot === null) throw new DomainError('not_found', 'the data collection has no data yet');
    const statement = new Statement();
    const where = this.where(source, query.filters ?? [], statement, 'querystring.filters');
    await mkdir(this.tempDirectory, { recursive: true });
    const path = join(this.tempDirectory, `${randomUUID()}.${query.format}`);
    try {
      await this.withRows(source, async (connection, from) => {
        await statement.validate(connection);
        const options = query.format === 'csv' ? 'FORMAT csv, HEADER true' : 'FORMAT parquet';
        await connection.run(
          `COPY (SELECT * FROM ${from}${where}) TO ${quoteString(path)} (${options})`,
          statement.params,
        );
      });
      const { size } = await stat(path);
      const stream = createReadStream(path);
      stream.once('close', () => {
        void rm(path, { force: true });
      });
      const base = source.row.tag.replace(/[^A-Za-z0-9._-]/g, '_') || 'data';
      return { stream, size, filename: `${base}.${query.format}`, contentType: CONTENT_TYPES[query.format] };
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
  }

  /** The table's commits, newest first. */
  async versions(actor: Actor, id: string, page: { limit: number; skip: number }) {
    await this.context.dataCollections.access(actor, id, 'resource.read');
    const table = this.context.tableOf(id);
    const history = (await table.history()).reverse();
    const items = await Promise.all(
      history.slice(page.skip, page.skip + page.limit).map(async (entry): Promise<TableVersionEntry> => {
        const key = commitKey(table.root, entry.version);
        let actions: LogAction[] = [];
        try {
          actions = parseCommit((await this.context.delta.storage.getBuffer(key)).toString('utf8'), key);
        } catch (error) {
          // Cleaned up since the listing: report what the listing knew.
          if (!(error instanceof ObjectNotFound)) throw error;
        }
        let timestamp = entry.modifiedAt.getTime();
        let operation: string | null = null;
        let rows: number | null = null;
        let filesAdded = 0;
        let filesRemoved = 0;
        let statsRows: number | null = 0;
        for (const action of actions) {
          if ('commitInfo' in action) {
            const info = action.commitInfo;
            if (typeof info.timestamp === 'number') timestamp = info.timestamp;
            if (typeof info.operation === 'string') operation = info.operation;
            const metrics = info.operationMetrics;
            if (typeof metrics === 'object' && metrics !== null && 'numOutputRows' in metrics) {
              const value = Number(metrics.numOutputRows);
              if (Number.isSafeInteger(value)) rows = value;
            }
          } else if ('add' in action) {
            filesAdded++;
            const records = parseStats(action.add.stats)?.numRecords;
            statsRows = typeof records === 'number' && statsRows !== null ? statsRows + records : null;
          } else if ('remove' in action) {
            filesRemoved++;
          }
        }
        return {
          version: entry.version,
          timestamp: new Date(timestamp).toISOString(),
          operation,
          rows: rows ?? statsRows,
          files_added: filesAdded,
          files_removed: filesRemoved,
        };
      }),
    );
    return { items, total: history.length, limit: page.limit, skip: page.skip };
  }

  /** Checks read access and loads the snapshot (null while there is no table). */
  private async open(actor: Actor, id: string, version: number | undefined): Promise<Source> {
    const { row } = await this.context.dataCollections.access(actor, id, 'resource.read');
    return this.load(row, version);
  }

  /** Loads the snapshot of a collection's table (null while there is no table). */
  private async load(row: DataCollectionsTable, version: number | undefined): Promise<Source> {
    const id = row.id;
    const table = this.context.tableOf(id);
    let read: TableVersion | null;
    try {
      read = await this.context.snapshots.get(table, version);
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

  private describe(source: Source): TableColumn[] {
    const descriptions = parseDescriptions(source.row.columns);
    return source.columns.map((column) => ({
      name: column.name,
      type: column.typeName,
      nullable: column.nullable,
      description: descriptions[column.name] ?? null,
    }));
  }

  private column(source: Source, name: string, path: string): Column {
    const column = source.byName.get(name);
    if (column === undefined) throw invalid(path, `unknown column ${JSON.stringify(name)}`);
    return column;
  }

  private tableRow(source: Source, row: SqlRow): QueryRow {
    const out: QueryRow = {};
    for (const column of source.columns) out[column.name] = jsonValue(row[column.name], outputOf(column.kind));
    return out;
  }

  /**
   * Runs work over the snapshot's rows in a connection of its own; `from` is the scan as a
   * subquery (not a view: creating and dropping one would be two more statements per request).
   */
  private async withRows<T>(source: Source, work: (connection: SqlConnection, from: string) => Promise<T>): Promise<T> {
    const snapshot = source.snapshot;
    if (snapshot === null) throw new Error('no snapshot to query');
    try {
      return await this.context.duckdb.withConnection(async (connection) => {
        const scan = await source.table.scan(connection, snapshot, source.version?.columns);
        try {
          return await work(connection, `(${scan.sql}) AS ${ROWS}`);
        } finally {
          scan.release();
        }
      });
    } catch (error) {
      // Time travel past the vacuum retention: the log still lists the version, its files are gone.
      const missing = await firstMissingFile(this.context.delta.storage, snapshot.files);
      if (missing === null) throw error;
      throw new DomainError(
        'not_found',
        `version ${snapshot.version} of the data collection's table can no longer be read: vacuum removed its data files (versions older than the retention)`,
      );
    }
  }

  private where(source: Source, filters: readonly Filter[], statement: Statement, path: string): string {
    const conditions = this.conditions(source, filters, statement, path);
    return conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
  }

  private conditions(source: Source, filters: readonly Filter[], statement: Statement, path: string): string[] {
    return filters.map((filter, index) => {
      const at = `${path}[${index}]`;
      const column = this.column(source, filter.column, `${at}.column`);
      return `(${filterSql(filter, column, statement, at)})`;
    });
  }
}

/** Whether any data file of a snapshot is gone from storage (asked only after a read failed). */
async function firstMissingFile(storage: ObjectStorage, files: readonly { key: string }[]): Promise<string | null> {
  for (const file of files) if ((await storage.head(file.key)) === null) return file.key;
  return null;
}

/** The SQL of one filter; its values become parameters. */
function filterSql(filter: Filter, column: Column, statement: Statement, path: string): string {
  const c = column.sql;
  const value = (scalar: FilterScalar, at: string) => valueSql(scalar, column, statement, at);
  switch (filter.op) {
    case 'eq':
      return `${c} = ${value(filter.value, `${path}.value`)}`;
    case 'ne':
      return `${c} IS DISTINCT FROM ${value(filter.value, `${path}.value`)}`;
    case 'lt':
      return `${c} < ${value(filter.value, `${path}.value`)}`;
    case 'le':
      return `${c} <= ${value(filter.value, `${path}.value`)}`;
    case 'gt':
      return `${c} > ${value(filter.value, `${path}.value`)}`;
    case 'ge':
      return `${c} >= ${value(filter.value, `${path}.value`)}`;
    case 'in':
    case 'not_in': {
      const list = filter.value.map((scalar, index) => value(scalar, `${path}.value[${index}]`)).join(', ');
      return filter.op === 'in' ? `${c} IN (${list})` : `${c} IS NULL OR ${c} NOT IN (${list})`;
    }
    case 'between':
      return `${c} BETWEEN ${value(filter.value[0], `${path}.value[0]`)} AND ${value(filter.value[1], `${path}.value[1]`)}`;
    case 'contains':
      return `contains(lower(CAST(${c} AS VARCHAR)), lower(${statement.param(filter.value)}))`;
    case 'is_null':
      return `${c} IS NULL`;
    case 'not_null':
      return `${c} IS NOT NULL`;
  }
}

/**
 * A filter value as a parameter of the column's type: numbers compare as numbers (so 1.5 never
 * matches an integer 2), text is cast to the column's type after `Statement.validate` checked it.
 */
function valueSql(value: FilterScalar, column: Column, statement: Statement, path: string): string {
  if (isNumeric(column)) {
    if (typeof value === 'number') return statement.param(value);
    const text = typeof value === 'string' ? value.trim() : '';
    if (INTEGER_TEXT.test(text)) return statement.cast(text, column, path, 'HUGEINT');
    if (NUMBER_TEXT.test(text) && Number.isFinite(Number(text))) return statement.param(Number(text));
    throw invalid(path, `${JSON.stringify(value)} is not a valid ${column.typeName}`);
  }
  if (column.kind === 'string') return statement.param(String(value));
  if (column.kind === 'boolean' && typeof value === 'boolean') return statement.param(value);
  return statement.cast(String(value), column, path);
}

/** The SQL of one aggregate, cast so its output type is known without asking DuckDB. */
function aggregateSql(
  fn: AggregateRequest['aggregates'][number]['fn'],
  column: Column | null,
  q: number | undefined,
  path: string,
): { sql: string; type: string; output: Output } {
  if (column === null) return { sql: 'count(*)', type: 'long', output: 'integer' };
  const c = column.sql;
  const refuse = (what: string) => invalid(`${path}.fn`, `${fn} needs ${what}; ${column.name} is ${column.typeName}`);
  const same = { type: column.typeName, output: outputOf(column.kind) };
  switch (fn) {
    case 'count':
      return { sql: `count(${c})`, type: 'long', output: 'integer' };
    case 'nunique':
      return { sql: `count(DISTINCT ${c})`, type: 'long', output: 'integer' };
    case 'sum':
      if (column.kind === 'integer') return { sql: `CAST(sum(${c}) AS HUGEINT)`, type: 'long', output: 'integer' };
      if (column.kind === 'float') return { sql: `CAST(sum(${c}) AS DOUBLE)`, type: 'double', output: 'plain' };
      if (column.kind === 'decimal') {
        const scale = /,\s*(\d+)\)$/.exec(column.typeName)?.[1] ?? '0';
        return { sql: `CAST(sum(${c}) AS DECIMAL(38, ${scale}))`, type: `decimal(38,${scale})`, output: 'plain' };
      }
      throw refuse('a numeric column');
    case 'mean':
      if (!isNumeric(column)) throw refuse('a numeric column');
      return { sql: `CAST(avg(${c}) AS DOUBLE)`, type: 'double', output: 'plain' };
    case 'min':
    case 'max':
      if (column.kind === 'nested') throw refuse('a column of a simple type');
      return { sql: `${fn}(${c})`, ...same };
    case 'median':
    case 'quantile': {
      if (column.kind === 'nested') throw refuse('a column of a simple type');
      const fraction = fn === 'median' ? 0.5 : (q ?? 0.5);
      // A checked number in [0, 1]: DuckDB wants the fraction as a constant.
      if (!(fraction >= 0 && fraction <= 1)) throw invalid(`${path}.q`, 'q must be between 0 and 1');
      if (isNumeric(column)) {
        return { sql: `CAST(quantile_cont(${c}, ${fraction}) AS DOUBLE)`, type: 'double', output: 'plain' };
      }
      // Dates, times and text: the value at that rank, of the column's own type.
      return { sql: `quantile_disc(${c}, ${fraction})`, ...same };
    }
  }
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
