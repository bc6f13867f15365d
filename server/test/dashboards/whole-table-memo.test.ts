import { describe, expect, it } from 'vitest';
import { type TableSnapshot, WholeTableMemo } from '../../../server/src/analytics/index.js';

/** A collection's snapshot as the memo sees it: the collection, the Delta table's id and the version read. */
function source(tableId: string | null, version = 0, collection = 'dc'): TableSnapshot {
  const snapshot = tableId === null ? null : ({ metadata: { id: tableId }, version } as TableSnapshot['snapshot']);
  return { row: { id: collection }, snapshot } as TableSnapshot;
}

describe('the whole-table memo', () => {
  it('remembers per collection, Delta table and version: a table written again from scratch is another', () => {
    const memo = new WholeTableMemo();
    memo.set(memo.keyOf(source('table-a'), 'card'), 41);
    expect(memo.get(memo.keyOf(source('table-a'), 'card'))).toBe(41);
    // Deleted and written again: version 0 once more, of other rows.
    expect(memo.get(memo.keyOf(source('table-b'), 'card'))).toBeUndefined();
    expect(memo.get(memo.keyOf(source('table-a', 1), 'card'))).toBeUndefined();
    expect(memo.get(memo.keyOf(source('table-a', 0, 'other'), 'card'))).toBeUndefined();
    expect(memo.get(memo.keyOf(source('table-a'), 'range'))).toBeUndefined();
    // No table yet: nothing is remembered.
    expect(memo.keyOf(source(null), 'card')).toBeNull();
    memo.set(null, 1);
    expect(memo.get(null)).toBeUndefined();
  });
});
