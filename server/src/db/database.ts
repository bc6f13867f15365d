import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config/config.js';
import type { Tables } from './tables.js';

export type Dialect = 'sqlite' | 'postgres';

/** The metadata database: one Kysely instance plus what callers must know of the dialect. */
export interface Database {
  db: Kysely<Tables>;
  dialect: Dialect;
  /**
   * SQLite only: a number that changes whenever another connection (another process sharing the
   * file) has committed, and never for this process's own writes (`PRAGMA data_version`).
   */
  changesByOthers?: () => number;
  close(): Promise<void>;
}

// PostgreSQL returns int8 (counts, bigint columns) as strings; our values fit in a double.
const INT8_OID = 20;
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

export function openDatabase(config: DatabaseConfig): Database {
  if (config.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: config.url, max: 10, types: pgTypes });
    // An idle connection that the server drops (restart, failover) must not crash the process;
    // the pool replaces it on the next query.
    pool.on('error', (error) => process.stderr.write(`database connection lost: ${error.message}\n`));
    // The pool listens only to idle connections. One that is checked out but between two queries
    // when the server ends it (a restart ends every session) would otherwise raise an unhandled
    // 'error' and kill the process; its next query fails instead, and the pool drops it.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
  const sqlite = new SQLite(config.path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // Several processes (API replicas on one host, `service migrate`) may share the file.
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  return { db, dialect: 'sqlite', changesByOthers: () => dataVersion.get() as number, close: () => db.destroy() };
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew, and on SQLite preparing costs as much as running a small
 * query. Statements are reusable (Kysely runs one at a time on its single connection), so the
 * most recently used ones are kept by their SQL text.
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = sqlite.prepare(sql);
        if (statements.size >= STATEMENT_CACHE_SIZE) {
          const oldest = statements.keys().next().value;
          if (oldest !== undefined) statements.delete(oldest);
        }
      } else {
        statements.delete(sql);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}
