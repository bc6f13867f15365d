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
/**
 * How long a publish waits for its notice to come back before giving up on the echo (the change
 * itself is committed; other replicas then learn of it at the latest when their cache expires).
 */
const ECHO_TIMEOUT_MS = 1_000;

/**
 * PostgreSQL LISTEN/NOTIFY. Notices go out through the ordinary pool (`pg_notify`) and come in on
 * one dedicated connection, which is re-opened with backoff when the server drops it (restart,
 * failover); every loss and every reconnection is reported as a `reset`, since notices sent
 * meanwhile are lost.
 */
export class PostgresInvalidationChannel implements InvalidationChannel {
  private handlers: InvalidationHandlers | null = null;
  private listener: PostgresListener | null = null;
  /** Publishes waiting for their notice to come back, by payload. */
  private readonly echoes = new Map<string, Array<() => void>>();

  private constructor(
    private readonly db: Kysely<Tables>,
    private readonly warn: (message: string) => void,
  ) {}

  static async open(
    url: string,
    db: Kysely<Tables>,
    warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
  ): Promise<PostgresInvalidationChannel> {
    const channel = new PostgresInvalidationChannel(db, warn);
    channel.listener = await PostgresListener.open(url, CHANNEL, {
      notification: (payload) => channel.receive(payload),
      lost: (reason) => {
        channel.warn(`session invalidation channel lost (${reason}); reconnecting`);
        channel.handlers?.reset();
      },
      // Whatever was announced while we were away is unknown: start from the database again.
      restored: () => channel.handlers?.reset(),
      reconnectFailed: (error) => channel.warn(`session invalidation channel: reconnect failed (${String(error)})`),
    });
    return channel;
  }

  /**
   * Announces the change and returns once the notice has come back through this process's own
   * listener. PostgreSQL hands a notice to every listening connection at once, so by then the other
   * replicas have it too: a sign-out answered here is refused by every replica, not milliseconds
   * later by the others.
   */
  async publish(invalidation: Invalidation): Promise<void> {
    const payload = `${invalidation.kind}:${invalidation.id}`;
    let settle = () => {};
    const echoed = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const waiting = this.echoes.get(payload) ?? [];
    waiting.push(settle);
    this.echoes.set(payload, waiting);
    const timer = setTimeout(settle, ECHO_TIMEOUT_MS);
    try {
      await sql`SELECT pg_notify(${CHANNEL}, ${payload})`.execute(this.db);
      await echoed;
    } finally {
      clearTimeout(timer);
      const left = (this.echoes.get(payload) ?? []).filter((waiter) => waiter !== settle);
      if (left.length === 0) this.echoes.delete(payload);
      else this.echoes.set(payload, left);
    }
  }

  subscribe(handlers: InvalidationHandlers): void {
    this.handlers = handlers;
  }

  async close(): Promise<void> {
    await this.listener?.close();
  }

  private receive(payload: string | undefined): void {
    const separator = payload?.indexOf(':') ?? -1;
    if (payload === undefined || separator < 0) return;
    for (const settle of this.echoes.get(payload) ?? []) settle();
    const kind = payload.slice(0, separator);
    const id = payload.slice(separator + 1);
    if (kind === 'session') this.handlers?.session(id);
    else if (kind === 'user') this.handlers?.user(id);
  }
}
