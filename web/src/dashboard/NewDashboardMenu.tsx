import { Alert, Button, Menu, Stack } from '@mantine/core';
import { dashboardSchema } from '@service/common';
import { useMutation } from '@tanstack/react-query';
import { useRef } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';

type Template = 'empty' | 'overview';

/**
 * "New dashboard" on a project's page (its owners and editors): an empty one, or the overview the
 * server generates from the project's collections (either opens in edit mode), or one uploaded as
 * a dashboard.yaml.
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
  const picker = useRef<HTMLInputElement>(null);
  // The server checks the file and names the line of each problem; it opens as saved, not in edit mode.
  const upload = useMutation({
    mutationFn: async (file: File) =>
      api.request('/dashboards/import', dashboardSchema, {
        method: 'POST',
        query: { project_id: projectId },
        json: { yaml: await file.text() },
      }),
    onSuccess: (dashboard) => navigate(`/dashboards/${dashboard.dashboard_id}`),
  });
  const failure = create.error ?? upload.error;
  return (
    <Stack gap={4} align="flex-end">
      <Menu position="bottom-end">
        <Menu.Target>
          <Button size="xs" loading={create.isPending || upload.isPending}>
            New dashboard
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item onClick={() => create.mutate('empty')}>Empty dashboard</Menu.Item>
          <Menu.Item onClick={() => create.mutate('overview')}>Overview of the project’s data</Menu.Item>
          <Menu.Item onClick={() => picker.current?.click()}>Upload a dashboard.yaml…</Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <input
        ref={picker}
        type="file"
        accept=".yaml,.yml,application/yaml,text/yaml"
        aria-label="Dashboard YAML file"
        hidden
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          event.currentTarget.value = '';
          if (file) upload.mutate(file);
        }}
      />
      {failure && (
        <Alert color="red" role="alert" p="xs" maw={480}>
          {errorMessage(failure)}
        </Alert>
      )}
    </Stack>
  );
}
