import { ActionIcon, Button, Group, Loader, Stack, Table, Text, UnstyledButton } from '@mantine/core';
import type { PreviewAnswer } from '@service/common';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../auth/session.js';
import { TableRows } from '../components/RowsTable.js';
import { UrlPagination, usePageParam } from '../components/UrlPagination.js';
import { formatCount } from '../format/number.js';
import { PREVIEW_PAGE_SIZE, previewQuery } from './queries.js';
import { RowFilter } from './RowFilter.js';
import { nextSort } from './sort.js';
import { Failure, type ViewProps } from './view.js';

const SORT_ARROW = { asc: '▲', desc: '▼' } as const;
const ARIA_SORT = { asc: 'ascending', desc: 'descending' } as const;

/** The rows, a page at a time, sorted by the columns clicked. */
export function PreviewView({ collection, state, actions }: ViewProps) {
  const api = useApi();
  const page = usePageParam();
  const preview = useQuery(previewQuery(api, collection.data_collection_id, { page, ...state }));
  if (preview.isPending) return <Loader aria-label="Loading preview" />;
  if (preview.isError) {
    return (
      <Stack gap="xs" align="flex-start">
        <Failure title="Could not load the preview" error={preview.error} />
        {state.filters.length > 0 && (
          <Button size="xs" variant="light" onClick={() => actions.setFilters([])}>
            Remove the row filters
          </Button>
        )}
      </Stack>
    );
  }
  const { columns, rows, total } = preview.data;
  if (columns.length === 0 && state.filters.length === 0)
    return <Text c="dimmed">No data yet: upload or ingest files for this collection.</Text>;
  const pages = Math.max(1, Math.ceil(total / PREVIEW_PAGE_SIZE));
  return (
    <Stack gap="sm">
      <RowFilter columns={columns.map((column) => column.name)} state={state} actions={actions} />
      <Text size="sm" c="dimmed">
        {formatCount(total)} rows{state.filters.length > 0 ? ' match the filters' : ''} · version{' '}
        {preview.data.version ?? '—'}
        {state.sort.length > 0 &&
          ` · sorted by ${state.sort.map((key) => `${key.column} ${key.direction === 'asc' ? '↑' : '↓'}`).join(', ')}`}
      </Text>
      <Table.ScrollContainer minWidth={columns.length * 140} maxHeight={520}>
        <Table
          striped
          withTableBorder
          withColumnBorders
          stickyHeader
          aria-label={`Preview of ${collection.tag}`}
          // The previous rows stay while the next page or sort loads, dimmed and marked busy.
          aria-busy={preview.isPlaceholderData}
          style={{ opacity: preview.isPlaceholderData ? 0.6 : 1 }}
        >
          <Table.Thead>
            <Table.Tr>
              {columns.map((column) => (
                <ColumnHeader key={column.name} column={column} state={state} actions={actions} />
              ))}
            </Table.Tr>
          </Table.Thead>
          <TableRows columns={columns} rows={rows} />
        </Table>
      </Table.ScrollContainer>
      <UrlPagination pages={pages} label="Preview pages" />
    </Stack>
  );
}

/** A column's header: its name sorts by it (shift adds it to the sort), its type, a button to its values. */
function ColumnHeader({
  column,
  state,
  actions,
}: { column: PreviewAnswer['columns'][number] } & Pick<ViewProps, 'state' | 'actions'>) {
  const rank = state.sort.findIndex((key) => key.column === column.name);
  const key = state.sort[rank];
  return (
    <Table.Th aria-sort={key ? ARIA_SORT[key.direction] : undefined}>
      <Group gap={4} wrap="nowrap" justify="space-between">
        <Group gap={4} wrap="nowrap">
          {/* The browser's own tooltip, as in RowsTable: a Mantine Tooltip per column weighed on the first render. */}
          <UnstyledButton
            title={`${column.description ? `${column.description} · ` : ''}Click to sort; shift-click to sort by several columns`}
            aria-label={`Sort by ${column.name}`}
            onClick={(event) => actions.setSort(nextSort(state.sort, column.name, event.shiftKey))}
          >
            <Text span fw={600} size="sm">
              {column.name}
            </Text>
            {key && (
              <Text span size="xs" ml={4} aria-hidden="true">
                {SORT_ARROW[key.direction]}
                {state.sort.length > 1 ? rank + 1 : ''}
              </Text>
            )}
          </UnstyledButton>
          {/* Outside the button, whose name ("Sort by …") must hold all the text it shows. */}
          <Text span size="xs" c="dimmed">
            {column.type}
          </Text>
        </Group>
        <ActionIcon
          size="sm"
          variant="subtle"
          aria-label={`Distinct values of ${column.name}`}
          onClick={() => actions.showValues(column.name)}
        >
          <span aria-hidden="true">≡</span>
        </ActionIcon>
      </Group>
    </Table.Th>
  );
}
