import { Alert, Button, Group, List, Stack, Text } from '@mantine/core';
import {
  type Dashboard,
  dashboardSchema,
  describeChanges,
  type GeneratedVersion,
  generatedVersionSchema,
} from '@service/common';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { formatDate } from '../format/date.js';
import { componentLabel } from './chips.js';
import { canEdit } from './DashboardActions.js';

const generatedKey = (dashboardId: string) => ['dashboard-generated', dashboardId];

type Offer = NonNullable<GeneratedVersion['offer']>;

/** The offered version, read-only: what applying it changes, then its components by tab. */
function OfferView({ offer }: { offer: Offer }) {
  const tabs = new Map(offer.tabs.map((tab) => [tab.tab_id, tab.title]));
  return (
    <Stack gap={4} role="region" aria-label="The new generated version, read-only">
      <Text size="sm" fw={500}>
        Applying it changes: {describeChanges(offer.changes).join(' · ') || 'nothing'}
      </Text>
      <Text size="sm" c="dimmed">
        {offer.title} · {offer.components.length} components
        {offer.tabs.length > 0 ? ` in ${offer.tabs.length} tabs` : ''}
      </Text>
      <List size="sm" aria-label="Components of the new generated version">
        {offer.components.map((component) => (
          <List.Item key={component.component_id}>
            {component.title || (component.type === 'text' ? 'Text' : componentLabel(component))}
            {component.tab_id !== undefined && tabs.has(component.tab_id) ? ` (tab ${tabs.get(component.tab_id)})` : ''}
          </List.Item>
        ))}
      </List>
    </Stack>
  );
}

/**
 * The "new generated version available" notice (docs/templates.md "Re-running"): a dashboard a
 * template generated and a person edited since is never overwritten by a later run; the run's
 * version waits here for its editors to look at, apply (a new revision, so the history keeps the
 * edit) or dismiss.
 */
export function GeneratedOffer({ dashboard }: { dashboard: Dashboard }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const id = dashboard.dashboard_id;
  const [looking, setLooking] = useState(false);
  const generated = useQuery({
    queryKey: generatedKey(id),
    enabled: canEdit(dashboard),
    queryFn: ({ signal }) => api.request(`/dashboards/${id}/generated`, generatedVersionSchema, { signal }),
  });
  const done = () => {
    setLooking(false);
    void queryClient.invalidateQueries({ queryKey: generatedKey(id) });
    void queryClient.invalidateQueries({ queryKey: ['dashboard-revisions', id] });
  };
  const apply = useMutation({
    mutationFn: () => api.request(`/dashboards/${id}/generated/apply`, dashboardSchema, { method: 'POST' }),
    onSuccess: (saved) => {
      queryClient.setQueryData(['dashboard', saved.dashboard_id], saved);
      void queryClient.invalidateQueries({ queryKey: ['dashboard', saved.dashboard_id] });
      done();
    },
  });
  const dismiss = useMutation({
    mutationFn: () => api.requestVoid(`/dashboards/${id}/generated/offer`, { method: 'DELETE' }),
    onSuccess: done,
  });
  const offer = generated.data?.offer;
  if (!offer) return null;
  const failed = apply.error ?? dismiss.error;
  return (
    <Alert color="blue" role="status" title="A new generated version of this dashboard is available">
      <Stack gap="xs">
        <Text size="sm">
          Template {offer.template_id} made it on {formatDate(offer.offered_at)}. This dashboard was edited since it was
          generated, so your edits were kept: look at the new version and apply it, or keep yours.
        </Text>
        {looking && <OfferView offer={offer} />}
        {failed && (
          <Text size="sm" c="red" role="alert">
            {errorMessage(failed)}
          </Text>
        )}
        <Group gap="xs">
          <Button size="compact-sm" variant="light" onClick={() => setLooking((shown) => !shown)}>
            {looking ? 'Hide the new version' : 'Look at the new version'}
          </Button>
          <Button size="compact-sm" loading={apply.isPending} onClick={() => apply.mutate()}>
            Apply the new version
          </Button>
          <Button size="compact-sm" variant="subtle" loading={dismiss.isPending} onClick={() => dismiss.mutate()}>
            Keep mine
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
