import type { DuckDB } from '../duckdb.js';
import type { ObjectFiles } from '../object-files.js';
import { quoteIdentifier, stringList } from '../sql.js';
import { type LogAction, parseAction } from './actions.js';
import { DeltaLogCorrupt } from './errors.js';

/** The action columns of a checkpoint this reader uses (others, like domainMetadata, are skipped). */
const ACTION_COLUMNS = ['protocol', 'metaData', 'txn', 'add', 'remove'] as const;

/**
 * Reads the actions of a (possibly multi-part) Parquet checkpoint with DuckDB. Writers name map
 * groups differently (`key_value`, `entries`); DuckDB reads them all as MAPs and `to_json` turns
 * each action into the same JSON a commit file holds. Null when a part is missing.
 */
export async function readCheckpoint(
  duckdb: DuckDB,
  files: ObjectFiles,
  keys: readonly string[],
): Promise<LogAction[] | null> {
  const objects = [];
  for (const key of keys) {
    const head = await files.storage.head(key);
    if (head === null) return null;
    objects.push({ key, size: head.size });
  }
  const lease = await files.acquire(objects);
  try {
    return await duckdb.withConnection(async (connection) => {
      const source = `read_parquet(${stringList(lease.paths)}, union_by_name = true, hive_partitioning = false)`;
      const present = new Set((await connection.describe(`SELECT * FROM ${source}`)).map((column) => column.name));
      const columns = ACTION_COLUMNS.filter((name) => present.has(name));
      if (columns.length === 0) throw new DeltaLogCorrupt(`checkpoint ${keys[0]} has no action columns`);
      const select = columns.map((name) => `to_json(${quoteIdentifier(name)})::VARCHAR AS ${quoteIdentifier(name)}`);
      const rows = await connection.query(`SELECT ${select.join(', ')} FROM ${source}`);
      const actions: LogAction[] = [];
      for (const [index, row] of rows.entries()) {
        for (const name of columns) {
          const text = row[name];
          if (typeof text !== 'string') continue;
          const json = JSON.parse(text) as Record<string, unknown> | null;
          if (json === null) continue;
          // Some writers leave `stats` empty and write only `stats_parsed`.
          if (name === 'add' && json.stats == null && json.stats_parsed != null) {
            json.stats = JSON.stringify(json.stats_parsed);
          }
          const action = parseAction({ [name]: json }, `${keys[0]} row ${index}`);
          if (action !== null) actions.push(action);
        }
      }
      return actions;
    });
  } finally {
    lease.release();
  }
}
