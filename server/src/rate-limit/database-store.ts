import { sql } from 'kysely';
import type { Database } from '../db/database.js';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

const PRUNE_EVERY_MS = 10 * 60_000;

/** When counters were last pruned, per database (each process prunes at most every ten minutes). */
const lastPrunes = new WeakMap<Pick<Database, 'db'>, number>();

/**
 * Counts one hit on `key` in the metadata database, so that a limit holds across every API
 * replica: one upsert that either counts within the current window or starts a new one,
 * atomically on both SQLite and PostgreSQL. Answers the hits so far and the window's ms left.
 */
export async function countHit(
  database: Pick<Database, 'db'>,
  key: string,
  windowMs: number,
): Promise<{ current: number; ttl: number }> {
  const now = Date.now();
  const expiredBefore = now - windowMs;
  const result = await sql<{ hits: number; window_started_ms: number }>`
    insert into rate_limit_counters (key, window_started_ms, hits) values (${key}, ${now}, 1)
    on conflict (key) do update set
      hits = case when rate_limit_counters.window_started_ms <= ${expiredBefore} then 1
                  else rate_limit_counters.hits + 1 end,
      window_started_ms = case when rate_limit_counters.window_started_ms <= ${expiredBefore} then ${now}
                  else rate_limit_counters.window_started_ms end
    returning hits, window_started_ms`.execute(database.db);
  const row = result.rows[0];
  if (!row) throw new Error('rate limit counter update returned nothing');
  if (now - (lastPrunes.get(database) ?? 0) > PRUNE_EVERY_MS) {
    lastPrunes.set(database, now);
    // Counters idle for a day are noise; dropping them keeps the table small.
    await database.db
      .deleteFrom('rate_limit_counters')
      .where('window_started_ms', '<', now - 86_400_000)
      .execute();
  }
  return { current: Number(row.hits), ttl: Number(row.window_started_ms) + windowMs - now };
}

/** A store for @fastify/rate-limit that keeps its counters in the metadata database (`countHit`). */
export function databaseRateLimitStore(database: Database) {
  return class DatabaseRateLimitStore {
    incr(key: string, callback: Callback, timeWindow: number): void {
      countHit(database, key, timeWindow).then(
        (result) => callback(null, result),
        (error: Error) => callback(error),
      );
    }

    child(): DatabaseRateLimitStore {
      return new DatabaseRateLimitStore();
    }
  };
}
