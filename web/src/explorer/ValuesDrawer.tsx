import { Drawer, Loader, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { type ValuesAnswer, valuesAnswerSchema } from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../auth/session.js';
import { formatCount } from '../format/number.js';
import { formatCell } from './format.js';
import { formatFilters } from './row-filter.js';
import { Failure, type ViewProps } from './view.js';

const VALUES_LIMIT = 100;

/** The distinct values of the column chosen (`valuesOf`), most frequent first, searchable. */
export function ValuesDrawer({ collection, state, actions }: ViewProps) {
  const api = useApi();
  const column = state.valuesOf;
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const values = useQuery({
    queryKey: ['values', collection.data_collection_id, column, debounced, state.version, formatFilters(state.filters)],
    queryFn: ({ signal }) =>
      api.request(
        `/datacollections/${collection.data_collection_id}/values/${encodeURIComponent(column ?? '')}`,
        valuesAnswerSchema,
        {
          query: {
            limit: VALUES_LIMIT,
            search: debounced === '' ? undefined : debounced,
            version: state.version ?? undefined,
            filters: formatFilters(state.filters) ?? undefined,
          },
          signal,
        },
      ),
    enabled: column !== null,
    placeholderData: keepPreviousData,
  });
  return (
    <Drawer
      opened={column !== null}
      onClose={() => {
        setSearch('');
        actions.showValues(null);
      }}
      position="right"
      size="md"
      title={<Title order={3}>Distinct values of {column}</Title>}
    >
      <Stack gap="sm">
        <TextInput
          label="Search values"
          placeholder="Part of a value"
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
        />
        {values.isPending && <Loader aria-label="Loading values" />}
        {values.isError && <Failure title="Could not load the values" error={values.error} />}
        {values.data && values.data.values.length === 0 && <Text c="dimmed">No value matches.</Text>}
        {values.data && values.data.values.length > 0 && <ValuesTable column={column} answer={values.data} />}
      </Stack>
    </Drawer>
  );
}

/** The values with their rows and share, and whether they are all of them or the most frequent. */
function ValuesTable({ column, answer }: { column: string | null; answer: ValuesAnswer }) {
  // A share is of every row under the filters, not of the values listed (the search aside).
  const total = answer.total_rows;
  return (
    <>
      <Table striped withTableBorder aria-label={`Values of ${column}`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Value</Table.Th>
            <Table.Th ta="right">Rows</Table.Th>
            <Table.Th ta="right">Share</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {answer.values.map((entry) => (
            <Table.Tr key={formatCell(entry.value)}>
              <Table.Td>
                <Text size="sm" ff="monospace" truncate maw={260}>
                  {formatCell(entry.value)}
                </Text>
              </Table.Td>
              <Table.Td ta="right">{formatCount(entry.count)}</Table.Td>
              <Table.Td ta="right">{total > 0 ? `${((entry.count / total) * 100).toFixed(1)}%` : ''}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text size="xs" c="dimmed">
        {answer.truncated
          ? `The ${answer.values.length} most frequent values; shares are of all ${formatCount(answer.total_rows)} rows.`
          : `All ${answer.values.length} distinct values, most frequent first.`}
      </Text>
    </>
  );
}
