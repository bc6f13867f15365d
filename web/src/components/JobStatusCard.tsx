import { Alert, Badge, Button, Card, Group, Progress, Stack, Text } from '@mantine/core';
import type { Job } from '@service/common';
import { errorMessage } from '../api/client.js';
import { jobEnded, jobProgress, jobStepText, statusColor } from '../jobs/format.js';
import { useCancelJob } from '../jobs/useJob.js';

/** A job's live state: status, step, detail, a progress bar, and Cancel while it has not ended. */
export function JobStatusCard({ job, title }: { job: Job; title?: string }) {
  const cancel = useCancelJob();
  const progress = jobProgress(job);
  const step = jobStepText(job);
  const ended = jobEnded(job.status);
  return (
    <Card withBorder radius="md" component="section" aria-label={title ?? 'Job'}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap">
          <Group gap="xs">
            {title && <Text fw={600}>{title}</Text>}
            <Badge color={statusColor(job.status)} aria-label={`Job status: ${job.status}`}>
              {job.status}
            </Badge>
          </Group>
          {!ended && (
            <Button
              size="xs"
              variant="light"
              color="red"
              loading={cancel.isPending}
              onClick={() => cancel.mutate(job.job_id)}
            >
              Cancel
            </Button>
          )}
        </Group>
        {step !== '' && (
          <Text size="sm" data-testid="job-step">
            {step}
          </Text>
        )}
        <Progress
          value={progress.value}
          animated={progress.animated}
          striped={progress.animated}
          color={statusColor(job.status)}
          aria-label={`Job progress: ${progress.label}`}
        />
        <Text size="xs" c="dimmed">
          {progress.label}
        </Text>
        {job.error && (
          <Alert color="red" role="alert" title={job.error.code}>
            {job.error.message}
          </Alert>
        )}
        {cancel.isError && <Text c="red">{errorMessage(cancel.error)}</Text>}
      </Stack>
    </Card>
  );
}
