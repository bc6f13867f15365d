import type {
  AggregateAnswer,
  AggregateRequest,
  ColumnSummary,
  Filter,
  QueryRow,
  SummaryAnswer,
  ValuesAnswer,
} from '@service/common';
import type { JsonValue } from '../../engine/duckdb.js';
import { quoteIdentifier } from '../../engine/sql.js';
import { DomainError } from '../../errors.js';
import { conditions as filterConditions, where as whereClause } from '../filters/filters.js';
import {
  type Column,
  columnOf,
  count,
  invalid,
  isMap,
  isNumeric,
  jsonValue,
  type Output,
  outputOf,
  type TableSnapshot,
} from '../sql/columns.js';
import { finiteOrNull, measuredSql, nonFiniteCountSql, stddevSql } from '../sql/finite.js';
import type { TableReader } from '../sql/reader.js';
import { Statement } from '../sql/statement.js';

/** Per-column counts, distinct counts, min/max and (numeric) mean and standard deviation. */
export async function summarize(reader: TableReader, source: TableSnapshot): Promise<SummaryAnswer> {
  if (source.snapshot === null) return { version: null, rows: 0, columns: [] };
  const selects = ['count(*) AS "rows"'];
  source.columns.forEach((column, index) => {
    const c = column.sql;
    const measured = measuredSql(column);
    selects.push(`count(${c}) AS "${index}_count"`, `${nonFiniteCountSql(column)} AS "${index}_non_finite"`);
    if (!isMap(column)) selects.push(`count(DISTINCT ${c}) AS "${index}_distinct"`);
    if (column.kind !== 'nested') {
      selects.push(`min(${measured}) AS "${index}_min"`, `max(${measured}) AS "${index}_max"`);
    }
    if (isNumeric(column)) {
      selects.push(
        `${finiteOrNull(`CAST(avg(${measured}) AS DOUBLE)`)} AS "${index}_mean"`,
        `${stddevSql(`CAST(${measured} AS DOUBLE)`)} AS "${index}_std"`,
      );
    }
  });
  return reader.withRows(source, async (connection, from) => {
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
          non_finite: count(row[`${index}_non_finite`]),
        };
      }),
    };
  });
}

/** Distinct values of a column with their counts; an unknown column is a 404 (it is in the path). */
export async function distinctValues(
  reader: TableReader,
  source: TableSnapshot,
  columnName: string,
  query: { limit: number; search?: string | undefined; filters?: readonly Filter[] | undefined },
): Promise<ValuesAnswer> {
  if (source.snapshot === null) {
    return { version: null, column: columnName, values: [], truncated: false, total_rows: 0 };
  }
  const column = source.byName.get(columnName);
  if (column === undefined) {
    throw new DomainError('not_found', `the data collection has no column ${JSON.stringify(columnName)}`);
  }
  const statement = new Statement();
  const filtered = filterConditions(source, query.filters ?? [], statement, 'querystring.filters');
  const conditions = [...filtered];
  if (query.search !== undefined) {
    conditions.push(`contains(lower(CAST(${column.sql} AS VARCHAR)), lower(${statement.param(query.search)}))`);
  }
  const whereOf = (list: readonly string[]) => (list.length === 0 ? '' : ` WHERE ${list.join(' AND ')}`);
  return reader.withRows(source, async (connection, from) => {
    await statement.validate(connection);
    // The total counts the rows under the filters whatever the search, so that a share is of the
    // table; joined to the groups so that it comes even when the search matched no value.
    const groups =
      `SELECT ${column.sql} AS "value", count(*) AS "count" FROM ${from}${whereOf(conditions)} GROUP BY 1 ` +
      `ORDER BY 2 DESC, 1 ASC NULLS LAST LIMIT ${query.limit + 1}`;
    const answer = await connection.query(
      `SELECT g."value", g."count", (SELECT count(*) FROM ${from}${whereOf(filtered)}) AS "total" ` +
        `FROM (SELECT 1) AS one LEFT JOIN (${groups}) AS g ON true ORDER BY g."count" DESC, g."value" ASC NULLS LAST`,
      statement.params,
    );
    const total = count(answer[0]?.total);
    const rows = answer.filter((row) => row.count !== null && row.count !== undefined);
    const output = outputOf(column.kind);
    return {
      version: source.snapshot?.version ?? null,
      column: column.name,
      values: rows
        .slice(0, query.limit)
        .map((row) => ({ value: jsonValue(row.value, output), count: count(row.count) })),
      truncated: rows.length > query.limit,
      total_rows: total,
    };
  });
}

/** Grouped aggregates (or one row without `group_by`), sorted by output columns and capped. */
export async function aggregate(
  reader: TableReader,
  source: TableSnapshot,
  request: AggregateRequest,
): Promise<AggregateAnswer> {
  if (source.snapshot === null) return { version: null, columns: [], rows: [], truncated: false };
  const statement = new Statement();
  const where = whereClause(source, request.filters, statement, 'body.filters');
  const outputs: { name: string; sql: string; type: string; output: Output }[] = [];
  const names = new Map<string, string>();
  const claim = (name: string, path: string) => {
    const earlier = names.get(name);
    if (earlier !== undefined) throw invalid(path, `the output column ${JSON.stringify(name)} is also ${earlier}`);
    names.set(name, path);
  };
  request.group_by.forEach((name, index) => {
    const path = `body.group_by[${index}]`;
    const column = columnOf(source, name, path);
    claim(column.name, path);
    outputs.push({ name: column.name, sql: column.sql, type: column.typeName, output: outputOf(column.kind) });
  });
  request.aggregates.forEach((aggregate, index) => {
    const path = `body.aggregates[${index}]`;
    const column = aggregate.column === undefined ? null : columnOf(source, aggregate.column, `${path}.column`);
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
  return reader.withRows(source, async (connection, from) => {
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

/** The SQL of one aggregate, cast so its output type is known without asking DuckDB. */
function aggregateSql(
  fn: AggregateRequest['aggregates'][number]['fn'],
  column: Column | null,
  q: number | undefined,
  path: string,
): { sql: string; type: string; output: Output } {
  if (column === null) return { sql: 'count(*)', type: 'long', output: 'integer' };
  const c = column.sql;
  const m = measuredSql(column);
  const refuse = (what: string) => invalid(`${path}.fn`, `${fn} needs ${what}; ${column.name} is ${column.typeName}`);
  const same = { type: column.typeName, output: outputOf(column.kind) };
  switch (fn) {
    case 'count':
      return { sql: `count(${c})`, type: 'long', output: 'integer' };
    case 'nunique':
      return { sql: `count(DISTINCT ${c})`, type: 'long', output: 'integer' };
    case 'sum':
      if (column.kind === 'integer') return { sql: `CAST(sum(${c}) AS HUGEINT)`, type: 'long', output: 'integer' };
      if (column.kind === 'float')
        return { sql: finiteOrNull(`CAST(sum(${m}) AS DOUBLE)`), type: 'double', output: 'plain' };
      if (column.kind === 'decimal') {
        const scale = /,\s*(\d+)\)$/.exec(column.typeName)?.[1] ?? '0';
        return { sql: `CAST(sum(${c}) AS DECIMAL(38, ${scale}))`, type: `decimal(38,${scale})`, output: 'plain' };
      }
      throw refuse('a numeric column');
    case 'mean':
      if (!isNumeric(column)) throw refuse('a numeric column');
      return { sql: finiteOrNull(`CAST(avg(${m}) AS DOUBLE)`), type: 'double', output: 'plain' };
    case 'min':
    case 'max':
      if (column.kind === 'nested') throw refuse('a column of a simple type');
      return { sql: `${fn}(${m})`, ...same };
    case 'median':
    case 'quantile': {
      if (column.kind === 'nested') throw refuse('a column of a simple type');
      const fraction = fn === 'median' ? 0.5 : (q ?? 0.5);
      // A checked number in [0, 1]: DuckDB wants the fraction as a constant.
      if (!(fraction >= 0 && fraction <= 1)) throw invalid(`${path}.q`, 'q must be between 0 and 1');
      if (isNumeric(column)) {
        const quantile = `CAST(quantile_cont(${m}, ${fraction}) AS DOUBLE)`;
        return { sql: finiteOrNull(quantile), type: 'double', output: 'plain' };
      }
      // Dates, times and text: the value at that rank, of the column's own type.
      return { sql: `quantile_disc(${c}, ${fraction})`, ...same };
    }
  }
}
