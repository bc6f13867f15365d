import { createHash } from 'node:crypto';
import type { ComponentData } from '@service/common';
import type { TableSnapshot } from '../../analytics/index.js';
import { currentBounds } from '../../engine/bounded-work.js';
import { answerJson, answerOfJson } from './answer-json.js';

/** What a component's answer was computed from. */
export interface AnswerKey {
  /** The component's saved definition. */
  component: unknown;
  /** Every collection it read (its own, and joined ones its filters go through) with the table read. */
  tables: readonly { collection: string; source: TableSnapshot }[];
  /** The canonical filters reaching it (`ComponentNarrowing.key`). */
  filters: string;
  /** Anything else the answer depends on (a page, a sort). */
  extra?: unknown;
}

/**
 * A kept answer as its JSON text, not as the answer object: a big answer's object (a coverage
 * track's 40,000 rows of arrays) kept alive in the old generation made every garbage collection
 * walk it, which cost the server more than the answer's statements (docs/performance.md
 * `field-charts`). A string is one object to the collector; a hit parses it again.
 */
interface Entry {
  json: string;
  bytes: number;
}

export interface AnswerCacheLimits {
  entries: number;
  /** Approximate: the answers' JSON sizes, in UTF-16 units. */
  bytes: number;
}

/**
 * Component answers of this process, least recently used out first (docs/architecture.md "Dashboards", "Replicas"). The
 * key holds the table versions read (with the table's Delta id, which a table written again from
 * scratch changes), so a new version is a new key: no replica ever needs telling, and nothing
 * stale is served. Concurrent requests for one key share one computation.
 */
export class AnswerCache {
  private readonly entries = new Map<string, Entry>();
  /** Computations running, with the signal of the request that started each. */
  private readonly pending = new Map<string, { computing: Promise<ComponentData>; owner: AbortSignal | undefined }>();
  private bytes = 0;
  private counts = { hits: 0, misses: 0 };

  constructor(private readonly limits: AnswerCacheLimits = { entries: 5000, bytes: 64 * 1024 ** 2 }) {}

  /** The cached answer, or `compute`'s (kept unless it failed). */
  async answer(key: AnswerKey, compute: () => Promise<ComponentData>): Promise<ComponentData> {
    const id = keyOf(key);
    const entry = this.entries.get(id);
    if (entry !== undefined) {
      this.counts.hits++;
      this.entries.delete(id);
      this.entries.set(id, entry);
      return answerOfJson<ComponentData>(entry.json);
    }
    const running = this.pending.get(id);
    if (running !== undefined) {
      this.counts.hits++;
      return this.joined(key, running, compute);
    }
    this.counts.misses++;
    const computing = compute();
    const started = { computing, owner: currentBounds()?.signal };
    this.pending.set(id, started);
    try {
      const data = await computing;
      this.keep(id, data);
      return data;
    } finally {
      if (this.pending.get(id) === started) this.pending.delete(id);
    }
  }

  /**
   * The answer of a computation another request started. When that request was stopped (its
   * client gone, its answer grown too large, its time up), the computation fails with that
   * request's reason, which is not this one's: this request then computes the answer itself.
   */
  private async joined(
    key: AnswerKey,
    running: { computing: Promise<ComponentData>; owner: AbortSignal | undefined },
    compute: () => Promise<ComponentData>,
  ): Promise<ComponentData> {
    try {
      return await running.computing;
    } catch (error) {
      const ownerStopped = running.owner?.aborted === true;
      const stopped = currentBounds()?.signal.aborted === true;
      if (!ownerStopped || stopped) throw error;
      const id = keyOf(key);
      if (this.pending.get(id) === running) this.pending.delete(id);
      return this.answer(key, compute);
    }
  }

  /** Whether an answer for `key` is kept or being computed (its inputs need not be prepared). */
  has(key: AnswerKey): boolean {
    const id = keyOf(key);
    return this.entries.has(id) || this.pending.has(id);
  }

  /** Hits and misses since the process started (Prometheus counters). */
  stats(): Readonly<{ hits: number; misses: number; entries: number; bytes: number }> {
    return { ...this.counts, entries: this.entries.size, bytes: this.bytes };
  }

  private keep(id: string, data: ComponentData): void {
    // UTF-16 units, as the request's answer budget counts (request-limits.ts): the same as bytes
    // for the ASCII most answers are, and counting the bytes of a 10 MB heatmap answer took 10 ms.
    const json = answerJson(data);
    const bytes = json.length + id.length;
    if (bytes > this.limits.bytes / 4) return;
    this.entries.set(id, { json, bytes });
    this.bytes += bytes;
    for (const [oldest, evicted] of this.entries) {
      if (this.entries.size <= this.limits.entries && this.bytes <= this.limits.bytes) break;
      this.entries.delete(oldest);
      this.bytes -= evicted.bytes;
    }
  }
}

function keyOf(key: AnswerKey): string {
  const tables = [...key.tables]
    .sort((a, b) => (a.collection < b.collection ? -1 : a.collection > b.collection ? 1 : 0))
    .map(({ collection, source }) => [
      collection,
      source.snapshot === null ? null : [source.snapshot.metadata.id, source.snapshot.version],
    ]);
  const text = JSON.stringify([key.component, tables, key.filters, key.extra ?? null]);
  return createHash('sha256').update(text).digest('base64url');
}
