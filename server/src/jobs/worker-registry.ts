import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { isoAfterSeconds, isoNow } from '../db/time.js';

/** How often a worker pool says it is alive. */
export const WORKER_BEAT_MS = 5_000;
/** A pool not heard of for this long counts as gone (three missed beats). */
const ALIVE_WITHIN_SECONDS = (3 * WORKER_BEAT_MS) / 1000;
/** Rows of pools that died without saying goodbye (kill -9) are removed after this. */
const FORGET_AFTER_SECONDS = 3_600;

export interface WorkersSeen {
  /** Pools heard of within the last 15 s. */
  active: number;
  /** Job slots of those pools. */
  slots: number;
  /** Latest heartbeat of any pool, or null when none ever beat. */
  last_heartbeat_at: string | null;
}

/** Which worker pools are alive, across every process sharing the database. */
export class WorkerRegistry {
  constructor(private readonly db: Kysely<Tables>) {}

  async beat(workerId: string, startedAt: string, concurrency: number, running: number): Promise<void> {
    const now = isoNow();
    await this.db
      .insertInto('worker_heartbeats')
      .values({ worker_id: workerId, started_at: startedAt, seen_at: now, concurrency, running })
      .onConflict((conflict) => conflict.column('worker_id').doUpdateSet({ seen_at: now, running }))
      .execute();
    await this.db
      .deleteFrom('worker_heartbeats')
      .where('seen_at', '<', isoAfterSeconds(-FORGET_AFTER_SECONDS))
      .execute();
  }

  async leave(workerId: string): Promise<void> {
    await this.db.deleteFrom('worker_heartbeats').where('worker_id', '=', workerId).execute();
  }

  async seen(): Promise<WorkersSeen> {
    const rows = await this.db.selectFrom('worker_heartbeats').select(['seen_at', 'concurrency']).execute();
    const since = isoAfterSeconds(-ALIVE_WITHIN_SECONDS);
    const alive = rows.filter((row) => row.seen_at >= since);
    const latest = rows.reduce<string | null>(
      (max, row) => (max === null || row.seen_at > max ? row.seen_at : max),
      null,
    );
    return {
      active: alive.length,
      slots: alive.reduce((sum, row) => sum + row.concurrency, 0),
      last_heartbeat_at: latest,
    };
  }
}
