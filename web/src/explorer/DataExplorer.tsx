import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Card,
  Code,
  Drawer,
  Group,
  Loader,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
  UnstyledButton,
  VisuallyHidden,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { type DataCollection, summaryAnswerSchema, tableVersionListSchema, valuesAnswerSchema } from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { TableRows } from '../components/RowsTable.js';
import { UploadPanel } from '../components/UploadPanel.js';
import { UrlPagination, usePageParam } from '../components/UrlPagination.js';
import { formatDate } from '../format/date.js';
import { formatCount } from '../format/number.js';
import { formatCell, formatStatistic } from './format.js';
import { PREVIEW_PAGE_SIZE, previewQuery } from './queries.js';
import { nextSort } from './sort.js';
import { type ExplorerActions, type ExplorerState, type ExplorerView, useExplorerState } from './url-state.js';

const VERSIONS_PAGE_SIZE = 20;
const VALUES_LIMIT = 100;

function Failure({ title, error }: { title: string; error: unknown }) {
  return (
    <Alert color="red" role="alert" title={title}>
      {errorMessage(error)}
    </Alert>
  );
}

const SORT_ARROW = { asc: '▲', desc: '▼' } as const;
const ARIA_SORT = { asc: 'ascending', desc: 'descending' } as const;

/** What every view of the explorer gets: the collection, the URL-backed state and its setters. */
interface ViewProps {
  collection: DataCollection;
  state: ExplorerState;
  actions: ExplorerActions;
}

function PreviewView({ collection, state, actions }: ViewProps) {
  const api = useApi();
  const page = usePageParam();
  const preview = useQuery(previewQuery(api, collection.data_collection_id, { page, ...state }));
  if (preview.isPending) return <Loader aria-label="Loading preview" />;
  if (preview.isError) return <Failure title="Could not load the preview" error={preview.error} />;
  const { columns, rows, total } = preview.data;
  if (columns.length === 0) return <Text c="dimmed">No data yet: upload or ingest files for this collection.</Text>;
  const pages = Math.max(1, Math.ceil(total / PREVIEW_PAGE_SIZE));
  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        {formatCount(total)} rows · version {preview.data.version ?? '—'}
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
              {columns.map((column) => {
                const rank = state.sort.findIndex((key) => key.column === column.name);
                const key = state.sort[rank];
                return (
                  <Table.Th key={column.name} aria-sort={key ? ARIA_SORT[key.direction] : undefined}>
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
              })}
            </Table.Tr>
          </Table.Thead>
          <TableRows columns={columns} rows={rows} />
        </Table>
      </Table.ScrollContainer>
      <UrlPagination pages={pages} label="Preview pages" />
    </Stack>
  );
}

function ColumnsView({ collection, state, actions }: ViewProps) {
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
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Column</Table.Th>
              <Table.Th>Type</Table.Th>
              <Table.Th ta="right">Values</Table.Th>
              <Table.Th ta="right">Nulls</Table.Th>
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
          <Table.Tbody>
            {columns.map((column) => (
              <Table.Tr key={column.name}>
                <Table.Th scope="row">{column.name}</Table.Th>
                <Table.Td>
                  <Code>{column.type}</Code>
                </Table.Td>
                <Table.Td ta="right">{formatCount(column.count)}</Table.Td>
                <Table.Td ta="right">{formatCount(column.nulls)}</Table.Td>
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
                    onClick={() => actions.showValues(column.name)}
                  >
                    Values
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

function VersionsView({ collection, state, actions }: ViewProps) {
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

function ValuesDrawer({ collection, state, actions }: ViewProps) {
  const api = useApi();
  const column = state.valuesOf;
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const values = useQuery({
    queryKey: ['values', collection.data_collection_id, column, debounced, state.version],
    queryFn: ({ signal }) =>
      api.request(
        `/datacollections/${collection.data_collection_id}/values/${encodeURIComponent(column ?? '')}`,
        valuesAnswerSchema,
        {
          query: {
            limit: VALUES_LIMIT,
            search: debounced === '' ? undefined : debounced,
            version: state.version ?? undefined,
          },
          signal,
        },
      ),
    enabled: column !== null,
    placeholderData: keepPreviousData,
  });
  const total = values.data?.values.reduce((sum, entry) => sum + entry.count, 0) ?? 0;
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
        {values.data && values.data.values.length > 0 && (
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
                {values.data.values.map((entry) => (
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
              {values.data.truncated
                ? `The ${values.data.values.length} most frequent values; shares are of these rows only.`
                : `All ${values.data.values.length} distinct values, most frequent first.`}
            </Text>
          </>
        )}
      </Stack>
    </Drawer>
  );
}

const VIEW_LABELS: Record<ExplorerView, string> = { preview: 'Rows', columns: 'Columns', versions: 'Versions' };

/**
 * A data collection's explorer: its rows (paged, sortable), its columns with statistics, the
 * distinct values of a column and the table's versions, each readable at an earlier version.
 * Loaded lazily: the project page shows it only once a collection is chosen.
 */
export function DataExplorer({ collection, canEdit }: { collection: DataCollection; canEdit: boolean }) {
  const [state, actions] = useExplorerState();
  return (
    <Card withBorder radius="md" component="section" aria-label={`Data collection ${collection.tag}`}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={3}>{collection.tag}</Title>
          <Group gap="xs">
            <Badge variant="light">{collection.format}</Badge>
            {collection.keys && <Badge variant="outline">keys: {collection.keys.join(', ')}</Badge>}
          </Group>
        </Group>
        <Text size="sm">
          Pattern <Code>{collection.pattern}</Code>
        </Text>
        {canEdit && <UploadPanel collection={collection} />}
        {state.version !== null && (
          <Alert color="yellow" title={`Reading version ${state.version}`}>
            <Group justify="space-between">
              <Text size="sm">These are the table’s rows as they were at version {state.version}, not the latest.</Text>
              <Button size="xs" variant="light" onClick={() => actions.browseVersion(null)}>
                Back to the latest version
              </Button>
            </Group>
          </Alert>
        )}
        <Tabs
          value={state.view}
          onChange={(value) => actions.setView((value as ExplorerView | null) ?? 'preview')}
          keepMounted={false}
        >
          <Tabs.List aria-label="Explorer views">
            {(Object.keys(VIEW_LABELS) as ExplorerView[]).map((view) => (
              <Tabs.Tab key={view} value={view}>
                {VIEW_LABELS[view]}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          <Tabs.Panel value="preview" pt="sm">
            <PreviewView collection={collection} state={state} actions={actions} />
          </Tabs.Panel>
          <Tabs.Panel value="columns" pt="sm">
            <ColumnsView collection={collection} state={state} actions={actions} />
          </Tabs.Panel>
          <Tabs.Panel value="versions" pt="sm">
            <VersionsView collection={collection} state={state} actions={actions} />
          </Tabs.Panel>
        </Tabs>
      </Stack>
      <ValuesDrawer collection={collection} state={state} actions={actions} />
    </Card>
  );
}
