import pg from 'pg';

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

export interface ListenerEvents {
  notification(payload: string | undefined): void;
  /** The connection was lost (server restart, failover); notices sent until `restored` are missed. */
  lost(reason: string): void;
  /** Listening again after a loss. */
  restored(): void;
  /** An attempt to reconnect failed; another follows after a growing wait. */
  reconnectFailed(error: unknown): void;
}

/**
 * One dedicated PostgreSQL connection that LISTENs on a channel and is re-opened with backoff
 * (0.25 s doubling up to 10 s) whenever the server drops it. Notices are sent through the ordinary
 * pool (`pg_notify`); only receiving needs a connection of its own.
 */
export class PostgresListener {
  private client: pg.Client | null = null;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectDelayMs = RECONNECT_MIN_MS;

  private constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly events: ListenerEvents,
    private readonly applicationName: string | undefined,
  ) {}

  /**
   * Connects and LISTENs; rejects when the first connection fails. `applicationName` names the
   * connection in pg_stat_activity, where other processes can count who listens.
   */
  static async open(
    url: string,
    channel: string,
    events: ListenerEvents,
    applicationName?: string,
  ): Promise<PostgresListener> {
    const listener = new PostgresListener(url, channel, events, applicationName);
    await listener.connect();
    return listener;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      keepAlive: true,
      ...(this.applicationName === undefined ? {} : { application_name: this.applicationName }),
    });
    client.on('notification', (message) => this.events.notification(message.payload));
    client.on('error', (error) => this.lost(client, error.message));
    client.on('end', () => this.lost(client, 'connection closed'));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) await client.end().catch(() => undefined);
    else this.client = client;
  }

  private lost(client: pg.Client, reason: string): void {
    if (this.closed || this.client !== client) return;
    this.client = null;
    client.end().catch(() => undefined);
    this.events.lost(reason);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer !== null) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect().then(
        () => {
          if (this.closed) return;
          this.reconnectDelayMs = RECONNECT_MIN_MS;
          this.events.restored();
        },
        (error: unknown) => {
          this.events.reconnectFailed(error);
          this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, RECONNECT_MAX_MS);
          this.scheduleReconnect();
        },
      );
    }, this.reconnectDelayMs);
    this.reconnectTimer.unref();
  }
}
