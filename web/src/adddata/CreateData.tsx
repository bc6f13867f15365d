import { Alert, Button, Group, Progress, Stack, Text } from '@mantine/core';
import { type DataCollection, dashboardSchema } from '@service/common';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { JobStatusCard } from '../components/JobStatusCard.js';
import { formatCount } from '../format/number.js';
import { formatBytes } from '../jobs/format.js';
import { useJob } from '../jobs/useJob.js';
import { type AddDataPlan, type AddDataStep, addData, type Building, type Made, NOTHING_MADE } from './create.js';

function stepText(step: AddDataStep): string {
  switch (step.step) {
    case 'workflow':
      return 'Making the workflow…';
    case 'collection':
      return 'Making the collection…';
    case 'upload':
      return `Uploading file ${step.index + 1} of ${step.count}: ${formatBytes(step.progress.loaded)} of ${formatBytes(step.progress.total)}`;
    case 'build':
      return 'Building the table…';
  }
}

/** Rows of an upsert job's result, when it tells them. */
function rowsOf(result: unknown): number | null {
  if (typeof result !== 'object' || result === null || !('rows' in result)) return null;
  return typeof result.rows === 'number' ? result.rows : null;
}

/**
 * Create and what follows: each step with its progress, the table's build (a job to follow when
 * the server runs jobs), then the new table and an overview dashboard on offer. After a failure,
 * Try again goes on from what was made, with the choices as they are by then.
 */
export function CreateData({
  plan,
  onStarted,
  onExplore,
  onLocked,
}: {
  plan: AddDataPlan | null;
  onStarted: () => void;
  onExplore: (collectionId: string) => void;
  /** The collection is made, in `workflowId`: its name, format, workflow and files are settled. */
  onLocked: (workflowId: string | null) => void;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const made = useRef<Made>({ ...NOTHING_MADE });
  const [step, setStep] = useState<AddDataStep | null>(null);
  const [collection, setCollection] = useState<DataCollection | null>(null);
  const create = useMutation({
    mutationFn: (chosen: AddDataPlan) =>
      addData(api, chosen, made.current, (next, soFar) => {
        setStep(next);
        setCollection(soFar.collection);
        if (soFar.collection !== null) onLocked(soFar.workflowId);
      }),
    onSettled: () => {
      // The project page lists the new workflow and collection (also when a later step failed).
      void queryClient.invalidateQueries({ queryKey: ['workflows', plan?.projectId] });
      void queryClient.invalidateQueries({ queryKey: ['datacollections'] });
      void queryClient.invalidateQueries({ queryKey: ['ingestion-status', plan?.projectId] });
    },
  });
  const building: Building | undefined = create.data;
  const job = useJob(building !== undefined && 'jobId' in building ? building.jobId : null);
  const rows = building === undefined ? null : 'rows' in building ? building.rows : rowsOf(job.data?.result);
  const built = building !== undefined && ('rows' in building || job.data?.status === 'success');
  const failed = create.isError || job.data?.status === 'failed' || job.data?.status === 'cancelled';
  if (create.isIdle) {
    return (
      <Group>
        <Button
          disabled={plan === null}
          onClick={() => {
            if (plan === null) return;
            onStarted();
            create.mutate(plan);
          }}
        >
          {made.current.collection === null ? 'Create' : 'Try again'}
        </Button>
      </Group>
    );
  }
  return (
    <Stack gap="xs" aria-live="polite">
      {create.isPending && step !== null && <StepProgress step={step} />}
      {create.isError && (
        <Alert color="red" role="alert" title="Adding the data stopped">
          {step === null ? '' : `${stepText(step)} `}
          {errorMessage(create.error)}
        </Alert>
      )}
      {job.data && <JobStatusCard job={job.data} title="Building the table" />}
      {failed && (
        <Group>
          <Button variant="light" onClick={() => create.reset()}>
            Change the choices and try again
          </Button>
        </Group>
      )}
      {built && collection !== null && <Done collection={collection} rows={rows} onExplore={onExplore} />}
    </Stack>
  );
}

function StepProgress({ step }: { step: AddDataStep }) {
  const percent =
    step.step === 'upload' && step.progress.total > 0 ? (step.progress.loaded / step.progress.total) * 100 : null;
  return (
    <Stack gap={4}>
      <Text size="sm">{stepText(step)}</Text>
      <Progress value={percent ?? 100} animated striped aria-label={stepText(step)} />
    </Stack>
  );
}

function Done({
  collection,
  rows,
  onExplore,
}: {
  collection: DataCollection;
  rows: number | null;
  onExplore: (collectionId: string) => void;
}) {
  const api = useApi();
  const navigate = useNavigate();
  const overview = useMutation({
    mutationFn: () =>
      api.request('/dashboards', dashboardSchema, {
        json: { project_id: collection.project_id, title: 'Overview', template: 'overview' },
      }),
    onSuccess: (dashboard) => navigate(`/dashboards/${dashboard.dashboard_id}`),
  });
  return (
    <Alert color="teal" title="The table is ready" role="status">
      <Stack gap="xs">
        <Text size="sm">
          {collection.tag}
          {rows === null ? '' : `: ${formatCount(rows)} rows`}.
        </Text>
        <Group gap="xs">
          <Button onClick={() => overview.mutate()} loading={overview.isPending}>
            Make an overview dashboard
          </Button>
          <Button variant="light" onClick={() => onExplore(collection.data_collection_id)}>
            Explore the table
          </Button>
        </Group>
        {overview.isError && <Text c="red">{errorMessage(overview.error)}</Text>}
      </Stack>
    </Alert>
  );
}
