import autocannon from 'autocannon';
import { processCpuSeconds } from './machine.js';
import { UsageError } from './usage-error.js';

/** How hard and how long each target is loaded. */
export interface LoadSettings {
  connections: number;
  pipelining: number;
  warmupSeconds: number;
  durationSeconds: number;
}

export interface LoadTarget {
  name: string;
  url: string;
  headers?: Record<string, string>;
  /** The server's process, when it is not this one: its CPU time per request is then reported. */
  serverPid?: number;
}

export interface LoadResult {
  name: string;
  /** Mean of the per-second request counts during the measured run. */
  requestsPerSecond: number;
  /** Latency percentiles in milliseconds (autocannon records them at 1 ms resolution). */
  p50Ms: number;
  p99Ms: number;
  total2xx: number;
  /**
   * Server CPU time (user + system) per request in microseconds, or null when unknown. Less
   * sensitive than req/s to other processes competing for the CPUs, as it counts only the server's time.
   */
  serverCpuMicros: number | null;
}

function secondsFrom(env: NodeJS.ProcessEnv, variable: string, fallback: number, minimum: number): number {
  const raw = env[variable];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < minimum) {
    throw new UsageError(`${variable} must be a number of seconds >= ${minimum} (got "${raw}")`);
  }
  return value;
}

/** Defaults: 10 connections, no pipelining, 2 s warm-up then 5 s measured; the durations can be overridden. */
export function loadSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): LoadSettings {
  return {
    connections: 10,
    pipelining: 1,
    warmupSeconds: secondsFrom(env, 'BENCH_WARMUP_SECONDS', 2, 0),
    durationSeconds: secondsFrom(env, 'BENCH_DURATION_SECONDS', 5, 1),
  };
}

async function fire(target: LoadTarget, settings: LoadSettings, durationSeconds: number): Promise<autocannon.Result> {
  return autocannon({
    url: target.url,
    method: 'GET',
    headers: target.headers ?? {},
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: durationSeconds,
  });
}

/** A run with any failed request measures the wrong thing: refuse it rather than report it. */
function assertClean(target: LoadTarget, phase: string, result: autocannon.Result): void {
  const problems: string[] = [];
  if (result.non2xx > 0) {
    const codes = Object.entries(result.statusCodeStats ?? {})
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, stats]) => `${code}x${stats.count ?? 0}`)
      .join(', ');
    problems.push(`${result.non2xx} non-2xx responses${codes ? ` (${codes})` : ''}`);
  }
  if (result.errors > 0) problems.push(`${result.errors} connection errors (${result.timeouts} timeouts)`);
  if (result.mismatches > 0) problems.push(`${result.mismatches} mismatched bodies`);
  if (result['2xx'] === 0) problems.push('no successful response at all');
  if (problems.length > 0) {
    throw new Error(`${target.name} (${phase}, ${target.url}): ${problems.join('; ')}`);
  }
}

/** Warms the target up (result checked, then discarded), then measures it. */
export async function measure(target: LoadTarget, settings: LoadSettings): Promise<LoadResult> {
  if (settings.warmupSeconds > 0) assertClean(target, 'warm-up', await fire(target, settings, settings.warmupSeconds));
  const cpuBefore = target.serverPid === undefined ? null : processCpuSeconds(target.serverPid);
  const result = await fire(target, settings, settings.durationSeconds);
  const cpuAfter = target.serverPid === undefined ? null : processCpuSeconds(target.serverPid);
  assertClean(target, 'measurement', result);
  const serverCpuMicros =
    cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) * 1e6) / result.requests.total;
  return {
    name: target.name,
    requestsPerSecond: result.requests.mean,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total2xx: result['2xx'],
    serverCpuMicros,
  };
}
