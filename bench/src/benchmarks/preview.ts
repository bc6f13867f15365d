/**
 * `preview`: the warm preview request of the web app's first screen (`GET
 * /datacollections/{id}/preview?limit=25&skip=0` with a bearer token, as the browser sends it)
 * against the real server in a child process, over a generated table of 1 million rows
 * (`BENCH_PREVIEW_ROWS`), next to its baseline measured in the same run: the server's DuckDB
 * alone, in another child process, running the preview's two statements (the first 25 rows, then
 * `count(*)`) straight over the table's Parquet files. The two alternate (request then DuckDB, then
 * DuckDB then request, ...), so that a busy moment of the shared machine hits both; medians.
 *
 * `BENCH_PREVIEW_DATA=<dir>` keeps the generated table there and reuses it in later runs (the
 * upsert of 10 M rows takes minutes); `BENCH_PREVIEW_CPU_PROF=<dir>` writes a V8 CPU profile of
 * the server process there (`--cpu-prof`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTarget } from '../lib/child-target.js';
import { startWorker } from '../lib/child-worker.js';
import { wholeFromEnv } from '../lib/env.js';
import { endedChildrenCpuSeconds } from '../lib/machine.js';
import { CpuSpan, printMachine, printVerdicts } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';
import { formatTable } from '../lib/table.js';
import { UsageError } from '../lib/usage-error.js';
import { BENCH_ADMIN_EMAIL, BENCH_ADMIN_PASSWORD } from './api-fixture.js';
import { createBenchCollection, field, keptFixture, uploadAndUpsert } from './collection-fixture.js';
import { generateCsv } from './ingest-data.js';
import { closeConnections, requestJson } from './ingest-http.js';
import type { PreviewBaselineMessage } from './preview-baseline.js';

const API_PREFIX = '/service/api/v1';
const SERVER_SCRIPT = fileURLToPath(new URL('./ingest-target.js', import.meta.url));
const BASELINE_SCRIPT = fileURLToPath(new URL('./preview-baseline.js', import.meta.url));
const DEFAULT_ROWS = 1_000_000;
const DEFAULT_RUNS = 31;
const WARMUPS = 3;
const MIB = 1024 ** 2;
/** The preview request may take at most this multiple of DuckDB's own time. */
const TARGET_RATIO = 2;
const FIXTURE_FILE = 'bench-preview.json';

interface Fixture {
  rows: number;
  projectId: string;
  collectionId: string;
}

const fixed = (value: number, digits: number) => value.toFixed(digits);
const grouped = (value: number) => value.toLocaleString('en-US').replaceAll(',', ' ');

/** Builds the table the way a user does (upload the CSV, then upsert); not timed. */
async function buildTable(dataDir: string, rows: number, out: (line?: string) => void): Promise<Fixture> {
  const csvPath = join(dataDir, 'rows.csv');
  out(`generating ${grouped(rows)} rows ...`);
  const generated = await generateCsv(csvPath, rows);
  const server = await startTarget(SERVER_SCRIPT, [
    'service',
    join(dataDir, 'service'),
    String(Math.max(1024 ** 3, generated.bytes + MIB)),
  ]);
  try {
    const api = `${server.url}${API_PREFIX}`;
    const collection = await createBenchCollection(api, {
      project: 'preview benchmark',
      workflow: 'generated',
      tag: 'rows',
      pattern: 'rows\\.csv',
    });
    const seconds = await uploadAndUpsert(
      api,
      collection,
      { localPath: csvPath, size: generated.bytes, path: 'rows.csv', contentType: 'text/csv' },
      rows,
    );
    out(`  upserted in ${fixed(seconds, 1)} s (not part of any figure)`);
    closeConnections();
    return { rows, projectId: collection.projectId, collectionId: collection.collectionId };
  } finally {
    await server.stop();
    await rm(csvPath, { force: true });
  }
}

/** The table of an earlier run kept in `dir`, or a new one built there. */
async function fixtureIn(dir: string, rows: number, out: (line?: string) => void): Promise<Fixture> {
  const { fixture, reused } = await keptFixture<Fixture>(
    dir,
    FIXTURE_FILE,
    (kept) => kept.rows === rows,
    (empty) => buildTable(empty, rows, out),
  );
  if (reused) out(`reusing the table of ${grouped(rows)} rows kept in ${dir}`);
  return fixture;
}

/**
 * DuckDB alone in a child process over the Parquet files under `tableDir` (`preview-baseline.ts`):
 * `run()` times the preview's two statements once more, in that process.
 */
export async function startBaseline(tableDir: string, scratchDir: string) {
  const worker = await startWorker<PreviewBaselineMessage>(BASELINE_SCRIPT, [tableDir, scratchDir]);
  return {
    async run(): Promise<{ ms: number; rows: number; files: number }> {
      const message = await worker.ask({ type: 'run' });
      if (message.type !== 'ran') throw new Error(`baseline: unexpected ${message.type}`);
      return message;
    },
    stop: () => worker.stop(),
  };
}

type Out = (line?: string) => void;
type Baseline = Awaited<ReturnType<typeof startBaseline>>;

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const rows = wholeFromEnv('BENCH_PREVIEW_ROWS', DEFAULT_ROWS, 1000);
  const runs = wholeFromEnv('BENCH_PREVIEW_RUNS', DEFAULT_RUNS, 1);
  const keptDir = process.env.BENCH_PREVIEW_DATA;
  const profileDir = process.env.BENCH_PREVIEW_CPU_PROF;
  const out: Out = (line = '') => process.stdout.write(`${line}\n`);
  out(`preview benchmark, ${new Date().toISOString()}`);
  out(`rows: ${grouped(rows)}; ${runs} measured rounds after ${WARMUPS} warm-ups, request and DuckDB alternating`);
  await printMachine(out);
  out();

  const workDir = await mkdtemp(join(tmpdir(), 'service-bench-preview-'));
  try {
    const dataDir = keptDir === undefined ? join(workDir, 'table') : resolve(keptDir);
    const fixture = await fixtureIn(dataDir, rows, out);
    const serviceDir = join(dataDir, 'service');
    const execArgv =
      profileDir === undefined
        ? []
        : ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`, '--cpu-prof-interval=100'];
    const server = await startTarget(SERVER_SCRIPT, ['service', serviceDir, String(1024 ** 3)], execArgv);
    const baseline = await startBaseline(serviceDir, join(workDir, 'baseline'));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const span = new CpuSpan();
    const endedBefore = endedChildrenCpuSeconds() ?? 0;
    let measured: { request: number[]; duckdb: number[]; files: number };
    try {
      const token = await signIn(`${server.url}${API_PREFIX}`);
      const url = `${server.url}${API_PREFIX}/datacollections/${fixture.collectionId}/preview?limit=25&skip=0`;
      const preview = () => previewOnce(url, agent, token, fixture.rows);
      measured = await measureRounds(preview, baseline, fixture.rows, runs);
    } finally {
      agent.destroy();
      await baseline.stop();
      await server.stop();
    }
    span.end();
    const childCpu = (endedChildrenCpuSeconds() ?? 0) - endedBefore;
    report(out, measured);
    span.print(out, childCpu, cpus().length);
    const { request, duckdb } = measured;
    const ratio = median(request) / median(duckdb);
    printVerdicts(out, [
      [
        ratio <= TARGET_RATIO,
        `preview request <= ${TARGET_RATIO}x DuckDB's own time: ${fixed(median(request), 1)} ms against ` +
          `${fixed(median(duckdb), 1)} ms (${fixed(ratio, 2)}x)`,
      ],
    ]);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

async function signIn(api: string): Promise<string> {
  const session = await requestJson('POST', `${api}/auth/login`, {
    body: { email: BENCH_ADMIN_EMAIL, password: BENCH_ADMIN_PASSWORD },
  });
  const token = field<string>(session, 'access_token', 'POST /auth/login');
  closeConnections();
  return token;
}

/** One preview request on the kept-alive connection; answers its milliseconds, checked for 25 rows of `total`. */
function previewOnce(url: string, agent: Agent, token: string, total: number): Promise<number> {
  return new Promise<number>((done, fail) => {
    const started = performance.now();
    const outgoing = httpRequest(
      url,
      { agent, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const ms = performance.now() - started;
          const body = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== 200) {
            fail(new Error(`preview: HTTP ${response.statusCode}: ${body.slice(0, 300)}`));
            return;
          }
          const answer = JSON.parse(body) as { total?: number; rows?: unknown[] };
          if (answer.total !== total || answer.rows?.length !== 25) {
            fail(new Error(`preview: total ${answer.total}, ${answer.rows?.length} rows`));
            return;
          }
          done(ms);
        });
        response.on('error', fail);
      },
    );
    outgoing.once('error', fail);
    outgoing.end();
  });
}

/** The request and DuckDB alone taking turns, warm-ups left out. */
async function measureRounds(preview: () => Promise<number>, baseline: Baseline, rows: number, runs: number) {
  const request: number[] = [];
  const duckdb: number[] = [];
  let files = 0;
  const baselineRun = async () => {
    const ran = await baseline.run();
    if (ran.rows !== rows) throw new Error(`baseline: ${ran.rows} rows, not ${rows}`);
    files = ran.files;
    return ran.ms;
  };
  for (let round = 0; round < WARMUPS + runs; round++) {
    // Alternate which goes first, so neither always follows the other's work.
    let requestMs: number;
    let duckdbMs: number;
    if (round % 2 === 0) {
      requestMs = await preview();
      duckdbMs = await baselineRun();
    } else {
      duckdbMs = await baselineRun();
      requestMs = await preview();
    }
    if (round < WARMUPS) continue;
    request.push(requestMs);
    duckdb.push(duckdbMs);
  }
  return { request, duckdb, files };
}

function report(out: Out, { request, duckdb, files }: { request: number[]; duckdb: number[]; files: number }): void {
  const row = (name: string, values: number[], against: number[] | null) => [
    name,
    fixed(median(values), 1),
    fixed(Math.min(...values), 1),
    fixed(percentile(values, 0.9), 1),
    against === null ? '' : `${fixed(median(values) / median(against), 2)}x`,
  ];
  out();
  out(
    formatTable(
      ['ms', 'median', 'min', 'p90', 'x baseline'],
      [
        row(`baseline: DuckDB alone, the preview's 2 statements (${files} file(s))`, duckdb, null),
        row('preview request over HTTP (limit=25, bearer token, warm)', request, duckdb),
      ],
    ),
  );
  out();
}
