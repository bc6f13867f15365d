import { Alert, Badge, Code, Group, Loader, NativeSelect, Stack, Table, Text, Title } from '@mantine/core';
import { type AuditEventType, adminUserSchema, auditEventTypeSchema, auditListSchema } from '@service/common';
import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import type { z } from 'zod';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { UrlPagination, usePageParam } from '../components/UrlPagination.js';
import { formatDate } from '../format/date.js';
import { formatCount } from '../format/number.js';

const PAGE_SIZE = 50;

/** Failures and refusals stand out from the routine events. */
function typeColor(type: AuditEventType): string {
  if (type.endsWith('.failed') || type.endsWith('.refused')) return 'red';
  if (type === 'user.deleted' || type === 'user.disabled' || type.endsWith('.deleted')) return 'orange';
  if (type.startsWith('user.')) return 'blue';
  if (/^(project|collection|dashboard)\./.test(type)) return 'teal';
  return 'gray';
}

function formatDetails(details: Record<string, unknown>): string {
  const entries = Object.entries(details);
  if (entries.length === 0) return '';
  return entries
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
}

/**
 * The emails of the accounts that acted on this page of events (admins changing accounts), looked
 * up once each; a deleted account keeps showing its id.
 */
function useActorEmails(actorIds: readonly string[]): Map<string, string> {
  const api = useApi();
  const unique = [...new Set(actorIds)];
  const answers = useQueries({
    queries: unique.map((id) => ({
      queryKey: ['users', 'one', id],
      queryFn: ({ signal }: { signal: AbortSignal }) => api.request(`/users/${id}`, adminUserSchema, { signal }),
      staleTime: 5 * 60_000,
      retry: false,
    })),
  });
  const emails = new Map<string, string>();
  answers.forEach((answer, index) => {
    const id = unique[index];
    if (id !== undefined && answer.data) emails.set(id, answer.data.email);
  });
  return emails;
}

function useAuditEvents(type: AuditEventType | undefined, page: number) {
  const api = useApi();
  return useQuery({
    queryKey: ['audit-events', type ?? null, page],
    queryFn: ({ signal }) =>
      api.request('/audit-events', auditListSchema, {
        query: { type, limit: PAGE_SIZE, skip: (page - 1) * PAGE_SIZE },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
}

/** The security audit log (admins, auth mode), newest first, filtered by event type. */
export function AuditPage() {
  const page = usePageParam();
  const [params, setParams] = useSearchParams();
  const type = auditEventTypeSchema.safeParse(params.get('type')).data;
  const events = useAuditEvents(type, page);
  return (
    <Stack gap="md">
      <Title order={1}>Audit log</Title>
      <Text c="dimmed" size="sm">
        Sign-ins, account changes, magic links and provisioning, as the server recorded them.
      </Text>
      <Group gap="sm">
        <NativeSelect
          label="Event type"
          data={[{ value: '', label: 'Any event' }, ...auditEventTypeSchema.options]}
          value={type ?? ''}
          onChange={(event) => {
            const next = new URLSearchParams(params);
            const value = event.currentTarget.value;
            if (value === '') next.delete('type');
            else next.set('type', value);
            next.delete('page');
            setParams(next);
          }}
          w={260}
        />
      </Group>
      <AuditLog events={events} filtered={type !== undefined} />
    </Stack>
  );
}

type AuditEvent = z.infer<typeof auditListSchema>['items'][number];

/** The page of events with its pagination, or why there is none. */
function AuditLog({ events, filtered }: { events: ReturnType<typeof useAuditEvents>; filtered: boolean }) {
  const actorEmails = useActorEmails(
    (events.data?.items ?? []).flatMap((event) =>
      event.actor_user_id !== null && event.actor_user_id !== event.subject_user_id ? [event.actor_user_id] : [],
    ),
  );
  if (events.isPending) return <Loader aria-label="Loading the audit log" />;
  if (events.isError) {
    return (
      <Alert color="red" role="alert" title="Could not load the audit log">
        {errorMessage(events.error)}
      </Alert>
    );
  }
  if (events.data.items.length === 0) return <Text c="dimmed">No events{filtered ? ' of this type' : ''}.</Text>;
  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        {formatCount(events.data.total)} {events.data.total === 1 ? 'event' : 'events'}, newest first.
      </Text>
      <Table.ScrollContainer minWidth={860}>
        <Table striped verticalSpacing="xs" aria-label="Audit events">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>When</Table.Th>
              <Table.Th>Event</Table.Th>
              <Table.Th>Account</Table.Th>
              <Table.Th>By</Table.Th>
              <Table.Th>Address</Table.Th>
              <Table.Th>Details</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {events.data.items.map((event) => (
              <AuditRow key={event.event_id} event={event} actorEmails={actorEmails} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <UrlPagination pages={Math.ceil(events.data.total / PAGE_SIZE)} label="Audit log pages" />
    </Stack>
  );
}

function AuditRow({ event, actorEmails }: { event: AuditEvent; actorEmails: Map<string, string> }) {
  return (
    <Table.Tr>
      <Table.Td>
        <Text size="sm">{formatDate(event.at)}</Text>
      </Table.Td>
      <Table.Td>
        <Badge variant="light" color={typeColor(event.type)}>
          {event.type}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{event.subject_email ?? '—'}</Text>
      </Table.Td>
      <Table.Td>
        <Actor event={event} actorEmails={actorEmails} />
      </Table.Td>
      <Table.Td>
        <Text size="sm" ff="monospace">
          {event.client_address ?? '—'}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="xs">{formatDetails(event.details) || '—'}</Text>
      </Table.Td>
    </Table.Tr>
  );
}

/** Who acted: nobody, the account itself, an account by its email, or (deleted) by its id. */
function Actor({ event, actorEmails }: { event: AuditEvent; actorEmails: Map<string, string> }) {
  if (event.actor_user_id === null) return <Text size="sm">—</Text>;
  if (event.actor_user_id === event.subject_user_id) return <Text size="sm">themselves</Text>;
  const email = actorEmails.get(event.actor_user_id);
  if (email !== undefined) return <Text size="sm">{email}</Text>;
  return <Code title={event.actor_user_id}>{event.actor_user_id.slice(-12)}</Code>;
}
