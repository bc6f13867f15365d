import { Alert, Anchor, Badge, Code, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { dashboardListSchema } from '@service/common';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../api/client.js';
import { projectDashboardsGet } from '../api/wire.js';
import { useApi } from '../auth/session.js';
import { formatDate } from '../format/date.js';

/** The dashboards of a project, or (without `projectId`) every dashboard the caller may read. */
export function DashboardList({
  projectId,
  heading,
  actions,
}: {
  projectId?: string;
  heading: 1 | 2;
  actions?: ReactNode;
}) {
  const api = useApi();
  const dashboards = useQuery({
    queryKey: ['dashboards', projectId ?? null],
    queryFn: ({ signal }) =>
      projectId === undefined
        ? api.request('/dashboards', dashboardListSchema, { query: { limit: 200 }, signal })
        : api.get(projectDashboardsGet(projectId), dashboardListSchema, signal),
  });
  return (
    <Stack gap="xs" component="section" aria-label="Dashboards">
      <Group justify="space-between">
        <Title order={heading} size={heading === 1 ? undefined : 'h3'}>
          Dashboards
        </Title>
        {actions}
      </Group>
      {dashboards.isPending && <Loader size="sm" aria-label="Loading dashboards" />}
      {dashboards.isError && (
        <Alert color="red" role="alert">
          {errorMessage(dashboards.error)}
        </Alert>
      )}
      {dashboards.data && dashboards.data.items.length === 0 && (
        <Text size="sm" c="dimmed">
          No dashboards yet. <Code>service ingest</Code> makes an overview dashboard of a results folder.
        </Text>
      )}
      {dashboards.data && dashboards.data.items.length > 0 && (
        <Stack gap={4} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {dashboards.data.items.map((dashboard) => (
            <li key={dashboard.dashboard_id}>
              <Group gap="xs">
                <Anchor component={Link} to={`/dashboards/${dashboard.dashboard_id}`} fw={500}>
                  {dashboard.title}
                </Anchor>
                <Text size="xs" c="dimmed">
                  {dashboard.components.length} component(s) · updated {formatDate(dashboard.updated_at)}
                </Text>
                {dashboard.is_public && (
                  <Badge size="xs" variant="outline">
                    public
                  </Badge>
                )}
              </Group>
            </li>
          ))}
        </Stack>
      )}
    </Stack>
  );
}
