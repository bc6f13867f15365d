import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlConnection } from '../../src/engine/duckdb.js';
import { quoteString } from '../../src/engine/sql.js';

/**
 * A Delta log replay written from PROTOCOL.md ("Action Reconciliation", "Checkpoints") alone, for
 * tests, sharing nothing with the server's reader: it must reach the same file list on its own.
 */

type Fields = Record<string, unknown>;
export type Action = {
  commitInfo?: Fields;
  protocol?: Fields;
  metaData?: Fields;
  add?: Fields;
  remove?: Fields;
  txn?: Fields;
};

export interface Replayed {
  version: number;
  checkpointVersion: number | null;
  protocol: Fields;
  metaData: Fields;
  /** Active files by `add.path` as logged. */
  files: Map<string, Fields>;
  /** The latest `txn.version` per `appId`. */
  txns: Map<string, number>;
}

const pad = (version: number) => String(version).padStart(20, '0');

function apply(state: Omit<Replayed, 'version' | 'checkpointVersion'>, action: Action): void {
  if (action.protocol) state.protocol = action.protocol;
  if (action.metaData) state.metaData = action.metaData;
  if (action.txn) state.txns.set(String(action.txn.appId), Number(action.txn.version));
  if (action.add) state.files.set(String(action.add.path), action.add);
  if (action.remove) state.files.delete(String(action.remove.path));
}

/** Rows of a checkpoint Parquet file as actions (one non-null column per row). */
async function checkpointActions(connection: SqlConnection, file: string): Promise<Action[]> {
  const rows = await connection.query(
    `SELECT to_json(protocol)::VARCHAR AS protocol, to_json(metaData)::VARCHAR AS metaData,
            to_json(txn)::VARCHAR AS txn, to_json("add")::VARCHAR AS "add", to_json(remove)::VARCHAR AS remove
     FROM read_parquet(${quoteString(file)})`,
  );
  return rows.map((row) => {
    const action: Action = {};
    for (const kind of ['protocol', 'metaData', 'txn', 'add', 'remove'] as const) {
      const value = row[kind];
      if (value !== null && value !== undefined && value !== 'null') action[kind] = JSON.parse(String(value)) as Fields;
    }
    return action;
  });
}

/**
 * The latest version of the table at `root` (a local directory): from commit 0 through every JSON
 * commit, or, with `fromCheckpoint`, from the checkpoint `_last_checkpoint` names (its `remove`
 * rows are tombstones and ignored) and the commits after it.
 */
export async function replayLog(
  root: string,
  options: { fromCheckpoint?: boolean; connection?: SqlConnection } = {},
): Promise<Replayed> {
  const log = join(root, '_delta_log');
  const names = await readdir(log);
  const commits = names
    .map((name) => /^(\d{20})\.json$/.exec(name))
    .filter((match) => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
  const state: Omit<Replayed, 'version' | 'checkpointVersion'> = {
    protocol: {},
    metaData: {},
    files: new Map(),
    txns: new Map(),
  };
  let start = 0;
  let checkpointVersion: number | null = null;
  if (options.fromCheckpoint) {
    if (options.connection === undefined) throw new Error('reading a checkpoint needs a DuckDB connection');
    const hint = JSON.parse(await readFile(join(log, '_last_checkpoint'), 'utf8')) as { version: number };
    checkpointVersion = hint.version;
    for (const action of await checkpointActions(
      options.connection,
      join(log, `${pad(hint.version)}.checkpoint.parquet`),
    )) {
      if (!action.remove) apply(state, action);
    }
    start = hint.version + 1;
  }
  let version = checkpointVersion ?? -1;
  for (const next of commits.filter((candidate) => candidate >= start)) {
    if (next !== version + 1) throw new Error(`commit ${version + 1} is missing`);
    const text = await readFile(join(log, `${pad(next)}.json`), 'utf8');
    for (const line of text.split('\n')) if (line.trim() !== '') apply(state, JSON.parse(line) as Action);
    version = next;
  }
  return { ...state, version, checkpointVersion };
}
