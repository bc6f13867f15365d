/**
 * `ingest-folder`: `service ingest --template nf-core/ampliseq/2.16.0` of the ampliseq results
 * (`server/test/fixtures/ampliseq-results`, or `BENCH_INGEST_FOLDER`) against the real server in a
 * child process (embedded SQLite, local storage, jobs on), from nothing to a dashboard Chromium
 * has drawn:
 *
 * 1. the CLI's steps, timed by the lines it writes on standard error as they arrive: sign-in,
 *    scan (the folder walked and the template applied), project import, upload, ingestion, the
 *    dashboards placed; the ingestion's own steps (one per collection's upsert) from its run record;
 *    then the first tab drawn in Chromium (navigation to every cell drawn), and the peak RSS of
 *    the server and of the CLI;
 * 2. the same folder ingested again with no change: the time, and the table versions of every
 *    collection before and after (nothing may be rewritten).
 *
 * Targets (issue 30): < 20 s end to end on 2 cores; the unchanged re-run < 3 s with no new table
 * version.
 */
import { spawn } from 'node:child_process';
import { access, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWorker } from '../lib/child-worker.js';
import { CpuSpan, printMachine, printVerdicts } from '../lib/report.js';
import { UsageError } from '../lib/usage-error.js';
import { launchChromium, measureDashboardInBrowser } from './dashboard-browser.js';
import type { DashboardTargetMessage } from './dashboard-target.js';
import { requestJson } from './ingest-http.js';
import { peakResidentBytes, resetPeak } from './ingest-memory.js';

const API_PREFIX = '/service/api/v1';
const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const TARGET_SCRIPT = fileURLToPath(new URL('./dashboard-target.js', import.meta.url));
const CLI = join(ROOT, 'cli', 'dist', 'main.js');
const WEB_DIST = join(ROOT, 'web', 'dist');
const FOLDER = process.env.BENCH_INGEST_FOLDER ?? join(ROOT, 'server', 'test', 'fixtures', 'ampliseq-results');
const KEY = 'bench-provisioning-key-0123456789abcdef0123456789';
const EMAIL = 'ingest-folder@example.org';

type Out = (line?: string) => void;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mib = (bytes: number | null) => (bytes === null ? 'unknown' : `${(bytes / 1024 ** 2).toFixed(0)} MiB`);

interface CliRun {
  ms: number;
  /** Each line of standard error with when it arrived (ms from the start). */
  lines: { atMs: number; text: string }[];
  stdout: string;
  peakRss: number | null;
}

/** Runs `service ingest` and notes when each progress line arrives, and the CLI's peak RSS. */
function ingest(server: string, dir: string): Promise<CliRun> {
  const args = ['ingest', dir, '--user', EMAIL, '--server', server, '--provisioning-key', KEY];
  const child = spawn(process.execPath, [CLI, ...args, '--template', 'nf-core/ampliseq/2.16.0'], {
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started = performance.now();
  const lines: CliRun['lines'] = [];
  let stdout = '';
  let pending = '';
  let peakRss: number | null = null;
  const sampler = setInterval(() => {
    peakRss = peakResidentBytes(child.pid ?? 0) ?? peakRss;
  }, 50);
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const text of parts) lines.push({ atMs: performance.now() - started, text });
  });
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => {
      clearInterval(sampler);
      const ms = performance.now() - started;
      if (code !== 0) fail(new Error(`service ingest exited ${code}: ${lines.map((l) => l.text).join('\n')}`));
      else done({ ms, lines, stdout, peakRss });
    });
  });
}

/** When the first line matching `pattern` arrived (ms), or null. */
const at = (run: CliRun, pattern: RegExp) => run.lines.find((line) => pattern.test(line.text))?.atMs ?? null;

/** The CLI's steps, each from the line that ends the step before to the line that ends it. */
function cliSteps(run: CliRun): [string, number][] {
  const marks: [string, RegExp][] = [
    ['sign-in', /^Template /],
    ['project import', /^Project .* (created|updated)\./],
    ['upload', /^Ingestion/],
    ['ingestion (job)', /^Ingestion ended/],
    ['dashboards placed', /^Dashboard /],
  ];
  const steps: [string, number][] = [];
  let previous = 0;
  for (const [name, pattern] of marks) {
    const end = at(run, pattern);
    if (end === null) continue;
    steps.push([name === 'sign-in' ? 'sign-in, scan and template applied' : name, end - previous]);
    previous = end;
  }
  steps.push(['magic link', run.ms - previous]);
  return steps;
}

interface Setting {
  api: string;
  token: string;
  session: Record<string, unknown>;
  projectId: string;
  dashboardId: string;
}

async function setting(url: string, run: CliRun): Promise<Setting> {
  const api = `${url}${API_PREFIX}`;
  const session = (await provisioned(api)) as Record<string, unknown>;
  const token = String(session.access_token);
  const link = new URL(run.stdout.trim());
  const dashboardId = (new URLSearchParams(link.hash.slice(1)).get('next') ?? '').replace('/dashboards/', '');
  const dashboard = (await requestJson('GET', `${api}/dashboards/${dashboardId}`, { token })) as { project_id: string };
  return { api, token, session, projectId: dashboard.project_id, dashboardId };
}

/** `POST /auth/provision_user` with the key in its header (requestJson sends no other header). */
async function provisioned(api: string): Promise<unknown> {
  const answer = await fetch(`${api}/auth/provision_user`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-provisioning-key': KEY },
    body: JSON.stringify({ email: EMAIL }),
  });
  if (!answer.ok) throw new Error(`provision_user: HTTP ${answer.status}`);
  return answer.json();
}

/** Each collection's newest table version, by tag. */
async function tableVersions({ api, token, projectId }: Setting): Promise<Map<string, number | null>> {
  const runs = (await requestJson('GET', `${api}/projects/ingestion-runs/${projectId}`, { token })) as {
    items: { data_collections: { data_collection_id: string; tag: string }[] }[];
  };
  const versions = new Map<string, number | null>();
  for (const collection of runs.items[0]?.data_collections ?? []) {
    const answer = (await requestJson('GET', `${api}/datacollections/${collection.data_collection_id}/versions`, {
      token,
    })) as { items: { version: number }[] };
    versions.set(collection.tag, answer.items[0]?.version ?? null);
  }
  return versions;
}

/** The ingestion's own steps (its run record), each with its duration. */
async function ingestionSteps({ api, token, projectId }: Setting): Promise<[string, number][]> {
  const runs = (await requestJson('GET', `${api}/projects/ingestion-runs/${projectId}`, { token })) as {
    items: {
      steps: { name: string; started_at: string | null; finished_at: string | null; detail: string | null }[];
    }[];
  };
  return (runs.items.at(-1)?.steps ?? []).map((step) => [
    `${step.name}${step.detail ? ` (${step.detail})` : ''}`,
    step.started_at && step.finished_at ? Date.parse(step.finished_at) - Date.parse(step.started_at) : 0,
  ]);
}

export async function run(_args: string[]): Promise<void> {
  const out: Out = (line = '') => process.stdout.write(`${line}\n`);
  for (const needed of [join(WEB_DIST, 'index.html'), CLI])
    await access(needed).catch(() => {
      throw new UsageError(`${needed} is missing: run \`npm run build\` first`);
    });
  const scratch = await mkdtemp(join(tmpdir(), 'bench-ingest-folder-'));
  const dir = join(scratch, 'ampliseq_run');
  await cp(FOLDER, dir, { recursive: true });
  process.env.BENCH_PROVISIONING_KEY = KEY;
  const worker = await startWorker<DashboardTargetMessage>(TARGET_SCRIPT, [
    'service',
    join(scratch, 'service'),
    String(1024 ** 3),
    WEB_DIST,
  ]);
  const browser = await launchChromium();
  try {
    await printMachine(out);
    out(`folder: ${FOLDER}`);
    const span = new CpuSpan();
    resetPeak(worker.pid);
    const first = await ingest(worker.url, dir);
    const where = await setting(worker.url, first);
    const drawn = await measureDashboardInBrowser(browser, worker.url, where.session, where.dashboardId, [], 0);
    const serverPeak = peakResidentBytes(worker.pid);
    const before = await tableVersions(where);
    const ingestion = await ingestionSteps(where);
    const again = await ingest(worker.url, dir);
    const after = await tableVersions(where);
    span.end();
    const total = first.ms + drawn.firstPaintMs;
    out();
    out('from nothing to a drawn dashboard:');
    for (const [name, ms] of cliSteps(first)) out(`  ${name.padEnd(40)} ${seconds(ms)}`);
    out('  of which the ingestion job, by its own steps:');
    for (const [name, ms] of ingestion) out(`    ${name.padEnd(38)} ${seconds(ms)}`);
    out(`  ${'first tab drawn in Chromium'.padEnd(40)} ${seconds(drawn.firstPaintMs)}`);
    out(`  ${'end to end'.padEnd(40)} ${seconds(total)}`);
    out(`peak RSS: server ${mib(serverPeak)}, CLI ${mib(first.peakRss)}`);
    const rewritten = [...after].filter(([tag, version]) => before.get(tag) !== version).map(([tag]) => tag);
    out();
    out(`the same folder again, no change: ${seconds(again.ms)}; table versions before/after:`);
    out(`  ${[...before].map(([tag, version]) => `${tag} ${version}→${after.get(tag)}`).join(', ')}`);
    out(`  dashboard: ${again.lines.find((line) => line.text.startsWith('Dashboard '))?.text ?? 'no line'}`);
    out();
    span.print(out, 0, 2, 'other processes (the host may be loaded)');
    printVerdicts(out, [
      [total < 20_000, `end to end ${seconds(total)} < 20 s`],
      [again.ms < 3_000, `unchanged re-run ${seconds(again.ms)} < 3 s`],
      [
        rewritten.length === 0,
        `unchanged re-run rewrote ${rewritten.length === 0 ? 'no table' : rewritten.join(', ')}`,
      ],
    ]);
  } finally {
    await browser.close();
    await worker.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}
