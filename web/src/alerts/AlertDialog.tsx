import {
  Alert,
  Button,
  Code,
  Group,
  Loader,
  Modal,
  NativeSelect,
  NumberInput,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import {
  ALERT_OPS,
  type AlertOp,
  type Alert as AlertRule,
  alertDeliveryListSchema,
  alertListSchema,
  type CreatedAlert,
  createdAlertSchema,
} from '@service/common';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { formatDate } from '../format/date.js';

export interface AlertDialogProps {
  dashboardId: string;
  componentId: string;
  /** The card's name, for the title. */
  label: string;
  onClose: () => void;
}

const alertsKey = (dashboardId: string) => ['alerts', dashboardId];

const OP_LABELS: Record<AlertOp, string> = {
  '>': 'is above',
  '>=': 'is at least',
  '<': 'is below',
  '<=': 'is at most',
  change_pct: 'changes by more than (%)',
};

function ruleText(rule: AlertRule): string {
  const { op, value } = rule.condition;
  return op === 'change_pct' ? `changes by more than ${value} %` : `${OP_LABELS[op]} ${value}`;
}

/** "Alert me…" on a card: a new rule (condition and optional webhook), and the card's rules with their delivery logs. */
export function AlertDialog({ dashboardId, componentId, label, onClose }: AlertDialogProps) {
  const api = useApi();
  const client = useQueryClient();
  const alerts = useQuery({
    queryKey: alertsKey(dashboardId),
    queryFn: ({ signal }) => api.request(`/dashboards/${dashboardId}/alerts`, alertListSchema, { signal }),
  });
  const remove = useMutation({
    mutationFn: (alertId: string) => api.requestVoid(`/alerts/${alertId}`, { method: 'DELETE' }),
    onSettled: () => client.invalidateQueries({ queryKey: alertsKey(dashboardId) }),
  });
  const mine = alerts.data?.items.filter((rule) => rule.component_id === componentId) ?? [];
  return (
    <Modal opened onClose={onClose} title={`Alert me: ${label}`} size="lg">
      <Stack>
        <NewAlertForm dashboardId={dashboardId} componentId={componentId} />
        <Text fw={600}>Your alerts on this card</Text>
        {alerts.isPending && <Loader size="sm" aria-label="Loading alerts" />}
        {alerts.isError && (
          <Alert color="red" role="alert" title="Could not load the alerts">
            {errorMessage(alerts.error)}
          </Alert>
        )}
        {alerts.isSuccess && mine.length === 0 && <Text c="dimmed">No alerts on this card yet.</Text>}
        {mine.map((rule) => (
          <RuleRow key={rule.alert_id} rule={rule} onDelete={() => remove.mutate(rule.alert_id)} />
        ))}
      </Stack>
    </Modal>
  );
}

/** The form of a new rule; a webhook's signing secret is shown under it, once. */
function NewAlertForm({ dashboardId, componentId }: { dashboardId: string; componentId: string }) {
  const api = useApi();
  const client = useQueryClient();
  const [op, setOp] = useState<AlertOp>('>');
  const [value, setValue] = useState<number | string>('');
  const [webhook, setWebhook] = useState('');
  const [created, setCreated] = useState<CreatedAlert | null>(null);
  const create = useMutation({
    mutationFn: () =>
      api.request(`/dashboards/${dashboardId}/alerts`, createdAlertSchema, {
        method: 'POST',
        json: {
          component_id: componentId,
          condition: { op, value: Number(value) },
          ...(webhook.trim() === '' ? {} : { webhook_url: webhook.trim() }),
        },
      }),
    onSuccess: (answer) => setCreated(answer),
    onSettled: () => client.invalidateQueries({ queryKey: alertsKey(dashboardId) }),
  });
  return (
    <form
      aria-label="New alert"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate();
      }}
    >
      <Stack gap="sm">
        <Group grow align="flex-end">
          <NativeSelect
            label="When the number"
            data={ALERT_OPS.map((option) => ({ value: option, label: OP_LABELS[option] }))}
            value={op}
            onChange={(event) => setOp(event.currentTarget.value as AlertOp)}
          />
          <NumberInput label="Value" value={value} onChange={setValue} />
        </Group>
        <TextInput
          label="Webhook URL (optional)"
          description="POSTed as signed JSON each time the rule fires; the server must allow its host."
          value={webhook}
          onChange={(event) => setWebhook(event.currentTarget.value)}
        />
        {create.isError && (
          <Alert color="red" role="alert" title="Could not create the alert">
            {errorMessage(create.error)}
          </Alert>
        )}
        {created?.webhook_secret && (
          <Alert color="teal" title="Webhook signing secret (shown once)">
            <Text size="sm">Check each delivery's X-Signature-256 header with it:</Text>
            <Code block>{created.webhook_secret}</Code>
          </Alert>
        )}
        <Group justify="flex-end">
          <Button type="submit" loading={create.isPending} disabled={value === ''}>
            Create alert
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function RuleRow({ rule, onDelete }: { rule: AlertRule; onDelete: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <Stack gap={4} data-alert-id={rule.alert_id}>
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm">
          When it {ruleText(rule)}
          {rule.webhook_url === null ? '' : ` → ${rule.webhook_url}`}
        </Text>
        <Group gap="xs" wrap="nowrap">
          {rule.webhook_url !== null && (
            <Button size="compact-xs" variant="subtle" onClick={() => setOpen(!open)} aria-expanded={open}>
              Deliveries
            </Button>
          )}
          <Button size="compact-xs" variant="subtle" color="red" onClick={onDelete}>
            Delete
          </Button>
        </Group>
      </Group>
      {open && <DeliveryLog alertId={rule.alert_id} />}
    </Stack>
  );
}

function DeliveryLog({ alertId }: { alertId: string }) {
  const api = useApi();
  const log = useQuery({
    queryKey: ['alert-deliveries', alertId],
    queryFn: ({ signal }) =>
      api.request(`/alerts/${alertId}/deliveries`, alertDeliveryListSchema, { query: { limit: 20 }, signal }),
  });
  if (log.isPending) return <Loader size="xs" aria-label="Loading deliveries" />;
  if (log.isError) return <Text c="red">{errorMessage(log.error)}</Text>;
  if (log.data.items.length === 0) return <Text c="dimmed">No deliveries yet.</Text>;
  return (
    <Table aria-label="Webhook deliveries" striped>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>When</Table.Th>
          <Table.Th>Status</Table.Th>
          <Table.Th>Attempts</Table.Th>
          <Table.Th>Last error</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {log.data.items.map((delivery) => (
          <Table.Tr key={delivery.delivery_id}>
            <Table.Td>{formatDate(delivery.created_at)}</Table.Td>
            <Table.Td>
              {delivery.status}
              {delivery.response_status === null ? '' : ` (${delivery.response_status})`}
            </Table.Td>
            <Table.Td>{delivery.attempts}</Table.Td>
            <Table.Td>{delivery.last_error ?? ''}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
