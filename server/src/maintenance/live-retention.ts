import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { LIVE_RETENTION_MS, liveEventRows } from '../tables/live-events.js';
import { liveStreamLeaseRows } from '../tables/live-stream-leases.js';

export interface PurgedLiveRecords {
  /** Events older than the resume window (an hour), the newest always kept. */
  live_events: number;
  /** Leases of streams whose replica stopped renewing them (it died). */
  live_stream_leases: number;
}

/**
 * Deletes what the live stream no longer needs (docs/live-data.md "Resume" and "Limits"): run by
 * the periodic cleanup on every replica and worker, also where no event is published (a process
 * that publishes prunes as it goes). One statement each, so processes may run it at once.
 */
export async function purgeStaleLiveRecords(db: Kysely<Tables>, now = Date.now()): Promise<PurgedLiveRecords> {
  const events = await liveEventRows.deleteBefore(db, new Date(now - LIVE_RETENTION_MS).toISOString());
  const leases = await liveStreamLeaseRows.deleteExpired(db, isoNow());
  return { live_events: events, live_stream_leases: leases };
}
