import {
  Alert,
  Badge,
  Button,
  Drawer,
  Group,
  List,
  Loader,
  NativeSelect,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import {
  type Dashboard,
  type DashboardAtRevision,
  type DashboardRevision,
  dashboardAtRevisionSchema,
  dashboardRevisionListSchema,
  dashboardSchema,
  describeChanges,
  summarizeChanges,
} from '@service/common';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { formatDate } from '../format/date.js';
import { revisionPath } from './AtRevision.js';
import { componentLabel } from './chips.js';

const revisionsKey = (dashboardId: string) => ['dashboard-revisions', dashboardId];

function useRevision(dashboardId: string, revision: number | null) {
  const api = useApi();
  return useQuery({
    queryKey: ['dashboard-revision', dashboardId, revision],
    enabled: revision !== null,
    queryFn: ({ signal }) =>
      api.request(`/dashboards/${dashboardId}/revisions/${revision}`, dashboardAtRevisionSchema, { signal }),
  });
}

/**
 * One revision as saved, read-only: its title, description, tabs and components in layout order,
 * and the way to see it with data, today's or as it was when it was saved (time travel).
 */
function RevisionView({ saved, onLeave }: { saved: DashboardAtRevision; onLeave: () => void }) {
  const tabs = new Map(saved.tabs.map((tab) => [tab.tab_id, tab.title]));
  const navigate = useNavigate();
  const open = (asOf: string | null) => {
    onLeave();
    void navigate(revisionPath(saved.dashboard_id, saved.revision.revision, asOf));
  };
  return (
    <Stack gap="xs" aria-label={`Revision ${saved.revision.revision}, read-only`} role="region">
      <Title order={3}>
        Revision {saved.revision.revision}: {saved.title}
      </Title>
      {saved.description !== '' && <Text size="sm">{saved.description}</Text>}
      <Text size="sm" c="dimmed">
        Saved {formatDate(saved.revision.saved_at)}
        {saved.revision.saved_by_email ? ` by ${saved.revision.saved_by_email}` : ''} · {saved.components.length}{' '}
        components{saved.tabs.length > 0 ? ` in ${saved.tabs.length} tabs` : ''}
      </Text>
      <List size="sm">
        {saved.components.map((component) => (
          <List.Item key={component.component_id}>
            {component.title || (component.type === 'text' ? 'Text' : componentLabel(component))}{' '}
            <Text span c="dimmed" size="xs">
              ({component.component_id}
              {component.tab_id !== undefined && tabs.has(component.tab_id)
                ? `, tab ${tabs.get(component.tab_id)}`
                : ''}
              )
            </Text>
          </List.Item>
        ))}
      </List>
      <Group gap="xs">
        <Button size="compact-sm" variant="light" onClick={() => open(null)}>
          Show with today's data
        </Button>
        <Button size="compact-sm" variant="light" onClick={() => open(saved.revision.saved_at)}>
          Show with the data as it was then
        </Button>
      </Group>
    </Stack>
  );
}

/** What changed between two revisions, from the older to the newer (the same summary the server keeps). */
function Comparison({ dashboardId, revisions }: { dashboardId: string; revisions: readonly DashboardRevision[] }) {
  const numbers = revisions.map((revision) => String(revision.revision));
  const [from, setFrom] = useState(numbers[1] ?? numbers[0] ?? '');
  const [to, setTo] = useState(numbers[0] ?? '');
  const older = useRevision(dashboardId, from === '' ? null : Number(from));
  const newer = useRevision(dashboardId, to === '' ? null : Number(to));
  const lines =
    older.data && newer.data
      ? describeChanges(summarizeChanges(older.data, newer.data)).filter((l) => l !== 'Created')
      : null;
  return (
    <Stack gap="xs">
      <Title order={3}>Compare two revisions</Title>
      <Group grow>
        <NativeSelect
          label="From revision"
          data={numbers}
          value={from}
          onChange={(e) => setFrom(e.currentTarget.value)}
        />
        <NativeSelect label="To revision" data={numbers} value={to} onChange={(e) => setTo(e.currentTarget.value)} />
      </Group>
      {lines === null ? (
        <Loader size="xs" aria-label="Loading the revisions to compare" />
      ) : (
        <List size="sm" aria-label="Changes between the revisions">
          {lines.map((line) => (
            <List.Item key={line}>{line}</List.Item>
          ))}
        </List>
      )}
    </Stack>
  );
}

function RevisionRows({
  revisions,
  onView,
  onRestore,
  restoring,
}: {
  revisions: readonly DashboardRevision[];
  onView: (revision: number) => void;
  onRestore: (revision: number) => void;
  restoring: number | null;
}) {
  return (
    <Table aria-label="Revisions" striped>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Revision</Table.Th>
          <Table.Th>Saved</Table.Th>
          <Table.Th>Changes</Table.Th>
          <Table.Th>Actions</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {revisions.map((revision, index) => (
          <Table.Tr key={revision.revision} data-revision={revision.revision}>
            <Table.Td>
              {revision.revision}
              {index === 0 && (
                <Badge ml="xs" size="xs" variant="light">
                  current
                </Badge>
              )}
            </Table.Td>
            <Table.Td>
              {formatDate(revision.saved_at)}
              <Text size="xs" c="dimmed">
                {revision.saved_by_email ?? 'a removed account'}
              </Text>
            </Table.Td>
            <Table.Td>
              <Text size="xs">{describeChanges(revision.summary).join(' · ')}</Text>
            </Table.Td>
            <Table.Td>
              <Group gap={4} wrap="nowrap">
                <Button size="compact-xs" variant="subtle" onClick={() => onView(revision.revision)}>
                  View
                </Button>
                {index > 0 && (
                  <Button
                    size="compact-xs"
                    variant="light"
                    loading={restoring === revision.revision}
                    aria-label={`Restore revision ${revision.revision}`}
                    onClick={() => onRestore(revision.revision)}
                  >
                    Restore
                  </Button>
                )}
              </Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/**
 * The dashboard's history (docs/dashboards.md "History"), for its editors: every saved revision
 * with who saved it and what changed, any one shown read-only (and opened with data,
 * `AtRevision.tsx`), two compared, and a restore, which saves that content as a new revision.
 */
export function HistoryDrawer({
  dashboard,
  opened,
  onClose,
}: {
  dashboard: Dashboard;
  opened: boolean;
  onClose: () => void;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const id = dashboard.dashboard_id;
  const [viewed, setViewed] = useState<number | null>(null);
  const revisions = useQuery({
    queryKey: revisionsKey(id),
    enabled: opened,
    queryFn: ({ signal }) =>
      api.request(`/dashboards/${id}/revisions`, dashboardRevisionListSchema, { query: { limit: 200 }, signal }),
  });
  const shown = useRevision(id, viewed);
  const restore = useMutation({
    mutationFn: (revision: number) =>
      api.request(`/dashboards/${id}/revisions/${revision}/restore`, dashboardSchema, { method: 'POST' }),
    onSuccess: (saved) => {
      queryClient.setQueryData(['dashboard', saved.dashboard_id], saved);
      void queryClient.invalidateQueries({ queryKey: ['dashboard', saved.dashboard_id] });
      void queryClient.invalidateQueries({ queryKey: revisionsKey(id) });
      setViewed(null);
    },
  });
  return (
    <Drawer opened={opened} onClose={onClose} title="History" position="right" size="xl">
      <Stack>
        {restore.isError && (
          <Alert color="red" role="alert" title="The revision was not restored">
            {errorMessage(restore.error)}
          </Alert>
        )}
        {revisions.isPending && <Loader size="sm" aria-label="Loading the history" />}
        {revisions.isError && (
          <Alert color="red" role="alert" title="Could not load the history">
            {errorMessage(revisions.error)}
          </Alert>
        )}
        {revisions.data && (
          <RevisionRows
            revisions={revisions.data.items}
            onView={setViewed}
            onRestore={(revision) => restore.mutate(revision)}
            restoring={restore.isPending ? (restore.variables ?? null) : null}
          />
        )}
        {shown.data && <RevisionView saved={shown.data} onLeave={onClose} />}
        {revisions.data && revisions.data.items.length > 1 && (
          <Comparison dashboardId={id} revisions={revisions.data.items} />
        )}
      </Stack>
    </Drawer>
  );
}
