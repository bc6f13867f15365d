import { PassThrough } from 'node:stream';
import type { LiveEventRow } from '../tables/live-events.js';
import type { LiveEvents, LiveSubscriber } from './hub.js';
import type { StreamScope } from './scope.js';

/** A client this far behind (unsent bytes) is dropped; it reconnects and resumes. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** How soon a browser's EventSource reconnects after the stream ends (the `retry:` field). */
const RETRY_MS = 2_000;

export interface StreamOptions {
  hub: LiveEvents;
  scope: StreamScope;
  /** The client's `Last-Event-ID`; null for a new stream. */
  lastEventId: number | null;
  heartbeatMs: number;
  /** Checks the caller's session and rights again; rejects when they ended (the stream closes). */
  recheck: () => Promise<StreamScope>;
  /** Send what was missed, then end (`once=true`). */
  once: boolean;
  onEnd: () => void;
}

/** The text of one event (docs/live-data.md "Events"). */
export function eventText(id: number, event: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * One `text/event-stream` answer: replays what a resuming client missed, then sends the events its
 * scope accepts as they come, a heartbeat comment every `heartbeatMs` (which also checks the
 * caller's session and rights again, ending the stream when they are gone).
 */
export class EventStream implements LiveSubscriber {
  readonly body = new PassThrough();
  private scope: StreamScope;
  private lastId: number;
  /** Events heard while the replay was read, sent after it. */
  private pending: LiveEventRow[] | null = [];
  private readonly sent = new Set<number>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: () => void = () => {};
  private ended = false;

  constructor(private readonly options: StreamOptions) {
    this.scope = options.scope;
    this.lastId = options.lastEventId ?? 0;
  }

  async start(): Promise<void> {
    const { hub, lastEventId, once } = this.options;
    this.unsubscribe = hub.subscribe(this);
    this.write(`retry: ${RETRY_MS}\n\n`);
    if (lastEventId === null) {
      this.lastId = await hub.newestId();
      // An id without data moves the client's Last-Event-ID without an event: it resumes from here.
      this.write(`id: ${this.lastId}\n\n`);
    } else await this.replay(lastEventId);
    const heard = this.pending ?? [];
    this.pending = null;
    for (const event of heard) this.deliver(event);
    this.sent.clear();
    if (once) {
      this.end();
      return;
    }
    this.timer = setInterval(() => void this.beat(), this.options.heartbeatMs);
  }

  private async replay(afterId: number): Promise<void> {
    const { events, gap } = await this.options.hub.replay(afterId);
    // Some events are gone: the client starts over (refetches everything it shows).
    if (gap) this.write('event: reset\ndata: {}\n\n');
    for (const event of events) this.send(event);
  }

  deliver(event: LiveEventRow): void {
    if (this.ended) return;
    if (this.pending !== null) this.pending.push(event);
    else if (!this.sent.has(event.event_id)) this.send(event);
  }

  /** The channel was down: whatever this stream missed is read from the table. */
  resync(): void {
    if (this.ended || this.pending !== null) return;
    this.pending = [];
    void this.replay(this.lastId)
      .then(() => {
        const heard = this.pending ?? [];
        this.pending = null;
        for (const event of heard) this.deliver(event);
        this.sent.clear();
      })
      .catch(() => this.end());
  }

  private send(event: LiveEventRow): void {
    this.sent.add(event.event_id);
    if (!this.scope.accepts(event)) return;
    this.lastId = Math.max(this.lastId, event.event_id);
    this.write(eventText(event.event_id, event.kind, JSON.parse(event.data)));
  }

  private async beat(): Promise<void> {
    try {
      this.scope = await this.options.recheck();
    } catch {
      this.end();
      return;
    }
    this.write(': heartbeat\n\n');
  }

  private write(text: string): void {
    if (this.ended) return;
    this.body.write(text);
    if (this.body.writableLength > MAX_BUFFERED_BYTES) this.end();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.unsubscribe();
    this.body.end();
    this.options.onEnd();
  }
}
