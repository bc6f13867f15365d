import { Alert, Anchor, Button, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { dashboardSchema } from '@service/common';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { errorMessage, isApiError } from '../api/client.js';
import { dashboardGet } from '../api/wire.js';
import { useApi } from '../auth/session.js';
import { StandingBadges } from '../components/StandingBadges.js';
import { DashboardAtRevision } from '../dashboard/AtRevision.js';
import { canEdit, DashboardActions } from '../dashboard/DashboardActions.js';
import { DashboardMenu } from '../dashboard/DashboardMenu.js';
import { DashboardView } from '../dashboard/DashboardView.js';
import { DashboardEditor } from '../dashboard/edit/lazy.js';
import { GeneratedOffer } from '../dashboard/GeneratedOffer.js';

/** Below Mantine's `sm` breakpoint (768 px) the editor's grid and side panel do not fit. */
const TOO_NARROW_TO_EDIT = '(max-width: 47.99em)';

/** What edit mode shows on a phone: why there is no editor, and the way back. */
function EditNeedsWiderScreen({ title, onBack }: { title: string; onBack: () => void }) {
  return (
    <Stack gap="md">
      <Title order={1}>{title}</Title>
      <Alert color="blue" role="status" title="Editing needs a wider screen">
        <Stack gap="sm" align="flex-start">
          <Text size="sm">
            The dashboard editor needs a window at least 768 pixels wide. Open this page on a larger screen, or widen
            the window, to edit; the dashboard itself reads fine here.
          </Text>
          <Button size="compact-sm" variant="light" onClick={onBack}>
            Back to the dashboard
          </Button>
        </Stack>
      </Alert>
    </Stack>
  );
}

export function DashboardPage() {
  const { dashboardId = '' } = useParams();
  // Read at once, not after a first render: the editor must not mount and unmount on a phone.
  const narrow = useMediaQuery(TOO_NARROW_TO_EDIT, false, { getInitialValueInEffect: false });
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const dashboard = useQuery({
    queryKey: ['dashboard', dashboardId],
    queryFn: ({ signal }) => api.get(dashboardGet(dashboardId), dashboardSchema, signal),
  });
  // A past revision with data (History's "Show with data"): `?revision=N`.
  const revision = Number(params.get('revision') ?? '');
  if (Number.isInteger(revision) && revision > 0)
    return <DashboardAtRevision dashboardId={dashboardId} revision={revision} />;
  if (dashboard.isPending) return <Loader aria-label="Loading dashboard" />;
  if (dashboard.isError) {
    const missing = isApiError(dashboard.error, 'not_found');
    return (
      <Alert color="red" role="alert" title={missing ? 'Dashboard not found' : 'Error'}>
        {missing ? 'This dashboard does not exist, or you are not allowed to see it.' : errorMessage(dashboard.error)}
      </Alert>
    );
  }
  const { data } = dashboard;
  // A dashboard can be shared without its project, and a public one can sit in a private project.
  const projectReader = data.project_role !== null;
  // Edit mode lives in the address (`?edit=1`), so a duplicated copy opens in it.
  const editing = params.get('edit') === '1' && canEdit(data);
  const setEditing = (on: boolean) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      if (on) next.set('edit', '1');
      else next.delete('edit');
      return next;
    });
  if (editing && narrow) return <EditNeedsWiderScreen title={data.title} onBack={() => setEditing(false)} />;
  if (editing) return <DashboardEditor dashboard={data} onExit={() => setEditing(false)} />;
  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Title order={1}>{data.title}</Title>
          {data.description && <Text c="dimmed">{data.description}</Text>}
        </Stack>
        <Group gap="xs">
          {projectReader && (
            <Anchor component={Link} to={`/projects/${data.project_id}`} size="sm">
              Project
            </Anchor>
          )}
          <StandingBadges isPublic={data.is_public} role={data.my_role} />
          <DashboardActions dashboard={data} onEdit={() => setEditing(true)} />
          <DashboardMenu dashboard={data} />
        </Group>
      </Group>
      <GeneratedOffer dashboard={data} />
      <DashboardView dashboard={data} />
    </Stack>
  );
}
