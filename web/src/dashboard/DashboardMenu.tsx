import { Alert, Button, Group, Menu, Modal, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { type Dashboard, dashboardSchema } from '@service/common';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage } from '../api/client.js';
import { useApi, useAuth } from '../auth/session.js';
import { SharingEditor } from '../components/PermissionsPanel.js';
import { canEdit } from './DashboardActions.js';
import { saveFile } from './export/save-file.js';
import { HistoryDrawer } from './HistoryDrawer.js';

type Dialog = 'rename' | 'share' | 'history' | 'delete' | null;

/** Owners (and admins) share and delete; the server refuses everyone else anyway, and says why. */
const mayManage = (dashboard: Pick<Dashboard, 'my_role'>) =>
  dashboard.my_role === 'owner' || dashboard.my_role === 'admin';

/** A file name for the dashboard's YAML: its title in lower case, words joined by dashes. */
export function yamlFilename(title: string): string {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `${slug || 'dashboard'}.dashboard.yaml`;
}

/**
 * The dashboard's menu ("Dashboard ▾"): Rename, Duplicate, Share, History, Download YAML and Delete, each
 * offered to those whose standing (the server's `my_role`) allows it. Every change goes through
 * the API, whose refusal is shown as it is worded.
 */
export function DashboardMenu({ dashboard }: { dashboard: Dashboard }) {
  const api = useApi();
  const { user } = useAuth();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<Dialog>(null);
  const duplicate = useMutation({
    mutationFn: () =>
      api.request(`/dashboards/${dashboard.dashboard_id}/duplicate`, dashboardSchema, { method: 'POST', json: {} }),
    onSuccess: (copy) => {
      void queryClient.invalidateQueries({ queryKey: ['dashboards'] });
      navigate(`/dashboards/${copy.dashboard_id}`);
    },
  });
  const download = useMutation({
    mutationFn: () => api.requestBlob(`/dashboards/${dashboard.dashboard_id}/yaml`, { accept: 'application/yaml' }),
    onSuccess: (blob) => saveFile(blob, yamlFilename(dashboard.title)),
  });
  const failure = duplicate.error ?? download.error;
  return (
    <>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <Button size="xs" variant="default" loading={duplicate.isPending || download.isPending}>
            Dashboard ▾
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          {canEdit(dashboard) && <Menu.Item onClick={() => setDialog('rename')}>Rename…</Menu.Item>}
          {user !== null && <Menu.Item onClick={() => duplicate.mutate()}>Duplicate</Menu.Item>}
          {mayManage(dashboard) && <Menu.Item onClick={() => setDialog('share')}>Share…</Menu.Item>}
          {canEdit(dashboard) && <Menu.Item onClick={() => setDialog('history')}>History…</Menu.Item>}
          <Menu.Item onClick={() => download.mutate()}>Download YAML</Menu.Item>
          {mayManage(dashboard) && (
            <>
              <Menu.Divider />
              <Menu.Item color="red" onClick={() => setDialog('delete')}>
                Delete…
              </Menu.Item>
            </>
          )}
        </Menu.Dropdown>
      </Menu>
      {failure && (
        <Alert color="red" role="alert" p="xs">
          {errorMessage(failure)}
        </Alert>
      )}
      <RenameDialog dashboard={dashboard} opened={dialog === 'rename'} onClose={() => setDialog(null)} />
      <ShareDialog dashboard={dashboard} opened={dialog === 'share'} onClose={() => setDialog(null)} />
      <DeleteDialog dashboard={dashboard} opened={dialog === 'delete'} onClose={() => setDialog(null)} />
      {dialog === 'history' && <HistoryDrawer dashboard={dashboard} opened onClose={() => setDialog(null)} />}
    </>
  );
}

interface DialogProps {
  dashboard: Dashboard;
  opened: boolean;
  onClose: () => void;
}

/**
 * A new title and description. The rest of the content is taken from the version the server has
 * now and saved with `If-Match`, so a rename never undoes someone else's save.
 */
function RenameDialog({ dashboard, opened, onClose }: DialogProps) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [title, setTitle] = useState(dashboard.title);
  const [description, setDescription] = useState(dashboard.description);
  const path = `/dashboards/${dashboard.dashboard_id}`;
  const rename = useMutation({
    mutationFn: async () => {
      const current = await api.requestTagged(path, dashboardSchema);
      const { components, layout } = current.data;
      return api.request(path, dashboardSchema, {
        method: 'PUT',
        json: { title: title.trim(), description, components, layout },
        ...(current.etag === null ? {} : { ifMatch: current.etag }),
      });
    },
    onSuccess: (saved) => {
      queryClient.setQueryData(['dashboard', saved.dashboard_id], saved);
      void queryClient.invalidateQueries({ queryKey: ['dashboards'] });
      onClose();
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} title="Rename the dashboard">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          rename.mutate();
        }}
      >
        <Stack gap="sm">
          <TextInput
            label="Title"
            required
            value={title}
            onChange={(event) => setTitle(event.currentTarget.value)}
            data-autofocus
          />
          <Textarea
            label="Description"
            autosize
            minRows={2}
            value={description}
            onChange={(event) => setDescription(event.currentTarget.value)}
          />
          {rename.isError && (
            <Alert color="red" role="alert" title="Not renamed">
              {errorMessage(rename.error)}
            </Alert>
          )}
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={rename.isPending} disabled={title.trim() === ''}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function ShareDialog({ dashboard, opened, onClose }: DialogProps) {
  const api = useApi();
  const queryClient = useQueryClient();
  return (
    <Modal opened={opened} onClose={onClose} title="Share the dashboard" size="lg">
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          The project’s members keep their standing; the people listed here get this dashboard alone.
        </Text>
        <SharingEditor
          shared={dashboard}
          what="dashboard"
          send={(body) =>
            api.request(`/dashboards/${dashboard.dashboard_id}/permissions`, dashboardSchema, {
              method: 'PUT',
              json: body,
            })
          }
          onSaved={(saved) => {
            queryClient.setQueryData(['dashboard', saved.dashboard_id], saved);
            void queryClient.invalidateQueries({ queryKey: ['dashboards'] });
          }}
        />
      </Stack>
    </Modal>
  );
}

/** Asks before deleting; names what goes (the dashboard and its embed links), then leaves for the project. */
function DeleteDialog({ dashboard, opened, onClose }: DialogProps) {
  const api = useApi();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api.requestVoid(`/dashboards/${dashboard.dashboard_id}`, { method: 'DELETE' }),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: ['dashboard', dashboard.dashboard_id] });
      void queryClient.invalidateQueries({ queryKey: ['dashboards'] });
      navigate(dashboard.project_role === null ? '/dashboards' : `/projects/${dashboard.project_id}`);
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} title="Delete the dashboard?">
      <Stack gap="sm">
        <Text size="sm">
          “{dashboard.title}” and its {dashboard.components.length} component(s) are deleted for everyone it is shared
          with, and its embedded charts stop showing. The project’s data stays. This cannot be undone.
        </Text>
        {remove.isError && (
          <Alert color="red" role="alert" title="Not deleted">
            {errorMessage(remove.error)}
          </Alert>
        )}
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onClose} data-autofocus>
            Keep it
          </Button>
          <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
            Delete dashboard
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
