import { Alert, Button, Group, Switch, Text } from '@mantine/core';
import type { DashboardComponent } from '@service/common';
import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useCallback, useState } from 'react';
import { notificationsKey } from '../alerts/keys.js';
import { useLiveEvents } from '../live/useLiveEvents.js';
import type { Refresh } from './useDashboardData.js';

const PIN_KEY = 'service.dashboard.pinned.';

/** "16:05": the time of the last update, hours and minutes. */
export function hoursMinutes(date: Date): string {
  return `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}

/** Whether this reader keeps this dashboard at the version it shows ("Pin to this version"), per browser. */
function usePinned(dashboardId: string): [boolean, (on: boolean) => void] {
  const [pinned, setPinned] = useState(() => {
    try {
      return localStorage.getItem(PIN_KEY + dashboardId) === '1';
    } catch {
      return false;
    }
  });
  const set = (on: boolean) => {
    setPinned(on);
    try {
      if (on) localStorage.setItem(PIN_KEY + dashboardId, '1');
      else localStorage.removeItem(PIN_KEY + dashboardId);
    } catch {
      // Blocked storage: the choice lasts as long as the page.
    }
  };
  return [pinned, set];
}

export interface LiveDashboard {
  refresh: Refresh;
  updatedAt: Date | null;
  /** Collections with a new version the reader has not been shown (pinned). */
  waiting: ReadonlySet<string>;
  /** False while the dashboard shows a past version: nothing is followed then. */
  following: boolean;
  pinned: boolean;
  setPinned(on: boolean): void;
  show(): void;
}

/**
 * A dashboard that updates itself (docs/live-data.md): on a new version of a collection it reads,
 * the components reading it are asked for again (all of them for a collection joined to theirs) and "updated hh:mm" is said; pinned, a notice
 * offers the new data instead. Nothing is followed while the dashboard shows a past version.
 */
export function useLiveDashboard(
  dashboardId: string,
  shown: readonly DashboardComponent[],
  following: boolean,
): LiveDashboard {
  const queries = useQueryClient();
  const [pinned, setPinned] = usePinned(dashboardId);
  const [refresh, setRefresh] = useState<Refresh>({ tick: 0, components: [] });
  const [updatedAt, setUpdatedAt] = useState<Date | null>(null);
  const [waiting, setWaiting] = useState<ReadonlySet<string>>(new Set());
  const reading = (collections: ReadonlySet<string> | null) =>
    shown
      .filter((component) => 'data_collection_id' in component)
      .filter((component) => collections === null || collections.has(String(component.data_collection_id)))
      .map((component) => component.component_id);
  const update = (collections: ReadonlySet<string> | null) => {
    // A collection none of them reads is joined to theirs (a filter on it narrows them): all are asked again.
    const direct = reading(collections);
    const components = direct.length > 0 ? direct : reading(null);
    setRefresh((previous) => ({ tick: previous.tick + 1, components }));
    setUpdatedAt(new Date());
    void queries.invalidateQueries({ queryKey: ['dashboard-versions', dashboardId] });
  };
  const onEvent = (name: string, data: Record<string, unknown>) => {
    // An alert of the reader's fired: the bell in the header asks again (docs/live-data.md "Alerts").
    if (name === 'notification') void queries.invalidateQueries({ queryKey: notificationsKey });
    const collection = typeof data.data_collection_id === 'string' ? data.data_collection_id : null;
    if (name !== 'reset' && (name !== 'version' || collection === null)) return;
    if (pinned) setWaiting((previous) => new Set([...previous, collection ?? '*']));
    else update(collection === null ? null : new Set([collection]));
  };
  useLiveEvents(following ? { dashboard_id: dashboardId } : null, onEvent);
  const show = () => {
    update(waiting.has('*') ? null : waiting);
    setWaiting(new Set());
  };
  return { refresh, updatedAt, waiting, following, pinned, setPinned: useCallback(setPinned, [setPinned]), show };
}

/** The pin switch and "updated hh:mm" (while following), beside the version picker (`children`). */
export function LiveControls({ live, children }: { live: LiveDashboard; children: ReactNode }) {
  return (
    <Group gap="sm" align="flex-end">
      {live.following && <LiveStatus live={live} />}
      {children}
    </Group>
  );
}

function LiveStatus({ live }: { live: LiveDashboard }) {
  return (
    <Group gap="sm" align="center">
      {live.updatedAt !== null && (
        <Text size="xs" c="dimmed" role="status" data-testid="updated-at">
          Updated {hoursMinutes(live.updatedAt)}
        </Text>
      )}
      <Switch
        size="xs"
        label="Pin to this version"
        checked={live.pinned}
        onChange={(event) => live.setPinned(event.currentTarget.checked)}
      />
    </Group>
  );
}

/** Pinned: new data arrived and is not shown yet. */
export function NewDataNotice({ live }: { live: LiveDashboard }) {
  if (!live.following || live.waiting.size === 0) return null;
  return (
    <Alert color="blue" variant="light" role="status" aria-label="New data">
      <Group justify="space-between">
        <Text size="sm">New data — this dashboard is pinned to the version it shows.</Text>
        <Button size="compact-sm" variant="light" onClick={live.show}>
          Show
        </Button>
      </Group>
    </Alert>
  );
}
