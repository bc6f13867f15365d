import { DEFAULT_INDEXED_COLUMNS, STRING_PREFIX, type StatsLeaf, statsLeaves } from '../../src/engine/delta/stats.js';
import type { SqlConnection, SqlRow } from '../../src/engine/duckdb.js';
import { quoteIdentifier, quoteString } from '../../src/engine/sql.js';

/**
 * The reference for the footer statistics: the same `add.stats` JSON computed by scanning every
 * row of the file with DuckDB aggregates (what the writer did before it read the footer). A bound
 * of a floating column is left out when NaN or an infinity is on its side; NaN sorts above
 * everything, so it takes both.
 */
export async function scanStats(
  connection: SqlConnection,
  localPath: string,
  indexedColumns: number = DEFAULT_INDEXED_COLUMNS,
): Promise<string> {
  const source = `read_parquet(${quoteString(localPath)}, hive_partitioning = false)`;
  const leaves = statsLeaves(await connection.describe(`SELECT * FROM ${source}`), indexedColumns);
  const select = ['count(*)::VARCHAR AS num_records', ...leaves.flatMap(aggregates)];
  const [row] = (await connection.query(`SELECT ${select.join(', ')} FROM ${source}`)) as [SqlRow];
  const minValues: Tree = {};
  const maxValues: Tree = {};
  const nullCount: Tree = {};
  leaves.forEach((leaf, index) => {
    put(nullCount, leaf.path, String(row[`n${index}`]));
    const lo = row[`lo${index}`];
    const hi = row[`hi${index}`];
    const json = (value: unknown) =>
      ['integer', 'decimal', 'float'].includes(leaf.kind) ? String(value) : JSON.stringify(value);
    if (lo !== null && lo !== undefined) put(minValues, leaf.path, json(lo));
    if (hi !== null && hi !== undefined) put(maxValues, leaf.path, json(hi));
  });
  return serialize({ numRecords: String(row.num_records), minValues, maxValues, nullCount });
}

function aggregates(leaf: StatsLeaf, index: number): string[] {
  const column = leaf.path.map(quoteIdentifier).join('.');
  const nulls = `(count(*) - count(${column}))::VARCHAR AS n${index}`;
  switch (leaf.kind) {
    case 'none':
      return [nulls];
    case 'float': {
      const none = (extreme: string) =>
        `count(*) FILTER (WHERE isnan(${column}) OR ${column} = '${extreme}'::DOUBLE) = 0`;
      return [
        `CASE WHEN ${none('-inf')} THEN min(${column})::VARCHAR END AS lo${index}`,
        `CASE WHEN ${none('inf')} THEN max(${column})::VARCHAR END AS hi${index}`,
        nulls,
      ];
    }
    case 'string':
      return [
        `left(min(${column}), ${STRING_PREFIX}) AS lo${index}`,
        `CASE WHEN length(max(${column})) <= ${STRING_PREFIX} THEN max(${column}) END AS hi${index}`,
        nulls,
      ];
    case 'timestamp':
      return [
        `strftime(min(${column}), '%Y-%m-%dT%H:%M:%S.%gZ') AS lo${index}`,
        `strftime(max(${column}), '%Y-%m-%dT%H:%M:%S.%gZ') AS hi${index}`,
        nulls,
      ];
    default:
      return [`min(${column})::VARCHAR AS lo${index}`, `max(${column})::VARCHAR AS hi${index}`, nulls];
  }
}

/** Values are JSON text already (so 64-bit integers keep their digits). */
interface Tree {
  [key: string]: Tree | string;
}

function put(tree: Tree, path: string[], value: string): void {
  let node = tree;
  for (const part of path.slice(0, -1)) {
    let next = node[part];
    if (typeof next !== 'object') {
      next = {};
      node[part] = next;
    }
    node = next;
  }
  node[path[path.length - 1]!] = value;
}

function serialize(tree: Tree): string {
  const entries = Object.entries(tree).map(
    ([key, value]) => `${JSON.stringify(key)}:${typeof value === 'string' ? value : serialize(value)}`,
  );
  return `{${entries.join(',')}}`;
}
