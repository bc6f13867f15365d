import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import { PostgresListener } from '../db/listener.js';
import { isoNow } from '../db/time.js';
import { LIVE_RETENTION_MS, type LiveEventRow, liveEventRows } from '../tables/live-events.js';

const CHANNEL = 'service_live_events';
/** At most this many events are replayed on a resume; beyond, the client is told to start over. */
export const REPLAY_LIMIT = 1000;
const PRUNE_EVERY_MS = 60 * 1000;
/** How often, on SQLite, the table is read for events other processes sharing the file wrote. */
const SQLITE_POLL_MS = 500;

export type NewLiveEvent = Omit<LiveEventRow, 'event_id' | 'created_at'>;

/** One open stream, as the hub sees it. */
export interface LiveSubscriber {
  deliver(event: LiveEventRow): void;
  /** Events may have been missed (the notification connection was lost): the stream resumes from its last id. */
  resync(): void;
}

/**
 * The live events of docs/live-data.md: each is written to `live_events` (for resume) and handed to
 * every open stream of every replica. On PostgreSQL the insert and its `pg_notify` commit together,
 * and each process hears it on one LISTEN connection; on SQLite it is handed over in process, and
 * events other processes on the same file wrote are read when SQLite's data_version moves.
 */
export class LiveEvents {
  private readonly subscribers = new Set<LiveSubscriber>();
  private listener: PostgresListener | null = null;
  private poller: NodeJS.Timeout | null = null;
  /** Publishes of this process, one after another, so a job's changes are stored in the order made. */
  private chain: Promise<unknown> = Promise.resolve();
  private prunedAt = 0;
  /** SQLite: every event up to this one was handed to the streams; the data_version then. */
  private polledUpTo = 0;
  private dataVersion: number | undefined;

  private constructor(
    private readonly database: Database,
    private readonly warn: (message: string) => void,
  ) {}

  static async open(
    database: Database,
    postgresUrl: string | null,
    warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
  ): Promise<LiveEvents> {
    const live = new LiveEvents(database, warn);
    if (database.dialect === 'postgres' && postgresUrl !== null) {
      live.listener = await PostgresListener.open(
        postgresUrl,
        CHANNEL,
        {
          notification: (payload) => live.received(payload),
          lost: (reason) => live.warn(`live event channel lost (${reason}); reconnecting`),
          restored: () => {
            for (const subscriber of live.subscribers) subscriber.resync();
          },
          reconnectFailed: (error) => live.warn(`live event channel: reconnect failed (${String(error)})`),
        },
        'service-live',
      );
    } else {
      live.dataVersion = database.changesByOthers?.();
      live.polledUpTo = (await liveEventRows.bounds(database.db)).highest ?? 0;
      live.poller = setInterval(() => void live.serial(() => live.pollOthers()).catch(() => undefined), SQLITE_POLL_MS);
      live.poller.unref();
    }
    return live;
  }

  /** Stores the event and hands it to every stream; never throws (a lost event is logged). */
  publish(event: NewLiveEvent): Promise<LiveEventRow | null> {
    return this.serial(() => this.write(event)).catch((error: unknown) => {
      this.warn(`live event not published (${String(error)})`);
      return null;
    });
  }

  /** Runs `work` after every earlier publish and poll of this process has ended. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next;
    return next;
  }

  private async write(event: NewLiveEvent): Promise<LiveEventRow> {
    const row = { ...event, created_at: isoNow() };
    const { db } = this.database;
    let stored: LiveEventRow;
    if (this.database.dialect === 'postgres') {
      stored = await db.transaction().execute(async (trx) => {
        const inserted = await liveEventRows.insert(trx, row);
        await sql`select pg_notify(${CHANNEL}, ${JSON.stringify(inserted)})`.execute(trx);
        return inserted;
      });
    } else {
      stored = await liveEventRows.insert(db, row);
      // Nobody else wrote since the last read: ours is the next event. Otherwise read them all, in order.
      if (this.database.changesByOthers?.() === this.dataVersion) {
        this.polledUpTo = stored.event_id;
        this.dispatch(stored);
      } else await this.pollOthers();
    }
    if (Date.now() - this.prunedAt > PRUNE_EVERY_MS) {
      this.prunedAt = Date.now();
      await liveEventRows.deleteBefore(db, new Date(Date.now() - LIVE_RETENTION_MS).toISOString());
    }
    return stored;
  }

  private received(payload: string | undefined): void {
    try {
      this.dispatch(JSON.parse(payload ?? '') as LiveEventRow);
    } catch {
      this.warn('live event channel: a notice that is not an event was ignored');
    }
  }

  private dispatch(event: LiveEventRow): void {
    for (const subscriber of this.subscribers) subscriber.deliver(event);
  }

  /** Adds a stream; answers the function that removes it. */
  subscribe(subscriber: LiveSubscriber): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  /**
   * SQLite shared by several processes (a separate worker): the events they wrote, read once the
   * file changed (SQLite's data_version moves only for other connections' commits, so one process
   * alone never reads here).
   */
  private async pollOthers(): Promise<void> {
    const version = this.database.changesByOthers?.();
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    try {
      for (const event of await liveEventRows.after(this.database.db, this.polledUpTo, REPLAY_LIMIT)) {
        this.polledUpTo = event.event_id;
        this.dispatch(event);
      }
    } catch (error) {
      this.warn(`live events: reading other processes' events failed (${String(error)})`);
    }
  }

  /**
   * The events after `afterId`, for a stream that resumes; `gap` when some may be gone (older than
   * the retention, or more than the replay limit), so the client must refetch everything.
   */
  async replay(afterId: number): Promise<{ events: LiveEventRow[]; gap: boolean }> {
    const { lowest, highest } = await liveEventRows.bounds(this.database.db);
    const events = await liveEventRows.after(this.database.db, afterId, REPLAY_LIMIT);
    const pruned = highest !== null && afterId < highest && (lowest === null || afterId < lowest - 1);
    return { events, gap: pruned || events.length === REPLAY_LIMIT };
  }

  /** The newest event's number (0 when none), where a new stream starts. */
  async newestId(): Promise<number> {
    return (await liveEventRows.bounds(this.database.db)).highest ?? 0;
  }

  get openStreams(): number {
    return this.subscribers.size;
  }

  async close(): Promise<void> {
    if (this.poller !== null) clearInterval(this.poller);
    this.subscribers.clear();
    await this.chain.catch(() => undefined);
    await this.listener?.close();
  }
}
