import type { Schedule, Watch } from '@service/common';
import { Cron } from 'croner';
import { DomainError } from '../errors.js';

/** The first time after `after` that `schedule` names, as an ISO time; null when it names none (e.g. 30 February). */
export function nextScheduledAt(schedule: Schedule, after: Date): string | null {
  const cron = new Cron(schedule.cron.trim(), { timezone: schedule.timezone ?? 'UTC', paused: true });
  return cron.nextRun(after)?.toISOString() ?? null;
}

/** When a watch looks again after looking at `after`. */
export function nextWatchAt(watch: Watch, after: Date): string {
  return new Date(after.getTime() + watch.interval_seconds * 1000).toISOString();
}

/** Refuses a schedule whose time zone is unknown or whose cron expression is not one, naming the field under `path`. */
export function checkSchedule(schedule: Schedule, path: string): void {
  if (schedule.timezone !== undefined && !isTimeZone(schedule.timezone))
    throw invalid(`${path}.timezone`, `${schedule.timezone} is not an IANA time zone (e.g. Europe/Paris)`);
  let next: string | null;
  try {
    next = nextScheduledAt(schedule, new Date());
  } catch (error) {
    throw invalid(`${path}.cron`, error instanceof Error ? error.message : 'not a cron expression');
  }
  if (next === null) throw invalid(`${path}.cron`, 'names no time that will ever come');
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

function invalid(path: string, message: string): DomainError {
  return new DomainError('validation_failed', 'the schedule is not valid', [{ path, message }]);
}
