import { Button, CloseButton, Group, Loader, Paper, Text } from '@mantine/core';
import type { TableColumn } from '@service/common';
import { formatCount } from '../../format/number.js';
import { describeColumnFilter } from './ColumnFilter.js';
import { ColumnsMenu } from './ColumnsMenu.js';
import { type TableState, withColumnFilter } from './table-state.js';

/**
 * Above a table's rows: how many rows match, the reader's header filters as removable chips (they
 * narrow this table only, so they are its own, not the dashboard's), "Columns", and "Updating".
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
    <Group justify="space-between" gap="xs" wrap="nowrap">
      <Group gap="xs">
        <Text size="sm" c="dimmed">
          {formatCount(total)} rows
        </Text>
        {filters.length > 0 && (
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
        )}
      </Group>
      <Group gap="xs" wrap="nowrap">
        {updating && <Loader size="xs" role="status" aria-label={`Updating ${label}`} />}
        {reading !== undefined && (
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
        )}
      </Group>
    </Group>
  );
}
