import {
  Alert,
  Button,
  Checkbox,
  Group,
  List,
  Modal,
  NumberInput,
  Select,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  type Schedule,
  type updateWorkflowRequestSchema,
  type Watch,
  type Workflow,
  workflowSchema,
} from '@service/common';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Cron } from 'croner';
import { useMemo, useState } from 'react';
import type { z } from 'zod';
import { errorMessage, isApiError } from '../api/client.js';
import { useApi } from '../auth/session.js';

/** How many coming runs the form shows for the cron expression being typed. */
const PREVIEWED_RUNS = 3;

/** "every 5 min", "every 1 h 30 min", "every 45 s": a watch's interval, read aloud. */
export function intervalText(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  const parts = [hours > 0 ? `${hours} h` : '', minutes > 0 ? `${minutes} min` : '', rest > 0 ? `${rest} s` : ''];
  return `every ${parts.filter((part) => part !== '').join(' ')}`;
}

/** "Fri 28 Nov, 03:00 CET": a run's time as read in the schedule's own time zone. */
function runText(date: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  }).format(date);
}

/** The next runs `schedule` names, or why it names none (the server checks it the same way, with croner). */
export function previewRuns(schedule: Schedule, count = PREVIEWED_RUNS): { runs: string[] } | { problem: string } {
  const fields = schedule.cron.trim().split(/\s+/);
  if (fields.length !== 5) return { problem: 'five fields: minute hour day-of-month month day-of-week' };
  const timeZone = schedule.timezone ?? 'UTC';
  try {
    const runs = new Cron(schedule.cron.trim(), { timezone: timeZone, paused: true }).nextRuns(count);
    if (runs.length === 0) return { problem: 'names no time that will ever come' };
    return { runs: runs.map((run) => runText(run, timeZone)) };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : 'not a cron expression' };
  }
}

/** The time zones the browser knows, the workflow's own first when it is not among them. */
function timeZones(current: string): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const zones = known.includes('UTC') ? known : ['UTC', ...known];
  return zones.includes(current) ? zones : [current, ...zones];
}

/** One line saying when the workflow's ingestion starts by itself (or that it does not). */
export function timingSummary(workflow: Pick<Workflow, 'schedule' | 'watch'>): string {
  const parts: string[] = [];
  if (workflow.schedule) parts.push(`Scheduled: ${workflow.schedule.cron} (${workflow.schedule.timezone ?? 'UTC'})`);
  if (workflow.watch) parts.push(`Watched ${intervalText(workflow.watch.interval_seconds)}`);
  return parts.length > 0 ? parts.join(' · ') : 'Runs only when started';
}

interface TimingForm {
  scheduled: boolean;
  cron: string;
  timezone: string;
  watched: boolean;
  intervalSeconds: number;
}

function formOf(workflow: Workflow): TimingForm {
  return {
    scheduled: workflow.schedule !== null,
    cron: workflow.schedule?.cron ?? '0 3 * * *',
    timezone: workflow.schedule?.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC',
    watched: workflow.watch !== null,
    intervalSeconds: workflow.watch?.interval_seconds ?? 300,
  };
}

/** The PATCH body the form saves: the same `schedule` and `watch` as project.yaml. */
function changesOf(form: TimingForm): z.input<typeof updateWorkflowRequestSchema> {
  const schedule: Schedule | null = form.scheduled ? { cron: form.cron.trim(), timezone: form.timezone } : null;
  const watch: Watch | null = form.watched ? { interval_seconds: form.intervalSeconds } : null;
  return { schedule, watch };
}

/**
 * A workflow's schedule and watch on its card (docs/jobs.md "Schedules and watched folders"): what
 * they are, and for editors a dialog to set, change or remove them, with the next runs of the cron
 * expression as it is typed.
 */
export function WorkflowTiming({ workflow, canEdit }: { workflow: Workflow; canEdit: boolean }) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <Group gap="xs" justify="space-between" wrap="nowrap">
      <Text size="xs" c="dimmed" data-testid="workflow-timing">
        {timingSummary(workflow)}
      </Text>
      {canEdit && (
        <Button size="compact-xs" variant="subtle" onClick={open} aria-label={`Schedule of ${workflow.name}`}>
          Schedule
        </Button>
      )}
      {opened && <TimingDialog workflow={workflow} onClose={close} />}
    </Group>
  );
}

function TimingDialog({ workflow, onClose }: { workflow: Workflow; onClose: () => void }) {
  const api = useApi();
  const queries = useQueryClient();
  const [form, setForm] = useState(() => formOf(workflow));
  const set = (changes: Partial<TimingForm>) => setForm((previous) => ({ ...previous, ...changes }));
  const preview = useMemo(() => previewRuns({ cron: form.cron, timezone: form.timezone }), [form.cron, form.timezone]);
  const save = useMutation({
    mutationFn: () =>
      api.request(`/workflows/${workflow.workflow_id}`, workflowSchema, {
        method: 'PATCH',
        json: changesOf(form),
      }),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ['workflows', workflow.project_id] });
      onClose();
    },
  });
  const cronError = form.scheduled && 'problem' in preview ? preview.problem : null;
  const fieldError = (path: string) =>
    isApiError(save.error) ? save.error.fieldErrors.find((field) => field.path.endsWith(path))?.message : undefined;
  const canWatch = workflow.data_location !== null;
  return (
    <Modal opened onClose={onClose} title={`When ${workflow.name} ingests by itself`} size="lg">
      <Stack gap="md">
        <Checkbox
          label="Run on a schedule"
          checked={form.scheduled}
          onChange={(event) => set({ scheduled: event.currentTarget.checked })}
        />
        {form.scheduled && (
          <ScheduleFields form={form} set={set} preview={preview} cronError={cronError} fieldError={fieldError} />
        )}
        <Checkbox
          label="Watch the data folders"
          description={
            canWatch
              ? 'an ingestion starts when files appear, change or go'
              : 'this workflow has no data location on the server (uploads only)'
          }
          disabled={!canWatch && !form.watched}
          checked={form.watched}
          onChange={(event) => set({ watched: event.currentTarget.checked })}
        />
        {form.watched && (
          <NumberInput
            pl="lg"
            label="Look every (seconds)"
            description={intervalText(form.intervalSeconds)}
            min={10}
            max={86_400}
            value={form.intervalSeconds}
            onChange={(value) => set({ intervalSeconds: typeof value === 'number' ? value : 300 })}
            error={fieldError('interval_seconds')}
          />
        )}
        {save.isError && (
          <Alert color="red" role="alert">
            {errorMessage(save.error)}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => save.mutate()} loading={save.isPending} disabled={cronError !== null}>
            Save
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** The cron expression and time zone, with the next runs they name (or why they name none). */
function ScheduleFields({
  form,
  set,
  preview,
  cronError,
  fieldError,
}: {
  form: TimingForm;
  set: (changes: Partial<TimingForm>) => void;
  preview: ReturnType<typeof previewRuns>;
  cronError: string | null;
  fieldError: (path: string) => string | undefined;
}) {
  const zones = useMemo(() => timeZones(form.timezone), [form.timezone]);
  return (
    <Stack gap="xs" pl="lg">
      <Group grow align="flex-start">
        <TextInput
          label="Cron expression"
          description="minute hour day-of-month month day-of-week"
          value={form.cron}
          onChange={(event) => set({ cron: event.currentTarget.value })}
          error={cronError ?? fieldError('cron')}
          spellCheck={false}
        />
        <Select
          label="Time zone"
          description="the hours above are read here"
          data={zones}
          value={form.timezone}
          onChange={(zone) => set({ timezone: zone ?? 'UTC' })}
          searchable
          allowDeselect={false}
          error={fieldError('timezone')}
        />
      </Group>
      {'runs' in preview && (
        <div role="status" aria-label="Next runs">
          <Text size="sm" fw={500}>
            Next runs
          </Text>
          <List size="sm">
            {preview.runs.map((run) => (
              <List.Item key={run}>{run}</List.Item>
            ))}
          </List>
        </div>
      )}
    </Stack>
  );
}
