import { Button, CloseButton, Group, Paper, Text } from '@mantine/core';
import type { TableColumn } from '@service/common';
import { PagingHeader } from '../Paging.js';
import { describeColumnFilter } from './ColumnFilter.js';
import { ColumnsMenu } from './ColumnsMenu.js';
import { type TableState, withColumnFilter } from './table-state.js';

/**
 * Above a table's rows (the paging header a gallery shares, Paging.tsx): how many rows match, the
 * reader's header filters as removable chips (they narrow this table only, so they are its own,
 * not the dashboard's), "Updating" and "Columns".
 */
export function TableBar({
  label,
  total,
  all,
  table,
  updating,
}: {
  label: string;
  total: number;
  all: readonly TableColumn[];
  table: TableState;
  updating: boolean;
}) {
  const { view, setView, reading } = table;
  const filters = view.column_filters ?? [];
  return (
    <PagingHeader
      label={label}
      total={total}
      noun="rows"
      updating={updating}
      start={
        filters.length > 0 && (
          <Group gap={4} role="group" aria-label={`Column filters of ${label}`}>
            {filters.map((filter) => {
              const text = describeColumnFilter(filter);
              return (
                <Paper key={filter.column} withBorder radius="xl" px="xs" py={0}>
                  <Group gap={2} wrap="nowrap">
                    <Text size="xs">{text}</Text>
                    <CloseButton
                      size="xs"
                      aria-label={`Remove column filter ${text}`}
                      onClick={() => setView((current) => withColumnFilter(current, filter.column, null))}
                    />
                  </Group>
                </Paper>
              );
            })}
            <Button
              size="compact-xs"
              variant="subtle"
              onClick={() => setView((current) => ({ ...current, column_filters: [] }))}
            >
              Clear column filters
            </Button>
          </Group>
        )
      }
      end={
        reading !== undefined && (
          <ColumnsMenu
            label={label}
            all={all}
            chosen={view.columns}
            onChange={(columns) =>
              setView((current) => {
                const next = { ...current };
                if (columns === undefined) delete next.columns;
                else next.columns = columns;
                return next;
              })
            }
          />
        )
      }
    />
  );
}
