import type { JsonValue } from '../../engine/duckdb.js';
import type { TableSnapshot } from './columns.js';

/** Whole-table figures remembered per process (a card's unfiltered number, a range's bounds). */
const CAPACITY = 2000;

/**
 * Numbers of a whole table version that no filter changes: a snapshot never changes, so they are
 * remembered by (collection, table, version, what was computed) and a filter change need not scan for
 * them again. Bounded; the oldest entry goes first.
 */
export class WholeTableMemo {
  private readonly entries = new Map<string, JsonValue>();

  /**
   * The key of `what` on the source's snapshot, or null without one. The Delta table's id is part
   * of it, as in the answer cache (dashboards/data/cache.ts): a table written again from scratch
   * starts again at version 0 with other rows.
   */
  keyOf(source: TableSnapshot, what: string): string | null {
    const { snapshot } = source;
    return snapshot === null
      ? null
      : `${source.row.id}\u0000${snapshot.metadata.id}\u0000${snapshot.version}\u0000${what}`;
  }

  get(key: string | null): JsonValue | undefined {
    return key === null ? undefined : this.entries.get(key);
  }

  set(key: string | null, value: JsonValue): void {
    if (key === null) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > CAPACITY) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
