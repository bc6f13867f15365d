import { Alert, Button, Group, Select, Text } from '@mantine/core';
import { type AsOf, type DashboardVersions, dashboardVersionsSchema } from '@service/common';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../auth/session.js';
import { formatDateSeconds } from '../format/date.js';

const LIVE = 'live';
/** The picker's entry for an `as_of` of versions by collection (from a shared link). */
const PINNED = 'pinned';

export interface VersionChoice {
  /** The `as_of` timestamp: the commit's time. */
  value: string;
  label: string;
}

/**
 * The commits of every collection the dashboard reads, newest first, as points in time: choosing
 * one shows every collection as it was then (each at its last commit at or before that time).
 */
export function versionChoices(versions: DashboardVersions): VersionChoice[] {
  const entries = versions.collections.flatMap((collection) =>
    collection.versions.map((entry) => ({
      value: entry.timestamp,
      time: Date.parse(entry.timestamp),
      label: `${formatDateSeconds(entry.timestamp)} · ${collection.name} v${entry.version}${entry.operation ? ` (${entry.operation.toLowerCase()})` : ''}`,
    })),
  );
  entries.sort((a, b) => b.time - a.time);
  const seen = new Set<string>();
  return entries.flatMap(({ value, label }) => {
    if (seen.has(value)) return [];
    seen.add(value);
    return [{ value, label }];
  });
}

/** The `as_of` in words: "2026-11-24 17:05:09", or "penguins v3" for versions by collection. */
export function describeAsOf(asOf: AsOf, versions: DashboardVersions | undefined): string {
  if (typeof asOf === 'string') return formatDateSeconds(asOf);
  const names = new Map(versions?.collections.map((collection) => [collection.data_collection_id, collection.name]));
  return Object.entries(asOf)
    .map(([collection, version]) => `${names.get(collection) ?? collection} v${version}`)
    .join(', ');
}

function useDashboardVersions(dashboardId: string) {
  const api = useApi();
  return useQuery({
    queryKey: ['dashboard-versions', dashboardId],
    queryFn: ({ signal }) => api.request(`/dashboards/${dashboardId}/versions`, dashboardVersionsSchema, { signal }),
  });
}

/** "Data: Live" or a past commit of the dashboard's collections. */
export function VersionPicker({
  dashboardId,
  asOf,
  onChange,
}: {
  dashboardId: string;
  asOf: AsOf | null;
  onChange: (asOf: AsOf | null) => void;
}) {
  const versions = useDashboardVersions(dashboardId);
  const choices = versions.data ? versionChoices(versions.data) : [];
  const data = [{ value: LIVE, label: 'Live (latest data)' }, ...choices];
  if (typeof asOf === 'string' && !choices.some((choice) => choice.value === asOf)) {
    data.push({ value: asOf, label: formatDateSeconds(asOf) });
  }
  if (asOf !== null && typeof asOf !== 'string') data.push({ value: PINNED, label: describeAsOf(asOf, versions.data) });
  return (
    <Select
      label="Data as of"
      size="xs"
      w={300}
      data={data}
      value={asOf === null ? LIVE : typeof asOf === 'string' ? asOf : PINNED}
      allowDeselect={false}
      // Another commit may have landed since the page opened.
      onDropdownOpen={() => versions.refetch()}
      onChange={(value) => {
        if (value === null || value === PINNED) return;
        onChange(value === LIVE ? null : value);
      }}
      error={versions.isError ? 'Could not list the versions' : undefined}
    />
  );
}

/** Says the dashboard shows past data, with the way back to live. */
export function AsOfBanner({ dashboardId, asOf, onLive }: { dashboardId: string; asOf: AsOf; onLive: () => void }) {
  const versions = useDashboardVersions(dashboardId);
  return (
    <Alert color="yellow" variant="light" role="status" aria-label="Time travel">
      <Group justify="space-between">
        <Text size="sm">Viewing the data as of {describeAsOf(asOf, versions.data)}.</Text>
        <Button size="compact-sm" variant="light" onClick={onLive}>
          Back to live
        </Button>
      </Group>
    </Alert>
  );
}
