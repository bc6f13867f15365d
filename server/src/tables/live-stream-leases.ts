import type { Kysely } from 'kysely';
import type { LiveStreamLeasesTable, Tables } from '../db/tables.js';

/**
 * Every query on `live_stream_leases` (docs/architecture.md "Table owners"): one row per open event
 * stream on any replica, so the per-user limit counts them all (docs/live-data.md "Limits").
 */
export const liveStreamLeaseRows = {
  async insert(db: Kysely<Tables>, row: LiveStreamLeasesTable): Promise<void> {
    await db.insertInto('live_stream_leases').values(row).execute();
  },

  /** How many streams `callerKey` holds open on any replica (leases not expired at `now`). */
  async countLive(db: Kysely<Tables>, callerKey: string, now: string): Promise<number> {
    const row = await db
      .selectFrom('live_stream_leases')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('caller_key', '=', callerKey)
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  },

  async delete(db: Kysely<Tables>, leaseId: string): Promise<void> {
    await db.deleteFrom('live_stream_leases').where('lease_id', '=', leaseId).execute();
  },

  /** Moves the expiry of every lease a replica holds (its heartbeat). */
  async renew(db: Kysely<Tables>, replicaId: string, expiresAt: string): Promise<void> {
    await db
      .updateTable('live_stream_leases')
      .set({ expires_at: expiresAt })
      .where('replica_id', '=', replicaId)
      .execute();
  },

  async deleteOfReplica(db: Kysely<Tables>, replicaId: string): Promise<void> {
    await db.deleteFrom('live_stream_leases').where('replica_id', '=', replicaId).execute();
  },

  /** Deletes the leases that lapsed before `now` (their replica stopped renewing them); answers how many. */
  async deleteExpired(db: Kysely<Tables>, now: string): Promise<number> {
    const result = await db.deleteFrom('live_stream_leases').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
