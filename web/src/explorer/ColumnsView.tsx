import { Button, Code, Loader, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { type SummaryAnswer, summaryAnswerSchema } from '@service/common';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../auth/session.js';
import { formatCount } from '../format/number.js';
import { formatCell, formatStatistic } from './format.js';
import { Failure, type ViewProps } from './view.js';

type ColumnSummary = SummaryAnswer['columns'][number];

/** Each column with its statistics. */
export function ColumnsView({ collection, state, actions }: ViewProps) {
  const api = useApi();
  const summary = useQuery({
    queryKey: ['summary', collection.data_collection_id, state.version],
    queryFn: ({ signal }) =>
      api.request(`/datacollections/${collection.data_collection_id}/summary`, summaryAnswerSchema, {
        query: { version: state.version ?? undefined },
        signal,
      }),
  });
  if (summary.isPending) return <Loader aria-label="Loading column statistics" />;
  if (summary.isError) return <Failure title="Could not load the column statistics" error={summary.error} />;
  const { columns, rows } = summary.data;
  if (columns.length === 0) return <Text c="dimmed">No data yet: upload or ingest files for this collection.</Text>;
  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        {formatCount(rows)} rows · {columns.length} columns · version {summary.data.version ?? '—'}
      </Text>
      <Table.ScrollContainer minWidth={900}>
        <Table striped withTableBorder aria-label={`Columns of ${collection.tag}`}>
          <ColumnsHeader />
          <Table.Tbody>
            {columns.map((column) => (
              <ColumnRow key={column.name} column={column} onValues={actions.showValues} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

/** The statistics' headings. */
function ColumnsHeader() {
  return (
    <Table.Thead>
      <Table.Tr>
        <Table.Th>Column</Table.Th>
        <Table.Th>Type</Table.Th>
        <Table.Th ta="right">Values</Table.Th>
        <Table.Th ta="right">Nulls</Table.Th>
        <Table.Th
          ta="right"
          title="Values that are NaN, Infinity or -Infinity: counted as values, left out of min, max, mean and std dev"
        >
          NaN/±∞
        </Table.Th>
        <Table.Th ta="right">Distinct</Table.Th>
        <Table.Th>Min</Table.Th>
        <Table.Th>Max</Table.Th>
        <Table.Th ta="right">Mean</Table.Th>
        <Table.Th ta="right">Std dev</Table.Th>
        <Table.Th>
          <VisuallyHidden>Distinct values</VisuallyHidden>
        </Table.Th>
      </Table.Tr>
    </Table.Thead>
  );
}

/** One column's statistics, and a button for its distinct values. */
function ColumnRow({ column, onValues }: { column: ColumnSummary; onValues: (column: string) => void }) {
  return (
    <Table.Tr>
      <Table.Th scope="row">{column.name}</Table.Th>
      <Table.Td>
        <Code>{column.type}</Code>
      </Table.Td>
      <Table.Td ta="right">{formatCount(column.count)}</Table.Td>
      <Table.Td ta="right">{formatCount(column.nulls)}</Table.Td>
      <Table.Td ta="right">{formatCount(column.non_finite)}</Table.Td>
      <Table.Td ta="right">{formatCount(column.distinct)}</Table.Td>
      <Table.Td>
        <Text size="sm" ff="monospace" truncate maw={200}>
          {formatCell(column.min)}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm" ff="monospace" truncate maw={200}>
          {formatCell(column.max)}
        </Text>
      </Table.Td>
      <Table.Td ta="right">{formatStatistic(column.mean)}</Table.Td>
      <Table.Td ta="right">{formatStatistic(column.std)}</Table.Td>
      <Table.Td>
        <Button
          size="compact-xs"
          variant="light"
          aria-label={`Distinct values of ${column.name}`}
          onClick={() => onValues(column.name)}
        >
          Values
        </Button>
      </Table.Td>
    </Table.Tr>
  );
}
