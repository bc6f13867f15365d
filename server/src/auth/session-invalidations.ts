import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { PostgresListener } from '../db/listener.js';
import type { Tables } from '../db/tables.js';

/** A session that ended, or a user whose sessions must be read again. */
export interface Invalidation {
  kind: 'session' | 'user';
  id: string;
}

export interface InvalidationHandlers {
  session(sessionId: string): void;
  user(userId: string): void;
  /** The channel was down for a while: notices may have been missed. */
  reset(): void;
}

/** How processes sharing one database tell each other that a cached session is stale. */
export interface InvalidationChannel {
  publish(invalidation: Invalidation): Promise<void>;
  subscribe(handlers: InvalidationHandlers): void;
  close(): Promise<void>;
}

const CHANNEL = 'service_session_invalidations';
/** How listening connections name themselves in pg_stat_activity, followed by the listener's id. */
const LISTENER_NAME = 'service-sessions:';
/**
 * The most a publish waits for the other processes' acknowledgements (a process that hangs, a
 * connection that is down). The change itself is committed; a process that did not answer learns
 * of it at the latest when its cache entries expire.
 */
const ACK_LIMIT_MS = 5_000;

/**
 * PostgreSQL LISTEN/NOTIFY. Notices go out through the ordinary pool (`pg_notify`) and come in on
 * one dedicated connection per process, which is re-opened with backoff when the server drops it
 * (restart, failover); every loss and every reconnection is reported as a `reset`, since notices
 * sent meanwhile are lost.
 *
 * Every process that applies a notice acknowledges it on the same channel, and a publish returns
 * once every process listening when it was sent has done so: a sign-out answered by one replica is
 * refused by every replica, not milliseconds later by some. (PostgreSQL hands a notice to every
 * listening backend, but each process reads it off its own socket in its own time, so a request
 * could reach another replica before the notice does; waiting for its own echo was not enough.)
 */
export class PostgresInvalidationChannel implements InvalidationChannel {
  private handlers: InvalidationHandlers | null = null;
  private listener: PostgresListener | null = null;
  private readonly listenerId = randomUUID();
  /** Publishes waiting for acknowledgements, by notice id. */
  private readonly waiting = new Map<string, (listenerId: string) => void>();

  private constructor(
    private readonly db: Kysely<Tables>,
    private readonly warn: (message: string) => void,
    private readonly ackLimitMs: number,
  ) {}

  /**
   * `trustMs` is how long the processes' caches trust an entry: waiting longer than that for an
   * acknowledgement would protect nothing, since every entry read before the change has expired.
   */
  static async open(
    url: string,
    db: Kysely<Tables>,
    trustMs: number,
    warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
  ): Promise<PostgresInvalidationChannel> {
    const channel = new PostgresInvalidationChannel(db, warn, Math.min(trustMs, ACK_LIMIT_MS));
    channel.listener = await PostgresListener.open(
      url,
      CHANNEL,
      {
        notification: (payload) => channel.receive(payload),
        lost: (reason) => {
          channel.warn(`session invalidation channel lost (${reason}); reconnecting`);
          channel.handlers?.reset();
        },
        // Whatever was announced while we were away is unknown: start from the database again.
        restored: () => channel.handlers?.reset(),
        reconnectFailed: (error) => channel.warn(`session invalidation channel: reconnect failed (${String(error)})`),
      },
      `${LISTENER_NAME}${channel.listenerId}`,
    );
    return channel;
  }

  /**
   * Announces the change and returns once every process listening when it was sent (this one
   * included) has applied it, or after the acknowledgement limit.
   */
  async publish(invalidation: Invalidation): Promise<void> {
    const noticeId = randomUUID();
    const acknowledged = new Set<string>();
    let listeners: string[] | null = null;
    let settle = () => {};
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const check = () => {
      if (listeners?.every((listener) => acknowledged.has(listener))) settle();
    };
    this.waiting.set(noticeId, (listenerId) => {
      acknowledged.add(listenerId);
      check();
    });
    const timer = setTimeout(settle, this.ackLimitMs);
    try {
      // The listeners are counted in the statement that sends the notice, so acknowledgements
      // that come back before the answer are not missed.
      const { rows } = await sql<{ listeners: string[] | null }>`
        SELECT pg_notify(${CHANNEL}, ${`n:${noticeId}:${invalidation.kind}:${invalidation.id}`}),
          (SELECT array_agg(substr(application_name, ${LISTENER_NAME.length + 1}))
             FROM pg_stat_activity
            WHERE datname = current_database() AND application_name LIKE ${`${LISTENER_NAME}%`}) AS listeners`.execute(
        this.db,
      );
      listeners = rows[0]?.listeners ?? [];
      check();
      await done;
    } finally {
      clearTimeout(timer);
      this.waiting.delete(noticeId);
    }
  }

  subscribe(handlers: InvalidationHandlers): void {
    this.handlers = handlers;
  }

  async close(): Promise<void> {
    await this.listener?.close();
  }

  /** `n:<notice id>:<kind>:<id>` is a notice to apply; `a:<notice id>:<listener id>` an acknowledgement. */
  private receive(payload: string | undefined): void {
    const [type, noticeId, kind, ...rest] = (payload ?? '').split(':');
    if (noticeId === undefined || kind === undefined) return;
    if (type === 'a') {
      this.waiting.get(noticeId)?.(kind);
      return;
    }
    if (type !== 'n') return;
    const id = rest.join(':');
    if (kind === 'session') this.handlers?.session(id);
    else if (kind === 'user') this.handlers?.user(id);
    else return;
    sql`SELECT pg_notify(${CHANNEL}, ${`a:${noticeId}:${this.listenerId}`})`
      .execute(this.db)
      .catch((error: unknown) => this.warn(`session invalidation: acknowledgement failed (${String(error)})`));
  }
}
