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
 * PostgreSQL LISTEN/NOTIFY. Notices go out through the ordinary pool (`pg_notify`) and come in on
 * one dedicated connection, which is re-opened with backoff when the server drops it (restart,
 * failover); every loss and every reconnection is reported as a `reset`, since notices sent
 * meanwhile are lost.
 */
export class PostgresInvalidationChannel implements InvalidationChannel {
  private handlers: InvalidationHandlers | null = null;
  private listener: PostgresListener | null = null;

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

  async publish(invalidation: Invalidation): Promise<void> {
    await sql`SELECT pg_notify(${CHANNEL}, ${`${invalidation.kind}:${invalidation.id}`})`.execute(this.db);
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
    const kind = payload.slice(0, separator);
    const id = payload.slice(separator + 1);
    if (kind === 'session') this.handlers?.session(id);
    else if (kind === 'user') this.handlers?.user(id);
  }
}
