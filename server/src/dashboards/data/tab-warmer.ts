import type { DashboardDataRequest, DashboardFilter, DashboardTab } from '@service/common';
import { withinBounds } from '../../engine/bounded-work.js';
import type { RequestWork } from '../../rate-limit/request-work.js';
import type { PreparedData } from './prepared.js';

/** Waits until the replica has no request running; each warmed component waits for it first. */
export type IdleGate = () => Promise<void>;

/** Warming one dashboard: its other tabs' components computed into the answer cache. */
export type Warming = (gate: IdleGate) => Promise<void>;

/**
 * Computes answers ahead, in the background (docs/dashboards.md "Tabs"): once a reader has opened
 * a tab of a dashboard unfiltered, its other tabs' unfiltered answers, so that the next tab
 * opened comes from this replica's answer cache instead of a cold pass over the tables.
 *
 * It takes only idle time: one dashboard at a time, and each component only while no request of
 * any reader runs on this replica (`RequestWork.idle`), so a request is slowed by no more than the
 * few components already started. Work is bounded as a request's (statement time, values read)
 * and stopped at shutdown. A replica warms its own cache: a click answered by another replica
 * computes what it lacks, as without warming.
 */
export class TabWarmer {
  private readonly queue: { key: string; warm: Warming }[] = [];
  private readonly queued = new Set<string>();
  private readonly stopped = new AbortController();
  /** Resolves at `close`: a gate waiting for idle time stops waiting. */
  private readonly closing = new Promise<void>((resolve) =>
    this.stopped.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  private draining: Promise<void> | undefined;
  /** Dashboards warmed, and warmings that failed (tests and metrics read these). */
  readonly stats = { warmed: 0, failed: 0 };

  constructor(
    private readonly work: Pick<RequestWork, 'idle' | 'background'>,
    private readonly enabled: boolean,
    private readonly warn: (error: unknown) => void,
  ) {}

  /** Queues `warm` unless warming `key` (a dashboard) is already queued or running. */
  schedule(key: string, warm: Warming): void {
    if (!this.enabled || this.stopped.signal.aborted || this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push({ key, warm });
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
    });
  }

  /** Resolves once nothing is queued or running. */
  async idle(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
  }

  /** Stops what runs, drops what is queued and waits for the running warming to end. */
  async close(): Promise<void> {
    this.stopped.abort(new Error('the server is shutting down'));
    this.queue.length = 0;
    await this.draining;
  }

  private async drain(): Promise<void> {
    const { signal } = this.stopped;
    const gate: IdleGate = async () => {
      await Promise.race([this.work.idle(), this.closing]);
      if (signal.aborted) throw signal.reason;
    };
    for (;;) {
      const next = this.queue.shift();
      if (next === undefined) return;
      const { bounds, release } = this.work.background(this.stopped.signal);
      try {
        await withinBounds(bounds, () => next.warm(gate));
        this.stats.warmed++;
      } catch (error) {
        this.stats.failed++;
        if (!this.stopped.signal.aborted) this.warn(error);
      } finally {
        release();
        this.queued.delete(next.key);
      }
    }
  }
}

/** A reader opening one tab as it first shows: no filters, no earlier version, no subset or previews. */
export function opensTabUnfiltered(
  request: DashboardDataRequest & { fixed?: readonly DashboardFilter[] },
): request is DashboardDataRequest & { tab_id: string } {
  const { tab_id, filters = [], fixed = [], as_of, components, contigs } = request;
  const narrowed = filters.length > 0 || fixed.length > 0 || contigs !== undefined;
  return tab_id !== undefined && !narrowed && as_of === undefined && components === undefined;
}

/**
 * Warming `tabs`: each prepared unfiltered (`prepare`, its components gated) and computed, one
 * tab after the other; the answers go to the answer cache, nothing is kept here.
 */
export function warmingOf(
  tabs: readonly DashboardTab[],
  prepare: (tabId: string, gate: IdleGate) => Promise<PreparedData>,
): Warming {
  return async (gate) => {
    for (const { tab_id } of tabs) {
      await gate();
      const prepared = await prepare(tab_id, gate);
      for await (const _answered of prepared.components());
    }
  };
}
