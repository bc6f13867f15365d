import { Alert, Button, Menu, Stack } from '@mantine/core';
import { dashboardSchema } from '@service/common';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';

type Template = 'empty' | 'overview';

/**
 * "New dashboard" on a project's page (its owners and editors): an empty one, or the overview the
 * server generates from the project's collections; either opens in edit mode.
 */
export function NewDashboardMenu({ projectId }: { projectId: string }) {
  const api = useApi();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: (template: Template) =>
      api.request('/dashboards', dashboardSchema, {
        method: 'POST',
        json:
          template === 'empty'
            ? { project_id: projectId, title: 'Untitled dashboard' }
            : { project_id: projectId, title: 'Overview', template: 'overview' },
      }),
    onSuccess: (dashboard) => navigate(`/dashboards/${dashboard.dashboard_id}?edit=1`),
  });
  return (
    <Stack gap={4} align="flex-end">
      <Menu position="bottom-end">
        <Menu.Target>
          <Button size="xs" loading={create.isPending}>
            New dashboard
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item onClick={() => create.mutate('empty')}>Empty dashboard</Menu.Item>
          <Menu.Item onClick={() => create.mutate('overview')}>Overview of the project’s data</Menu.Item>
        </Menu.Dropdown>
      </Menu>
      {create.isError && (
        <Alert color="red" role="alert" p="xs">
          {errorMessage(create.error)}
        </Alert>
      )}
    </Stack>
  );
}
