/**
 * `api`: requests per second and latency of the HTTP API on loopback, against a bare Fastify
 * hello-world measured the same way on the same machine, so the figures read as "how much of
 * Fastify's ceiling does our stack keep".
 *
 * Each server runs alone in a child process (one at a time); autocannon generates load from this
 * process. Every response must be 2xx, else the run fails instead of reporting a meaningless number.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningTarget, startTarget } from '../lib/child-target.js';
import { type LoadResult, type LoadSettings, type LoadTarget, loadSettingsFromEnv, measure } from '../lib/load.js';
import { idleBusyFraction, processCpuSeconds } from '../lib/machine.js';
import { CpuSpan, printVerdicts } from '../lib/report.js';
import { median } from '../lib/stats.js';
import { formatTable } from '../lib/table.js';
import { UsageError } from '../lib/usage-error.js';
import { BENCH_ADMIN_EMAIL, BENCH_ADMIN_PASSWORD } from './api-fixture.js';

// Kept literal rather than imported so this process never loads the server (only the child does).
const API_PREFIX = '/service/api/v1';
const TARGET_SCRIPT = fileURLToPath(new URL('./api-target.js', import.meta.url));

interface Target {
  /** Minimum req/s as a fraction of the baseline's. */
  minRatio: number;
  label: string;
  row: string;
}

const TARGETS: Target[] = [
  { row: 'capabilities', label: 'GET /utils/capabilities (public)', minRatio: 0.8 },
  { row: 'auth/me', label: 'GET /auth/me (bearer token)', minRatio: 0.5 },
];

/** `--cpu-prof` for the first round's server when BENCH_CPU_PROF_DIR names a folder. */
function execArgvForService(round: number): string[] {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  return dir && round === 0 ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
}

async function expectOk(response: Response, what: string): Promise<unknown> {
  const body = await response.text();
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status}: ${body.slice(0, 300)}`);
  return JSON.parse(body) as unknown;
}

async function login(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}${API_PREFIX}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: BENCH_ADMIN_EMAIL, password: BENCH_ADMIN_PASSWORD }),
  });
  const body = (await expectOk(response, 'POST /auth/login')) as { access_token?: unknown };
  if (typeof body.access_token !== 'string') throw new Error('POST /auth/login: no access_token in the answer');
  return body.access_token;
}

/** One request before the load, so a broken route fails with its answer rather than a count. */
async function preflight(target: LoadTarget): Promise<void> {
  await expectOk(await fetch(target.url, { headers: target.headers ?? {} }), `${target.name} preflight`);
}

/**
 * Each round starts both servers afresh, side by side (an idle one costs nothing), loads them one
 * at a time (baseline, capabilities, auth/me) and stops them. The host's speed drifts by a factor
 * of two from one minute to the next on a shared machine, so each route is compared with the
 * baseline of its own round. And a Node process of the real server settles, at start-up, into one
 * of a few speeds that it keeps (docs/performance.md, `api`): fresh processes per round, and the
 * median over rounds, measure the server rather than one process's luck.
 */
async function measureRound(
  dataDir: string,
  settings: LoadSettings,
  round: number,
  rounds: number,
): Promise<LoadResult[]> {
  const servers: RunningTarget[] = [];
  try {
    const baseline = await startTarget(TARGET_SCRIPT, ['baseline']);
    servers.push(baseline);
    const service = await startTarget(TARGET_SCRIPT, ['service', dataDir], execArgvForService(round));
    servers.push(service);
    const token = await login(service.url);
    const targets: LoadTarget[] = [
      { name: 'baseline', url: `${baseline.url}/`, serverPid: baseline.pid },
      { name: 'capabilities', url: `${service.url}${API_PREFIX}/utils/capabilities`, serverPid: service.pid },
      {
        name: 'auth/me',
        url: `${service.url}${API_PREFIX}/auth/me`,
        headers: { authorization: `Bearer ${token}` },
        serverPid: service.pid,
      },
    ];
    for (const target of targets) await preflight(target);
    const results: LoadResult[] = [];
    for (const target of targets) {
      process.stdout.write(`  round ${round + 1}/${rounds}: measuring ${target.name} ...\n`);
      results.push(await measure(target, settings));
    }
    return results;
  } finally {
    for (const server of servers) await stopCounting(server);
  }
}

async function measureAll(settings: LoadSettings, rounds: number): Promise<LoadResult[][]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'service-bench-'));
  try {
    const results: LoadResult[][] = [];
    for (let round = 0; round < rounds; round++) results.push(await measureRound(dataDir, settings, round, rounds));
    return results;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** CPU-seconds used by the server children, read just before each one stops. */
let childrenCpuSeconds = 0;

async function stopCounting(server: RunningTarget): Promise<void> {
  childrenCpuSeconds += processCpuSeconds(server.pid) ?? 0;
  await server.stop();
}

function roundsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BENCH_API_ROUNDS;
  if (raw === undefined || raw.trim() === '') return 3;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`BENCH_API_ROUNDS must be a whole number >= 1 (got "${raw}")`);
  return value;
}

const fixed = (value: number, digits: number) => value.toFixed(digits);
// autocannon records latency at 1 ms resolution: 0 means "under a millisecond".
const millis = (value: number) => (value < 1 ? '<1' : value.toFixed(0));

type Out = (line?: string) => void;
type Settings = ReturnType<typeof loadSettingsFromEnv>;

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const settings = loadSettingsFromEnv();
  const rounds = roundsFromEnv();
  const out: Out = (line = '') => process.stdout.write(`${line}\n`);
  const cpuCount = cpus().length;
  await printHeader(out, settings, rounds);

  const span = new CpuSpan();
  const byRound = await measureAll(settings, rounds);
  span.end();

  const { names, rpsRatios } = report(out, byRound);
  span.print(out, childrenCpuSeconds, cpuCount);
  printVerdicts(
    out,
    TARGETS.map((target) => {
      const index = names.indexOf(target.row);
      if (index < 0) throw new Error(`no result for ${target.row}`);
      const achieved = median(rpsRatios[index]!);
      return [
        achieved >= target.minRatio,
        `${target.label} >= ${fixed(target.minRatio, 2)}x baseline: ${fixed(achieved, 2)}x (median of ${rounds} rounds)`,
      ];
    }),
  );
}

async function printHeader(out: Out, settings: Settings, rounds: number): Promise<void> {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  out(`api benchmark, ${new Date().toISOString()}`);
  out(`machine: ${cpu}, ${cpus().length} CPUs, Node ${process.version}, ${process.platform}/${process.arch}`);
  out(
    `load: autocannon, ${settings.connections} connections, pipelining ${settings.pipelining}, ` +
      `${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s measured per route ` +
      `and round, ${rounds} rounds, 127.0.0.1`,
  );
  out('each server runs in a child process, started afresh every round, and is loaded alone;');
  out('the load generator runs in this process');
  out('service: real server, embedded SQLite in a temp dir, logger silent (SERVICE_LOG_LEVEL=silent)');
  out('         so that logging does not dominate the figures');
  const idleBusy = await idleBusyFraction(cpus().length);
  if (idleBusy !== null) {
    out(`machine busy before the run: ${fixed(idleBusy * 100, 0)}% of all CPUs`);
    if (idleBusy > 0.15) out('WARNING: other processes are using the CPUs; figures will be low and noisy');
  }
  out();
}

/**
 * Each route against the baseline of its own round, by req/s and by server CPU time per request
 * (what req/s would be if the server had a core to itself). Answers the routes' names and req/s ratios.
 */
function report(out: Out, byRound: LoadResult[][]): { names: string[]; rpsRatios: number[][] } {
  const names = byRound[0]!.map((result) => result.name);
  const column = (index: number) => byRound.map((row) => row[index]!);
  const ratios = (index: number, of: (result: LoadResult) => number | null) =>
    byRound.flatMap((row) => {
      const own = of(row[index]!);
      const base = of(row[0]!);
      return own === null || base === null || own === 0 ? [] : [own / base];
    });
  const rpsRatios = names.map((_, index) => ratios(index, (result) => result.requestsPerSecond));
  const cpuRatios = names.map((_, index) =>
    ratios(index, (result) => (result.serverCpuMicros === null ? null : 1 / result.serverCpuMicros)),
  );
  const orUnknown = (values: number[], digits: number) => (values.length === 0 ? '?' : fixed(median(values), digits));

  out();
  out(
    formatTable(
      [
        'name',
        'req/s (median)',
        'p50 ms',
        'p99 ms',
        'x baseline (median)',
        'per round',
        'server CPU us/req',
        'x baseline by CPU',
      ],
      names.map((name, index) => {
        const results = column(index);
        return [
          name === 'baseline' ? 'baseline (bare Fastify hello-world)' : name,
          fixed(median(results.map((result) => result.requestsPerSecond)), 0),
          millis(median(results.map((result) => result.p50Ms))),
          millis(median(results.map((result) => result.p99Ms))),
          orUnknown(rpsRatios[index]!, 2),
          rpsRatios[index]!.map((value) => fixed(value, 2)).join(' '),
          orUnknown(
            results.flatMap((result) => (result.serverCpuMicros === null ? [] : [result.serverCpuMicros])),
            0,
          ),
          orUnknown(cpuRatios[index]!, 2),
        ];
      }),
    ),
  );
  out();
  return { names, rpsRatios };
}
