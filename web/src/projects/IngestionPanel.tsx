import {
  Alert,
  Badge,
  Button,
  Card,
  Checkbox,
  Group,
  Loader,
  Modal,
  Stack,
  Table,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { type IngestionRun, ingestionRunListSchema, triggerAnswerSchema, triggerStatusSchema } from '@service/common';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { errorMessage } from '../api/client.js';
import { ingestionRunsGet, ingestionStatusGet } from '../api/wire.js';
import { useApi } from '../auth/session.js';
import { JobStatusCard } from '../components/JobStatusCard.js';
import { invalidateTableQueries } from '../explorer/queries.js';
import { formatDate } from '../format/date.js';
import { formatCount } from '../format/number.js';
import { formatDuration, jobEnded, statusColor, triggerReasonText } from '../jobs/format.js';
import { onJobEvent, useJob } from '../jobs/useJob.js';
import { useLiveEvents } from '../live/useLiveEvents.js';

/** Everything that shows a project's data, refreshed after an ingestion. */
export function invalidateProjectData(queryClient: ReturnType<typeof useQueryClient>, projectId: string): void {
  invalidateTableQueries(queryClient);
  for (const key of ['workflows', 'datacollections', 'datacollection', 'ingestion-runs', 'jobs']) {
    void queryClient.invalidateQueries({
      queryKey: [key],
      predicate: (query) => (key === 'workflows' || key === 'ingestion-runs' ? query.queryKey[1] === projectId : true),
    });
  }
}

/** `live`: a job runs and the project's event stream is not open (which refetches on each change). */
function RunHistory({ projectId, live }: { projectId: string; live: boolean }) {
  const api = useApi();
  const runs = useQuery({
    queryKey: ['ingestion-runs', projectId],
    queryFn: ({ signal }) => api.get(ingestionRunsGet(projectId), ingestionRunListSchema, signal),
    // While a job runs its steps fill in; follow them.
    refetchInterval: live ? 2000 : false,
    // The panel around it has just read the same list (it mounts this once that list is known).
    staleTime: 5_000,
  });
  if (runs.isPending) return <Loader size="sm" aria-label="Loading ingestion history" />;
  if (runs.isError) return <Text c="red">{errorMessage(runs.error)}</Text>;
  if (runs.data.items.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No ingestion has run yet.
      </Text>
    );
  }
  return (
    <Table.ScrollContainer minWidth={720}>
      <Table verticalSpacing="xs" aria-label="Ingestion history">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Started</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Trigger</Table.Th>
            <Table.Th>Steps</Table.Th>
            <Table.Th>Data collections</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {runs.data.items.map((run) => (
            <RunRow key={run.run_id} run={run} />
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function RunRow({ run }: { run: IngestionRun }) {
  const duration = formatDuration(run.started_at, run.finished_at);
  return (
    <Table.Tr>
      <Table.Td>
        <Text size="sm">{run.started_at ? formatDate(run.started_at) : '—'}</Text>
        {duration && (
          <Text size="xs" c="dimmed">
            {duration}
            {run.overwrite ? ' · overwrite' : ''}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Badge color={statusColor(run.status)}>{run.status}</Badge>
        {run.error && (
          <Text size="xs" c="red">
            {run.error.message}
          </Text>
        )}
      </Table.Td>
      <Table.Td>
        <Text size="sm">{run.trigger}</Text>
      </Table.Td>
      <Table.Td>
        <Stack gap={2}>
          {run.steps.map((step) => (
            <Group gap={4} key={step.name} wrap="nowrap" align="flex-start">
              <Badge size="xs" variant="dot" color={statusColor(step.status)} style={{ flexShrink: 0 }}>
                {step.name}
              </Badge>
              <Text size="xs">{step.detail ?? ''}</Text>
            </Group>
          ))}
        </Stack>
      </Table.Td>
      <Table.Td>
        <Stack gap={2}>
          {run.data_collections.map((collection) => (
            <Group gap={4} key={collection.data_collection_id} wrap="nowrap" align="flex-start">
              <Badge size="xs" variant="light" color={statusColor(collection.status)} style={{ flexShrink: 0 }}>
                {collection.tag}
              </Badge>
              <Text size="xs">
                {collection.status === 'success'
                  ? `${formatCount(collection.rows ?? 0)} rows · v${collection.version ?? '—'}`
                  : (collection.error ?? collection.status)}
              </Text>
            </Group>
          ))}
          {run.data_collections.length === 0 && (
            <Text size="xs" c="dimmed">
              —
            </Text>
          )}
        </Stack>
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * The project's ingestion: whether it may run (`status`), the job followed (the one started here,
 * or a run still going when the page opened, started elsewhere), and the trigger. When the
 * followed job ends, everything showing the project's data is refreshed once.
 */
function useIngestion(projectId: string, onStarted: () => void) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [jobId, setJobId] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const status = useQuery({
    queryKey: ['ingestion-status', projectId],
    queryFn: ({ signal }) => api.get(ingestionStatusGet(projectId), triggerStatusSchema, signal),
  });
  const runs = useQuery({
    queryKey: ['ingestion-runs', projectId],
    queryFn: ({ signal }) => api.get(ingestionRunsGet(projectId), ingestionRunListSchema, signal),
  });
  const running = runs.data?.items.find((run) => run.status === 'pending' || run.status === 'running');
  const followed = jobId ?? running?.job_id ?? null;
  const streaming = useLiveEvents({ project_id: projectId }, (name, data) => {
    onJobEvent(queryClient, name, data);
    if (name === 'job' || name === 'reset')
      void queryClient.invalidateQueries({ queryKey: ['ingestion-runs', projectId] });
    if (name === 'version' || name === 'reset') invalidateTableQueries(queryClient);
  });
  const job = useJob(followed, streaming);

  const trigger = useMutation({
    mutationFn: (withOverwrite: boolean) =>
      api.request(`/projects/ingestion/trigger/${projectId}`, triggerAnswerSchema, {
        method: 'POST',
        query: { overwrite: withOverwrite },
      }),
    onSuccess: (answer) => {
      onStarted();
      setNotice(answer.already_running ? 'An ingestion was already running: showing it.' : null);
      if (answer.job_id !== null) setJobId(answer.job_id);
      void queryClient.invalidateQueries({ queryKey: ['ingestion-runs', projectId] });
    },
  });

  const refreshed = useRef<string | null>(null);
  const ended = job.data !== undefined && jobEnded(job.data.status);
  useEffect(() => {
    if (!ended || followed === null || refreshed.current === followed) return;
    refreshed.current = followed;
    invalidateProjectData(queryClient, projectId);
  }, [ended, followed, queryClient, projectId]);

  const active = job.data !== undefined && !jobEnded(job.data.status);
  return { status, job, followed, active, trigger, notice, streaming };
}

/** Run ingestion (as the trigger status allows), the live job, and the history of runs. */
export function IngestionPanel({ projectId }: { projectId: string }) {
  const [opened, modal] = useDisclosure(false);
  const { status, job, followed, active, trigger, notice, streaming } = useIngestion(projectId, modal.close);

  if (status.isPending) return <Loader size="sm" aria-label="Loading ingestion status" />;
  if (status.isError) return null;
  const { enabled, available, reason } = status.data;

  return (
    <Card withBorder radius="md" component="section" aria-label="Ingestion">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h3">
            Ingestion
          </Title>
          {enabled &&
            (available ? (
              <Button onClick={active && followed !== null ? () => trigger.mutate(false) : modal.open}>
                {active ? 'Ingestion running…' : 'Run ingestion'}
              </Button>
            ) : (
              <Tooltip label={triggerReasonText(reason)}>
                {/* A disabled button gets no pointer events; the wrapper shows the tooltip. */}
                <span>
                  <Button disabled aria-describedby="ingestion-reason">
                    Run ingestion
                  </Button>
                </span>
              </Tooltip>
            ))}
        </Group>
        {enabled && !available && (
          <Text size="sm" c="dimmed" id="ingestion-reason">
            {triggerReasonText(reason)}
          </Text>
        )}
        {notice && (
          <Text size="sm" c="blue">
            {notice}
          </Text>
        )}
        {trigger.isError && (
          <Alert color="red" role="alert" title="Could not start the ingestion">
            {errorMessage(trigger.error)}
          </Alert>
        )}
        {job.data && <JobStatusCard job={job.data} title="Ingestion job" />}
        {job.isError && <Text c="red">{errorMessage(job.error)}</Text>}
        <Title order={3} size="h5">
          History
        </Title>
        <RunHistory projectId={projectId} live={active && !streaming} />
      </Stack>
      <StartIngestionModal
        opened={opened}
        onClose={modal.close}
        starting={trigger.isPending}
        onStart={(overwrite) => trigger.mutate(overwrite)}
      />
    </Card>
  );
}

function StartIngestionModal({
  opened,
  onClose,
  starting,
  onStart,
}: {
  opened: boolean;
  onClose: () => void;
  starting: boolean;
  onStart: (overwrite: boolean) => void;
}) {
  const [overwrite, setOverwrite] = useState(false);
  return (
    <Modal opened={opened} onClose={onClose} title="Run ingestion">
      <Stack>
        <Text size="sm">
          Scans the workflows’ data locations, registers new and changed files and updates every data collection.
        </Text>
        <Checkbox
          label="Overwrite: rebuild every table from all files"
          checked={overwrite}
          onChange={(event) => setOverwrite(event.currentTarget.checked)}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Close
          </Button>
          <Button loading={starting} onClick={() => onStart(overwrite)}>
            Start ingestion
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
