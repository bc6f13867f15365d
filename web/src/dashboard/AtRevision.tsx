import { Alert, Button, Group, Loader, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { dashboardAtRevisionSchema } from '@service/common';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { formatDate } from '../format/date.js';
import { DashboardView } from './DashboardView.js';

/** `?revision=N` (and `as_of=` its save time, for the data as it was then), as History opens it. */
export function revisionPath(dashboardId: string, revision: number, savedAt: string | null): string {
  const query = new URLSearchParams({ revision: String(revision) });
  if (savedAt !== null) query.set('as_of', savedAt);
  return `/dashboards/${dashboardId}?${query.toString()}`;
}

/**
 * A past revision of a dashboard with data (docs/dashboards.md "History"), read-only: its components
 * as saved then, computed with today's data or, with `as_of` set to when it was saved, with the data
 * as it was then (time travel). Restoring it is History's.
 */
export function DashboardAtRevision({ dashboardId, revision }: { dashboardId: string; revision: number }) {
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const saved = useQuery({
    queryKey: ['dashboard-revision', dashboardId, revision],
    queryFn: ({ signal }) =>
      api.request(`/dashboards/${dashboardId}/revisions/${revision}`, dashboardAtRevisionSchema, { signal }),
  });
  if (saved.isPending) return <Loader aria-label="Loading the revision" />;
  if (saved.isError)
    return (
      <Alert color="red" role="alert" title="Could not load the revision">
        {errorMessage(saved.error)}
      </Alert>
    );
  const { data } = saved;
  const savedAt = data.revision.saved_at;
  const then = params.get('as_of') === savedAt;
  const choose = (value: string) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      if (value === 'then') next.set('as_of', savedAt);
      else next.delete('as_of');
      return next;
    });
  const by = data.revision.saved_by_email ? ` by ${data.revision.saved_by_email}` : '';
  return (
    <Stack gap="md">
      <Title order={1}>{data.title}</Title>
      <Alert
        color="grape"
        variant="light"
        // A region named by its title (the revision), not an alert: it is the page's subject.
        role="region"
        title={`Revision ${revision}, as saved ${formatDate(savedAt)}${by} (read-only)`}
      >
        <Stack gap="xs" align="flex-start">
          <Text size="sm">
            {then ? 'Its components with the data as it was when it was saved.' : "Its components with today's data."}{' '}
            Restore it from History to make it the dashboard again.
          </Text>
          <Group gap="sm">
            <SegmentedControl
              size="xs"
              aria-label="Data shown"
              value={then ? 'then' : 'now'}
              onChange={choose}
              data={[
                { value: 'now', label: "Today's data" },
                { value: 'then', label: 'Data as it was then' },
              ]}
            />
            <Button size="compact-sm" variant="light" component={Link} to={`/dashboards/${dashboardId}`}>
              Back to the current dashboard
            </Button>
          </Group>
        </Stack>
      </Alert>
      <DashboardView dashboard={data} atRevision />
    </Stack>
  );
}
