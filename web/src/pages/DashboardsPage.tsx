import { Alert, Anchor, Badge, Group, Loader, NativeSelect, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { type DashboardListItem, type DashboardSort, dashboardListSchema, dashboardSortSchema } from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { UrlPagination, usePageParam } from '../components/UrlPagination.js';
import { formatDate } from '../format/date.js';

const PAGE_SIZE = 50;
const SORTS: { value: DashboardSort; label: string }[] = [
  { value: 'updated', label: 'Last updated' },
  { value: 'title', label: 'Title' },
  { value: 'project', label: 'Project' },
  { value: 'created', label: 'Newest' },
];

/** Who owns a dashboard, as the caller may see it (anonymous visitors see no emails). */
export function ownersOf(dashboard: DashboardListItem): string {
  const emails = dashboard.permissions.owners.flatMap((owner) => (owner.email === undefined ? [] : [owner.email]));
  return emails.length === 0 ? '—' : emails.join(', ');
}

/**
 * The search box and sort order, kept in the address bar (`?q=`, `?sort=`) so a reload or a
 * shared link shows the same list. Typing is debounced: one request per pause, not per key.
 */
function useListParams() {
  const [params, setParams] = useSearchParams();
  const [typed, setTyped] = useState(params.get('q') ?? '');
  const [debounced] = useDebouncedValue(typed.trim(), 250);
  const parsedSort = dashboardSortSchema.safeParse(params.get('sort'));
  const sort: DashboardSort = parsedSort.success ? parsedSort.data : 'updated';
  useEffect(() => {
    if ((params.get('q') ?? '') === debounced) return;
    const next = new URLSearchParams(params);
    if (debounced === '') next.delete('q');
    else next.set('q', debounced);
    next.delete('page');
    setParams(next, { replace: true });
  }, [debounced, params, setParams]);
  const setSort = (value: string) => {
    const next = new URLSearchParams(params);
    next.set('sort', value);
    next.delete('page');
    setParams(next, { replace: true });
  };
  return { typed, setTyped, q: params.get('q') ?? '', sort, setSort };
}

function DashboardRows({ items }: { items: DashboardListItem[] }) {
  return (
    <Table.ScrollContainer minWidth={600}>
      <Table striped highlightOnHover verticalSpacing="sm" aria-label="Dashboards">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Title</Table.Th>
            <Table.Th>Project</Table.Th>
            <Table.Th>Owner</Table.Th>
            <Table.Th>Updated</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((dashboard) => (
            <Table.Tr key={dashboard.dashboard_id}>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <Anchor component={Link} to={`/dashboards/${dashboard.dashboard_id}`} fw={500}>
                    {dashboard.title}
                  </Anchor>
                  {dashboard.is_public && (
                    <Badge size="xs" variant="outline">
                      public
                    </Badge>
                  )}
                </Group>
              </Table.Td>
              <Table.Td>
                {/* A dashboard shared alone: no project name or link the reader could not open. */}
                {dashboard.project_name === null ? (
                  <Text span c="dimmed" size="sm">
                    shared with you alone
                  </Text>
                ) : dashboard.project_role === null ? (
                  dashboard.project_name
                ) : (
                  <Anchor component={Link} to={`/projects/${dashboard.project_id}`}>
                    {dashboard.project_name}
                  </Anchor>
                )}
              </Table.Td>
              <Table.Td>{ownersOf(dashboard)}</Table.Td>
              <Table.Td>{formatDate(dashboard.updated_at)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** Every dashboard the visitor may read (public ones for anonymous visitors in public and demo mode). */
export function DashboardsPage() {
  const api = useApi();
  const page = usePageParam();
  const { typed, setTyped, q, sort, setSort } = useListParams();
  const dashboards = useQuery({
    queryKey: ['dashboards', null, q, sort, page],
    queryFn: ({ signal }) =>
      api.request('/dashboards', dashboardListSchema, {
        query: { sort, limit: PAGE_SIZE, skip: (page - 1) * PAGE_SIZE, ...(q === '' ? {} : { q }) },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
  return (
    <Stack gap="md" component="section" aria-label="Dashboards">
      <Title order={1}>Dashboards</Title>
      <Group align="end" gap="sm">
        <TextInput
          type="search"
          label="Search dashboards"
          placeholder="Title contains…"
          value={typed}
          onChange={(event) => setTyped(event.currentTarget.value)}
          w={{ base: '100%', xs: 280 }}
        />
        <NativeSelect
          label="Sort by"
          data={SORTS}
          value={sort}
          onChange={(event) => setSort(event.currentTarget.value)}
        />
      </Group>
      {dashboards.isPending && <Loader size="sm" aria-label="Loading dashboards" />}
      {dashboards.isError && (
        <Alert color="red" role="alert">
          {errorMessage(dashboards.error)}
        </Alert>
      )}
      {dashboards.data && dashboards.data.items.length === 0 && (
        <Text size="sm" c="dimmed">
          {q === '' ? 'No dashboards yet.' : `No dashboard title contains “${q}”.`}
        </Text>
      )}
      {dashboards.data && dashboards.data.items.length > 0 && (
        <>
          <DashboardRows items={dashboards.data.items} />
          <UrlPagination pages={Math.ceil(dashboards.data.total / PAGE_SIZE)} label="Dashboard pages" />
        </>
      )}
    </Stack>
  );
}
