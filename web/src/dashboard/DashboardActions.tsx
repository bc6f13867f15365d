import { Alert, Button, Group, Tooltip } from '@mantine/core';
import { type Dashboard, dashboardSchema } from '@service/common';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { errorMessage } from '../api/client.js';
import { useApi, useAuth } from '../auth/session.js';
import { lazyComponent } from '../components/lazyPage.js';
import { DashboardEditor } from './edit/lazy.js';

const SignInModal = lazyComponent(async () => (await import('../components/SignInOptions.js')).SignInModal, null);

/** Owners, editors (and admins) change a dashboard; every other reader may copy it to change the copy. */
export function canEdit(dashboard: Pick<Dashboard, 'my_role'>): boolean {
  return dashboard.my_role === 'owner' || dashboard.my_role === 'editor' || dashboard.my_role === 'admin';
}

/**
 * "Edit" for those who may change the dashboard, "Duplicate to edit" for every other reader: a
 * private copy in the same project, opened in edit mode. Anonymous visitors (public and demo
 * mode) are asked to sign in first.
 */
export function DashboardActions({ dashboard, onEdit }: { dashboard: Dashboard; onEdit: () => void }) {
  const api = useApi();
  const { user, plan } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const [signingIn, setSigningIn] = useState(false);
  const duplicate = useMutation({
    mutationFn: () =>
      api.request(`/dashboards/${dashboard.dashboard_id}/duplicate`, dashboardSchema, {
        method: 'POST',
        json: { title: `${dashboard.title} (copy)` },
      }),
    onSuccess: (copy) => navigate(`/dashboards/${copy.dashboard_id}?edit=1`),
  });
  if (canEdit(dashboard)) {
    return (
      <Button
        size="xs"
        onClick={() => {
          EditorPreload();
          onEdit();
        }}
      >
        Edit
      </Button>
    );
  }
  const anonymous = user === null;
  return (
    <Group gap="xs">
      <Tooltip label={anonymous ? 'Sign in to make your own copy' : 'Make your own copy of this dashboard and edit it'}>
        <Button
          size="xs"
          data-tour="duplicate"
          loading={duplicate.isPending}
          onClick={() => (anonymous ? setSigningIn(true) : duplicate.mutate())}
          disabled={anonymous && !plan.signInAvailable}
        >
          Duplicate to edit
        </Button>
      </Tooltip>
      {duplicate.isError && (
        <Alert color="red" role="alert" p="xs">
          {errorMessage(duplicate.error)}
        </Alert>
      )}
      {anonymous && plan.anonymousBrowsing && (
        <SignInModal
          opened={signingIn}
          onClose={() => setSigningIn(false)}
          next={`${location.pathname}${location.search}`}
        />
      )}
    </Group>
  );
}

function EditorPreload() {
  void DashboardEditor.preload();
}
