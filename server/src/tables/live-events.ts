import type { Kysely } from 'kysely';
import type { LiveEventsTable, Tables } from '../db/tables.js';

/** How long events are kept for clients that reconnect (docs/live-data.md "Resume"). */
export const LIVE_RETENTION_MS = 60 * 60 * 1000;

/** A stored event, its number read as a number on both dialects. */
export type LiveEventRow = Omit<LiveEventsTable, 'event_id'> & { event_id: number };

const asRow = (row: LiveEventsTable & { event_id: number | string }): LiveEventRow => ({
  ...row,
  event_id: Number(row.event_id),
});

/**
 * Every query on `live_events` (docs/architecture.md "Table owners"): the events of the live
 * stream, numbered by the database, kept a while for clients that reconnect.
 */
export const liveEventRows = {
  async insert(db: Kysely<Tables>, row: Omit<LiveEventRow, 'event_id'>): Promise<LiveEventRow> {
    const inserted = await db.insertInto('live_events').values(row).returningAll().executeTakeFirstOrThrow();
    return asRow(inserted as LiveEventsTable & { event_id: number | string });
  },

  /** Up to `limit` events numbered above `afterId`, oldest first. */
  async after(db: Kysely<Tables>, afterId: number, limit: number): Promise<LiveEventRow[]> {
    const rows = await db
      .selectFrom('live_events')
      .selectAll()
      .where('event_id', '>', afterId)
      .orderBy('event_id')
      .limit(limit)
      .execute();
    return rows.map((row) => asRow(row as LiveEventsTable & { event_id: number | string }));
  },

  /** The lowest and highest numbers still kept (both null when none is). */
  async bounds(db: Kysely<Tables>): Promise<{ lowest: number | null; highest: number | null }> {
    const row = await db
      .selectFrom('live_events')
      .select((eb) => [eb.fn.min('event_id').as('lowest'), eb.fn.max('event_id').as('highest')])
      .executeTakeFirstOrThrow();
    const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));
    return { lowest: number(row.lowest), highest: number(row.highest) };
  },

  /** Deletes events made before `before`, always keeping the newest (resume judges gaps by it); answers how many. */
  async deleteBefore(db: Kysely<Tables>, before: string): Promise<number> {
    const { highest } = await liveEventRows.bounds(db);
    if (highest === null) return 0;
    const result = await db
      .deleteFrom('live_events')
      .where('created_at', '<', before)
      .where('event_id', '<', highest)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
