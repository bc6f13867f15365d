/**
 * Resident memory of another process, from Linux's /proc: the current size (VmRSS), the peak
 * (VmHWM, "high water mark"), resetting the peak between phases (`clear_refs`), and a sampler for a
 * coarse picture of how memory grows during a phase. Everything answers null off Linux.
 */
import { readFileSync, writeFileSync } from 'node:fs';

function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Current resident set in bytes. */
export function residentBytes(pid: number): number | null {
  return statusField(pid, 'VmRSS');
}

/** Peak resident set in bytes since the process started or since the last `resetPeak`. */
export function peakResidentBytes(pid: number): number | null {
  return statusField(pid, 'VmHWM');
}

/** Starts a new peak measurement (writing 5 to clear_refs); false when the kernel refused. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface RssSampler {
  /** Stops sampling; answers the samples (bytes) in time order, with their times (ms since start). */
  stop(): { atMs: number; bytes: number }[];
}

export function sampleResident(pid: number, everyMs = 100): RssSampler {
  const started = performance.now();
  const samples: { atMs: number; bytes: number }[] = [];
  const take = () => {
    const bytes = residentBytes(pid);
    if (bytes !== null) samples.push({ atMs: performance.now() - started, bytes });
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/** The sample nearest each tenth of the run (0 %, 10 %, ... 100 %): how memory grew, in a line. */
export function tenths(samples: { atMs: number; bytes: number }[]): number[] {
  if (samples.length === 0) return [];
  const end = samples[samples.length - 1]?.atMs ?? 0;
  const picked: number[] = [];
  let index = 0;
  for (let tenth = 0; tenth <= 10; tenth++) {
    const at = (end * tenth) / 10;
    while (index < samples.length - 1 && (samples[index + 1]?.atMs ?? 0) <= at) index++;
    picked.push(samples[index]?.bytes ?? 0);
  }
  return picked;
}
