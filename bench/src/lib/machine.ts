import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Linux reports /proc CPU times in USER_HZ, 100 on every mainstream architecture. */
const TICKS_PER_SECOND = 100;

/** CPU-seconds spent busy by the whole machine since boot (all CPUs), or null off Linux. */
export function machineBusySeconds(): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    const [label, ...fields] = line.trim().split(/\s+/);
    if (label !== 'cpu') return null;
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields.map(Number);
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** CPU-seconds used so far by one process (user + system), or null when unknown. */
export function processCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** This process's CPU-seconds (user + system). */
export function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/** How busy the machine is while we do nothing, as a fraction of all CPUs; null off Linux. */
export async function idleBusyFraction(cpuCount: number, milliseconds = 1000): Promise<number | null> {
  const before = machineBusySeconds();
  await sleep(milliseconds);
  const after = machineBusySeconds();
  if (before === null || after === null) return null;
  return Math.min(1, (after - before) / ((milliseconds / 1000) * cpuCount));
}

/**
 * CPU-seconds of this process's children that have ended and been waited for (user + system, from
 * /proc/self/stat), their own ended children included: a browser's renderers count once it is
 * closed. Null off Linux.
 */
export function endedChildrenCpuSeconds(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}
