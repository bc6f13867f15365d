import { ActionIcon, Alert, Anchor, Button, Group, Indicator, Loader, Popover, Stack, Text } from '@mantine/core';
import { type AlertNotification, notificationListSchema } from '@service/common';
import { IconBell } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { formatDate } from '../format/date.js';
import { notificationsKey } from './keys.js';

/**
 * How often the bell asks for new notifications; on a dashboard, the page's live stream also says
 * when one arrives (`event: notification`, dashboard/live.tsx).
 */
const REFETCH_MS = 60_000;

/** The bell in the header: the unread count, and the latest notifications in a popover (docs/live-data.md "Alerts"). */
export function NotificationBell() {
  const api = useApi();
  const client = useQueryClient();
  const notifications = useQuery({
    queryKey: notificationsKey,
    queryFn: ({ signal }) => api.request('/notifications', notificationListSchema, { query: { limit: 20 }, signal }),
    refetchInterval: REFETCH_MS,
  });
  const markRead = useMutation({
    mutationFn: (id: string) => api.requestVoid(`/notifications/${id}/read`, { method: 'POST' }),
    onSettled: () => client.invalidateQueries({ queryKey: notificationsKey }),
  });
  const unread = notifications.data?.unread ?? 0;
  const label = unread === 0 ? 'Notifications' : `Notifications (${unread} unread)`;
  return (
    <Popover position="bottom-end" width={340} withinPortal>
      <Indicator label={unread} size={16} disabled={unread === 0} offset={4} data-testid="notification-count">
        {/* The button, not the indicator around it, carries the popover's aria-expanded. */}
        <Popover.Target>
          <ActionIcon variant="default" size="lg" aria-label={label}>
            {/* A drawn icon: the bell emoji needs an emoji font, which many Linux machines lack. */}
            <IconBell size={18} stroke={1.6} aria-hidden="true" />
          </ActionIcon>
        </Popover.Target>
      </Indicator>
      <Popover.Dropdown>
        <Stack gap="xs" role="region" aria-label="Notifications">
          <Text fw={600}>Notifications</Text>
          {notifications.isPending && <Loader size="sm" aria-label="Loading notifications" />}
          {notifications.isError && (
            <Alert color="red" role="alert" title="Could not load notifications">
              {errorMessage(notifications.error)}
            </Alert>
          )}
          {notifications.data?.items.length === 0 && <Text c="dimmed">No notifications yet.</Text>}
          {notifications.data?.items.map((item) => (
            <NotificationItem
              key={item.notification_id}
              item={item}
              onRead={() => markRead.mutate(item.notification_id)}
            />
          ))}
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

function NotificationItem({ item, onRead }: { item: AlertNotification; onRead: () => void }) {
  return (
    <Group justify="space-between" wrap="nowrap" align="flex-start" data-read={item.read}>
      <Stack gap={0}>
        <Anchor component={Link} to={`/dashboards/${item.dashboard_id}`} size="sm" fw={item.read ? 400 : 700}>
          {item.component_id}: {item.value}
        </Anchor>
        <Text size="xs" c="dimmed">
          Version {item.version}
          {item.previous_value === null ? '' : ` (was ${item.previous_value})`} · {formatDate(item.created_at)}
        </Text>
      </Stack>
      {!item.read && (
        <Button size="compact-xs" variant="subtle" onClick={onRead}>
          Mark read
        </Button>
      )}
    </Group>
  );
}
