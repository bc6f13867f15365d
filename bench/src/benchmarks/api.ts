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

function execArgvForService(): string[] {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
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

async function measureAll(targets: LoadTarget[], settings: LoadSettings): Promise<LoadResult[]> {
  const results: LoadResult[] = [];
  for (const target of targets) {
    await preflight(target);
    process.stdout.write(`  measuring ${target.name} ...\n`);
    results.push(await measure(target, settings));
  }
  return results;
}

async function measureBaseline(settings: LoadSettings): Promise<LoadResult> {
  const server = await startTarget(TARGET_SCRIPT, ['baseline']);
  try {
    const [result] = await measureAll([{ name: 'baseline', url: `${server.url}/`, serverPid: server.pid }], settings);
    return result!;
  } finally {
    await stopCounting(server);
  }
}

async function measureService(settings: LoadSettings): Promise<LoadResult[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'service-bench-'));
  try {
    const server = await startTarget(TARGET_SCRIPT, ['service', dataDir], execArgvForService());
    try {
      const token = await login(server.url);
      return await measureAll(
        [
          { name: 'capabilities', url: `${server.url}${API_PREFIX}/utils/capabilities`, serverPid: server.pid },
          {
            name: 'auth/me',
            url: `${server.url}${API_PREFIX}/auth/me`,
            headers: { authorization: `Bearer ${token}` },
            serverPid: server.pid,
          },
        ],
        settings,
      );
    } finally {
      await stopCounting(server);
    }
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

const fixed = (value: number, digits: number) => value.toFixed(digits);
// autocannon records latency at 1 ms resolution: 0 means "under a millisecond".
const millis = (value: number) => (value < 1 ? '<1' : value.toFixed(0));

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const settings = loadSettingsFromEnv();
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const out = (line = '') => process.stdout.write(`${line}\n`);

  out(`api benchmark, ${new Date().toISOString()}`);
  out(`machine: ${cpu}, ${cpus().length} CPUs, Node ${process.version}, ${process.platform}/${process.arch}`);
  out(
    `load: autocannon, ${settings.connections} connections, pipelining ${settings.pipelining}, ` +
      `${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s measured per route, 127.0.0.1`,
  );
  out('each server runs alone in a child process; the load generator runs in this process');
  out('service: real server, embedded SQLite in a temp dir, logger silent (SERVICE_LOG_LEVEL=silent)');
  out('         so that logging does not dominate the figures');

  const cpuCount = cpus().length;
  const idleBusy = await idleBusyFraction(cpuCount);
  if (idleBusy !== null) {
    out(`machine busy before the run: ${fixed(idleBusy * 100, 0)}% of all CPUs`);
    if (idleBusy > 0.15) out('WARNING: other processes are using the CPUs; figures will be low and noisy');
  }
  out();

  const span = new CpuSpan();
  const baseline = await measureBaseline(settings);
  const service = await measureService(settings);
  span.end();
  const results = [baseline, ...service];
  const ratio = (result: LoadResult) => result.requestsPerSecond / baseline.requestsPerSecond;
  // The same ratio from server CPU time per request: what req/s would be if the server had a core to itself.
  const cpuRatio = (result: LoadResult) =>
    result.serverCpuMicros && baseline.serverCpuMicros
      ? fixed(baseline.serverCpuMicros / result.serverCpuMicros, 2)
      : '?';

  out();
  out(
    formatTable(
      ['name', 'req/s (mean)', 'p50 ms', 'p99 ms', 'x baseline', 'server CPU us/req', 'x baseline by CPU'],
      results.map((result) => [
        result.name === 'baseline' ? 'baseline (bare Fastify hello-world)' : result.name,
        fixed(result.requestsPerSecond, 0),
        millis(result.p50Ms),
        millis(result.p99Ms),
        fixed(ratio(result), 2),
        result.serverCpuMicros === null ? '?' : fixed(result.serverCpuMicros, 0),
        cpuRatio(result),
      ]),
    ),
  );
  out();

  span.print(out, childrenCpuSeconds, cpuCount);

  printVerdicts(
    out,
    TARGETS.map((target) => {
      const result = results.find((entry) => entry.name === target.row);
      if (!result) throw new Error(`no result for ${target.row}`);
      const achieved = ratio(result);
      return [
        achieved >= target.minRatio,
        `${target.label} >= ${fixed(target.minRatio, 2)}x baseline: ${fixed(achieved, 2)}x`,
      ];
    }),
  );
}
