import { Checkbox } from '@mantine/core';
import type { DashboardFilterScalar, DashboardFilterValue, PreviewAnswer, QueryRow } from '@service/common';
import { useRef } from 'react';
import type { LeadingColumn } from '../../components/RowsTable.js';
import { formatValue } from '../chips.js';

/** A selected row's key as a filter holds it (numbers and texts as they are; anything else as text). */
type Key = DashboardFilterScalar | null;

function keyOf(row: QueryRow, column: string): Key {
  const value = row[column];
  if (value === null || value === undefined) return null;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : String(value);
}

/** The keys of a selection filter's value (none when the table has no selection). */
export function selectedKeys(value: DashboardFilterValue | undefined): Key[] {
  return Array.isArray(value) ? value : [];
}

/**
 * The selection as last set, for a second click before the address bar has caught up with the
 * first (the router updates it in a transition): each box reads it when clicked, not when drawn.
 */
export function useLatestSelection(
  value: DashboardFilterValue | undefined,
  onChange: ((value: DashboardFilterValue | null) => void) | undefined,
) {
  const latest = useRef(value);
  latest.current = value;
  return {
    current: () => latest.current,
    set: (next: DashboardFilterValue | null) => {
      latest.current = next ?? undefined;
      onChange?.(next);
    },
  };
}

/**
 * The checkbox column of a table whose rows can be selected (docs/dashboards.md "Tables"): a row's
 * box adds its `select_by` value to the table's filter or takes it out; the header's box selects or
 * clears every row of the page. Selected rows narrow the other components, as a clicked bar does.
 * The key comes with each row whether or not the table or its reader shows its column. None when
 * the table names no selection column.
 */
export function selectionColumn(
  answer: Pick<PreviewAnswer, 'columns' | 'rows' | 'select_by'>,
  label: string,
  selection: ReturnType<typeof useLatestSelection>,
): LeadingColumn | undefined {
  const column = answer.select_by;
  if (column === undefined) return undefined;
  if (!answer.columns.some((each) => each.name === column) && !answer.rows.some((row) => column in row)) {
    return undefined;
  }
  const selected = selectedKeys(selection.current());
  // A filter lists at most 1,000 values (common/src/dashboard-data.ts).
  const set = (keys: Key[]) => selection.set(keys.length === 0 ? null : keys.slice(0, 1000));
  const now = () => selectedKeys(selection.current());
  const pageKeys = answer.rows.map((row) => keyOf(row, column));
  const onPage = pageKeys.filter((key) => selected.includes(key)).length;
  return {
    header: (
      <Checkbox
        size="xs"
        aria-label={`Select every row of this page of ${label}`}
        checked={pageKeys.length > 0 && onPage === pageKeys.length}
        indeterminate={onPage > 0 && onPage < pageKeys.length}
        onChange={(event) => {
          const keys = now();
          set(
            event.currentTarget.checked
              ? [...keys, ...pageKeys.filter((key) => !keys.includes(key))]
              : keys.filter((key) => !pageKeys.includes(key)),
          );
        }}
      />
    ),
    cell: (row) => {
      const key = keyOf(row, column);
      const checked = selected.includes(key);
      return (
        <Checkbox
          size="xs"
          aria-label={`Select ${column} ${formatValue(key)}`}
          checked={checked}
          onChange={() => {
            const keys = now();
            set(keys.includes(key) ? keys.filter((each) => each !== key) : [...keys, key]);
          }}
        />
      );
    },
  };
}
