import type { FieldError, IngestionRun, Job, JobStatus } from '@service/common';

/** Whether a job will change no more. */
export function jobEnded(status: JobStatus): boolean {
  return status === 'success' || status === 'failed' || status === 'cancelled';
}

/** Mantine color for a job or ingestion-run status. */
export function statusColor(
  status: JobStatus | IngestionRun['status'] | IngestionRun['steps'][number]['status'],
): string {
  switch (status) {
    case 'success':
      return 'teal';
    case 'failed':
      return 'red';
    case 'cancelled':
      return 'gray';
    case 'partial':
      return 'orange';
    case 'skipped':
      return 'gray';
    case 'running':
      return 'blue';
    default:
      return 'yellow';
  }
}

/** The progress bar's value (0..100), its label, and whether it animates. */
export interface ProgressView {
  value: number;
  label: string;
  animated: boolean;
}

/**
 * How a job's progress reads: a percentage when the task tells one, otherwise a full striped bar
 * while it runs (the task cannot tell how far it is) and the final state once it ended.
 */
export function jobProgress(job: Pick<Job, 'status' | 'progress'>): ProgressView {
  if (job.status === 'success') return { value: 100, label: '100%', animated: false };
  if (jobEnded(job.status)) {
    const value = job.progress === null ? 0 : clampPercent(job.progress * 100);
    return { value, label: job.status === 'failed' ? 'Failed' : 'Cancelled', animated: false };
  }
  if (job.status === 'pending') return { value: 0, label: 'Waiting for a worker', animated: false };
  if (job.progress === null) return { value: 100, label: 'Working…', animated: true };
  const value = clampPercent(job.progress * 100);
  return { value, label: `${Math.round(value)}%`, animated: true };
}

function clampPercent(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(100, Math.max(0, value));
}

/** Milliseconds until the next poll, or false to stop (the job ended). */
export function pollInterval(job: Pick<Job, 'poll_after_seconds' | 'status'> | undefined): number | false {
  if (job === undefined) return 1000;
  if (jobEnded(job.status) || job.poll_after_seconds === null) return false;
  return Math.max(250, job.poll_after_seconds * 1000);
}

/**
 * While the page's stream is open, an unfinished job is still asked for this seldom: the stream
 * refetches it on each of its changes, and this only makes sure that an event the page never got
 * (a reconnect past the resume window, a process that stopped before publishing) cannot leave a
 * job shown running for ever.
 */
export const CHECK_WHILE_LIVE_MS = 15_000;

/** How often a page asks for a job: `pollInterval`, or while its stream is open (`live`) at most every 15 s. */
export function jobRefetchInterval(
  job: Pick<Job, 'poll_after_seconds' | 'status'> | undefined,
  live: boolean,
): number | false {
  const interval = pollInterval(job);
  return live && interval !== false ? Math.max(interval, CHECK_WHILE_LIVE_MS) : interval;
}

/** One line of a step or status: "step — detail". */
export function jobStepText(job: Pick<Job, 'step' | 'detail'>): string {
  return [job.step, job.detail].filter((part): part is string => part !== null && part !== '').join(' — ');
}

/** A field error as people read it: `line:column path — message` (the place parts only when known). */
export function formatFieldError(error: FieldError): string {
  const place = error.line === undefined ? '' : `${error.line}:${error.column ?? 1} `;
  const path = error.path === '' ? '' : `${error.path} — `;
  return `${place}${path}${error.message}`.trim();
}

/** Bytes for people: 1.2 MB, 512 B. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = -1;
  do {
    value /= 1000;
    unit += 1;
  } while (value >= 1000 && unit < units.length - 1);
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** How long between two ISO times, e.g. "3.2 s" or "2 min 5 s"; null when not both known. */
export function formatDuration(start: string | null, end: string | null): string | null {
  if (start === null || end === null) return null;
  const ms = Date.parse(end) - Date.parse(start);
  if (!Number.isFinite(ms) || ms < 0) return null;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${seconds} s`;
}

/** Why Run ingestion cannot be used now. */
export function triggerReasonText(reason: 'disabled' | 'jobs_disabled' | 'forbidden' | 'no_data' | null): string {
  switch (reason) {
    case 'disabled':
      return 'Running ingestion from the browser is turned off on this server.';
    case 'jobs_disabled':
      return 'Background jobs are turned off on this server.';
    case 'forbidden':
      return 'Only the project’s editors and owners can run ingestion.';
    case 'no_data':
      return 'This project has neither data locations nor uploads to ingest.';
    default:
      return 'Ingestion is not available right now.';
  }
}
