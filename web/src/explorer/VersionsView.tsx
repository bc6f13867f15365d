import { Badge, Button, Loader, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { tableVersionListSchema } from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useApi } from '../auth/session.js';
import { UrlPagination, usePageParam } from '../components/UrlPagination.js';
import { formatDate } from '../format/date.js';
import { formatCount } from '../format/number.js';
import { Failure, type ViewProps } from './view.js';

const VERSIONS_PAGE_SIZE = 20;

/** The table's versions, newest first, each one browsable. */
export function VersionsView({ collection, state, actions }: ViewProps) {
  const api = useApi();
  const page = usePageParam('vpage');
  const versions = useQuery({
    queryKey: ['versions', collection.data_collection_id, page],
    queryFn: ({ signal }) =>
      api.request(`/datacollections/${collection.data_collection_id}/versions`, tableVersionListSchema, {
        query: { limit: VERSIONS_PAGE_SIZE, skip: (page - 1) * VERSIONS_PAGE_SIZE },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
  if (versions.isPending) return <Loader aria-label="Loading versions" />;
  if (versions.isError) return <Failure title="Could not load the versions" error={versions.error} />;
  const { items, total } = versions.data;
  if (total === 0) return <Text c="dimmed">The table has no versions yet.</Text>;
  // Newest first: the first item of the first page is the latest version.
  const latest = page === 1 ? items[0]?.version : undefined;
  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        {formatCount(total)} {total === 1 ? 'version' : 'versions'}, newest first
      </Text>
      <Table.ScrollContainer minWidth={700}>
        <Table striped withTableBorder aria-label={`Versions of ${collection.tag}`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Version</Table.Th>
              <Table.Th>Committed</Table.Th>
              <Table.Th>Operation</Table.Th>
              <Table.Th ta="right">Rows written</Table.Th>
              <Table.Th ta="right">Files added</Table.Th>
              <Table.Th ta="right">Files removed</Table.Th>
              <Table.Th>
                <VisuallyHidden>Browse</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((entry) => {
              const reading = state.version === entry.version || (state.version === null && entry.version === latest);
              return (
                <Table.Tr key={entry.version}>
                  <Table.Th scope="row">
                    {entry.version}
                    {entry.version === latest && (
                      <Badge size="xs" variant="light" ml={6}>
                        latest
                      </Badge>
                    )}
                  </Table.Th>
                  <Table.Td>{formatDate(entry.timestamp)}</Table.Td>
                  <Table.Td>{entry.operation ?? '—'}</Table.Td>
                  <Table.Td ta="right">{formatCount(entry.rows)}</Table.Td>
                  <Table.Td ta="right">{formatCount(entry.files_added)}</Table.Td>
                  <Table.Td ta="right">{formatCount(entry.files_removed)}</Table.Td>
                  <Table.Td>
                    <Button
                      size="compact-xs"
                      variant={reading ? 'filled' : 'light'}
                      aria-label={`${reading ? 'Browsing' : 'Browse'} version ${entry.version}`}
                      onClick={() => actions.browseVersion(entry.version === latest ? null : entry.version)}
                    >
                      {reading ? 'Browsing' : 'Browse'}
                    </Button>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <UrlPagination pages={Math.ceil(total / VERSIONS_PAGE_SIZE)} label="Version pages" param="vpage" />
    </Stack>
  );
}
