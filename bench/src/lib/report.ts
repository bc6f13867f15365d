import { cpus } from 'node:os';
import { idleBusyFraction, machineBusySeconds, ownCpuSeconds } from './machine.js';

type Out = (line?: string) => void;

/** The machine line, then how busy the CPUs are before the benchmark starts (with a warning above 15%). */
export async function printMachine(out: Out): Promise<void> {
  const cpuCount = cpus().length;
  out(
    `machine: ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${cpuCount} CPUs, Node ${process.version}, ${process.platform}/${process.arch}`,
  );
  const idleBusy = await idleBusyFraction(cpuCount);
  if (idleBusy !== null) {
    out(`machine busy before the run: ${(idleBusy * 100).toFixed(0)}% of all CPUs`);
    if (idleBusy > 0.15) out('WARNING: other processes are using the CPUs; figures will be low and noisy');
  }
}

/**
 * How much CPU other processes took while the measured part of a benchmark ran: the machine's
 * busy time minus this process's and its children's. Figures taken beside a busy machine are
 * reported with that share, never silently.
 */
export class CpuSpan {
  private readonly busyBefore = machineBusySeconds();
  private readonly ownBefore = ownCpuSeconds();
  private readonly startedAt = Date.now();
  private busyAfter: number | null = null;
  private elapsedSeconds = 0;

  /** Ends the measured part (reporting may follow later). */
  end(): void {
    this.busyAfter = machineBusySeconds();
    this.elapsedSeconds = (Date.now() - this.startedAt) / 1000;
  }

  /** Prints the share line, and a warning above 10%; `childCpuSeconds` is what our own children used. */
  print(out: Out, childCpuSeconds: number, cpuCount: number, others = 'other processes'): void {
    if (this.busyBefore === null || this.busyAfter === null) return;
    const ours = ownCpuSeconds() - this.ownBefore + childCpuSeconds;
    const used = Math.max(0, this.busyAfter - this.busyBefore - ours);
    const available = this.elapsedSeconds * cpuCount;
    const share = used / available;
    out(
      `${others} used ${used.toFixed(1)} CPU-s of ${available.toFixed(0)} available ` +
        `during the run (${(share * 100).toFixed(0)}%)`,
    );
    if (share > 0.1) out('WARNING: the machine was not quiet; rerun on an idle machine before trusting these figures');
    out();
  }
}

/** One PASS or MISS line per target, then the summary; benchmarks report, they never fail on a miss. */
export function printVerdicts(out: Out, verdicts: [met: boolean, verdict: string][]): void {
  let missed = 0;
  for (const [met, verdict] of verdicts) {
    if (!met) missed += 1;
    out(met ? `PASS  ${verdict}` : `MISS  ${verdict}   <-- TARGET MISSED`);
  }
  out();
  out(
    missed === 0
      ? 'all targets met'
      : `*** ${missed} of ${verdicts.length} targets MISSED (benchmarks report, they do not gate: exit code 0) ***`,
  );
}
