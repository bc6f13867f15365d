import type { Schedule, Watch } from '@service/common';
import type { WorkflowsTable } from '../db/tables.js';
import { DomainError } from '../errors.js';
import { checkSchedule, nextScheduledAt, nextWatchAt } from './timing.js';

/** A workflow's schedule and watch as a request or a project.yaml gives them (null or absent: none). */
export interface Timing {
  schedule?: Schedule | null | undefined;
  watch?: Watch | null | undefined;
}

/**
 * Refuses a schedule that names no time, and a watch on a workflow without a data location (only
 * locations are listed; uploads come through the API), naming the field under `path`.
 */
export function checkTiming(timing: Timing, located: boolean, path: string): void {
  if (timing.schedule) checkSchedule(timing.schedule, `${path}.schedule`);
  if (timing.watch && !located)
    throw new DomainError('validation_failed', 'a watch needs a data location', [
      { path: `${path}.watch`, message: 'only a workflow with a data_location has folders to watch' },
    ]);
}

/** The stored timing and when each part is next due counted from `now`; `setBy` is who its runs start as. */
export function timingColumns(timing: Timing, setBy: string, now = new Date()) {
  const { schedule, watch } = timing;
  return {
    schedule: schedule ? JSON.stringify(schedule) : null,
    schedule_next_at: schedule ? nextScheduledAt(schedule, now) : null,
    watch: watch ? JSON.stringify(watch) : null,
    watch_next_at: watch ? nextWatchAt(watch, now) : null,
    watch_fingerprint: null,
    schedule_set_by: schedule || watch ? setBy : null,
  };
}

/** A stored workflow's timing, parsed. */
export function storedTiming(row: Pick<WorkflowsTable, 'schedule' | 'watch'>): {
  schedule: Schedule | null;
  watch: Watch | null;
} {
  return {
    schedule: row.schedule === null ? null : (JSON.parse(row.schedule) as Schedule),
    watch: row.watch === null ? null : (JSON.parse(row.watch) as Watch),
  };
}

/** Whether `timing` is what the row holds (then nothing is rewritten, and the due times stay). */
export function sameTiming(row: Pick<WorkflowsTable, 'schedule' | 'watch'>, timing: Timing): boolean {
  const text = (value: object | null | undefined) => (value ? JSON.stringify(value) : null);
  return text(timing.schedule) === row.schedule && text(timing.watch) === row.watch;
}
