import { v7 as uuidv7 } from 'uuid';
import type { Database } from '../db/database.js';
import { isoAfterSeconds, isoNow } from '../db/time.js';
import { liveStreamLeaseRows } from '../tables/live-stream-leases.js';

/** A lease outlives this many missed heartbeats of its replica before it lapses. */
const LAPSE_AFTER_BEATS = 3;

/**
 * The per-user limit on open event streams, counted across every replica (docs/live-data.md
 * "Limits"): each open stream holds a lease row; its replica renews all of its leases every
 * heartbeat, and deletes them when it shuts down. A replica that dies stops renewing, so its
 * leases lapse after three heartbeats and stop counting.
 */
export class StreamLeases {
  readonly replicaId = uuidv7();
  private timer: NodeJS.Timeout | null = null;
  private held = 0;

  constructor(
    private readonly database: Pick<Database, 'db'>,
    private readonly options: { maxPerCaller: number; heartbeatSeconds: number },
    private readonly warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
  ) {}

  private get lapseSeconds(): number {
    return this.options.heartbeatSeconds * LAPSE_AFTER_BEATS;
  }

  /**
   * A lease for one more stream of `callerKey`, or null when the caller already holds the limit.
   * The lease is written before counting, so two streams opened at once on two replicas are never
   * both let past the limit (at worst both are refused, and the client retries).
   */
  async acquire(callerKey: string): Promise<string | null> {
    const { db } = this.database;
    const leaseId = uuidv7();
    await liveStreamLeaseRows.insert(db, {
      lease_id: leaseId,
      caller_key: callerKey,
      replica_id: this.replicaId,
      expires_at: isoAfterSeconds(this.lapseSeconds),
    });
    if ((await liveStreamLeaseRows.countLive(db, callerKey, isoNow())) > this.options.maxPerCaller) {
      await liveStreamLeaseRows.delete(db, leaseId);
      return null;
    }
    this.held += 1;
    this.startRenewing();
    return leaseId;
  }

  /** The stream ended: its lease stops counting. Never throws (a lease not deleted lapses). */
  release(leaseId: string): void {
    this.held = Math.max(0, this.held - 1);
    liveStreamLeaseRows
      .delete(this.database.db, leaseId)
      .catch((error: unknown) => this.warn(`event stream lease not released (${String(error)}); it lapses`));
  }

  private startRenewing(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => {
      if (this.held === 0) return;
      liveStreamLeaseRows
        .renew(this.database.db, this.replicaId, isoAfterSeconds(this.lapseSeconds))
        .catch((error: unknown) => this.warn(`event stream leases not renewed (${String(error)})`));
    }, this.options.heartbeatSeconds * 1000);
    this.timer.unref();
  }

  /** The replica shuts down: its streams ended, their leases go. */
  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await liveStreamLeaseRows.deleteOfReplica(this.database.db, this.replicaId).catch(() => undefined);
  }
}
