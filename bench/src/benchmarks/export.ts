/**
 * `export`: one component of a dashboard served to another website (docs/architecture.md "Export"),
 * over a table of 10 M rows (`BENCH_EXPORT_ROWS` for another count; the `dashboard` benchmark's
 * table, dashboard-data.ts), against the real server in a child process, in one run:
 *
 * 1. the self-contained page (`format=html`) of a histogram of `expression` (30 bins): its size,
 *    plain and gzipped; the server's time for it cold (the first request of a freshly started
 *    server, `COLD_STARTS` times) and warm (`WARM_REQUESTS` more), as a loopback round trip;
 * 2. in Chromium, `BROWSER_LOADS` navigations to the page with an embed token: the time from the
 *    navigation's start to the chart drawn (the page's own mark, `data-drawn-ms`);
 * 3. the spec (`format=spec`) against its baseline, the data route (`POST /dashboards/{id}/data`
 *    for the same component), taking turns, warm, `RATIO_REQUESTS` each: p50 and the ratio.
 *
 * Targets (issue 16): page < 400 kB gzipped, chart drawn < 500 ms, spec ≤ 1.2× the data route.
 * `BENCH_EXPORT_DATA=<dir>` keeps the table for later runs.
 */
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type ChildWorker, startWorker } from '../lib/child-worker.js';
import { wholeFromEnv } from '../lib/env.js';
import { printMachine, printVerdicts } from '../lib/report.js';
import { median } from '../lib/stats.js';
import { UsageError } from '../lib/usage-error.js';
import { BENCH_ADMIN_EMAIL, BENCH_ADMIN_PASSWORD } from './api-fixture.js';
import { keptFixture } from './collection-fixture.js';
import { buildTable } from './dashboard.js';
import { CHROMIUM, launchChromium } from './dashboard-browser.js';
import type { Fixture } from './dashboard-report.js';
import type { DashboardTargetMessage } from './dashboard-target.js';

const API_PREFIX = '/service/api/v1';
const TARGET_SCRIPT = fileURLToPath(new URL('./dashboard-target.js', import.meta.url));
const FIXTURE_FILE = 'bench-export.json';
const DEFAULT_ROWS = 10_000_000;
const COLD_STARTS = 3;
const WARM_REQUESTS = 20;
const BROWSER_LOADS = 10;
const RATIO_REQUESTS = 30;
const UPLOAD_MAX = 4 * 1024 ** 3;
const COMPONENT = 'expression-histogram';

type Out = (line?: string) => void;
const grouped = (value: number) => value.toLocaleString('en-US').replaceAll(',', ' ');
const ms = (value: number) => `${value.toFixed(1)} ms`;

interface Server {
  worker: ChildWorker<DashboardTargetMessage>;
  api: string;
  token: string;
}

async function startServer(dataDir: string): Promise<Server> {
  const worker = await startWorker<DashboardTargetMessage>(TARGET_SCRIPT, [
    'service',
    join(dataDir, 'service'),
    String(UPLOAD_MAX),
  ]);
  const api = `${worker.url}${API_PREFIX}`;
  const session = (await send(api, 'POST', '/auth/login', undefined, {
    email: BENCH_ADMIN_EMAIL,
    password: BENCH_ADMIN_PASSWORD,
  })) as { access_token: string };
  return { worker, api, token: session.access_token };
}

/** One request; the parsed JSON answer (or the text of any other), throwing unless 2xx. */
async function send(api: string, method: string, path: string, token?: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
}

/** The request's round-trip time on loopback, answer read. */
async function timed(work: () => Promise<unknown>): Promise<{ ms: number; answer: unknown }> {
  const started = performance.now();
  const answer = await work();
  return { ms: performance.now() - started, answer };
}

interface Setup {
  dashboardId: string;
  embedToken: string;
}

/** The dashboard (one histogram) and an embed token for it, made once per kept table. */
async function setUp(server: Server, fixture: Fixture): Promise<Setup> {
  const dashboard = (await send(server.api, 'POST', '/dashboards', server.token, {
    project_id: fixture.projectId,
    title: 'Export benchmark',
    components: [
      {
        component_id: COMPONENT,
        type: 'figure',
        title: 'Expression',
        data_collection_id: fixture.collectionId,
        chart: 'histogram',
        x: 'expression',
        bins: 30,
      },
    ],
  })) as { dashboard_id: string };
  const token = (await send(server.api, 'POST', `/dashboards/${dashboard.dashboard_id}/embed_tokens`, server.token, {
    component_id: COMPONENT,
    expires_in_hours: 8760,
  })) as { token: string };
  return { dashboardId: dashboard.dashboard_id, embedToken: token.token };
}

async function drawnInBrowser(url: string, loads: number): Promise<number[]> {
  const browser = await launchChromium();
  try {
    const drawn: number[] = [];
    for (let load = 0; load < loads; load++) {
      const context = await browser.newContext({ viewport: { width: 800, height: 450 } });
      const page = await context.newPage();
      await page.goto(url);
      await page.locator('html[data-drawn="true"]').waitFor({ timeout: 60_000 });
      drawn.push(Number(await page.locator('html').getAttribute('data-drawn-ms')));
      await context.close();
    }
    return drawn;
  } finally {
    await browser.close();
  }
}

/** The first page of freshly started servers; answers their times and the last server, still running. */
async function measureColdStarts(out: Out, dataDir: string, htmlPath: string) {
  out(`cold: the first page of ${COLD_STARTS} freshly started servers ...`);
  const coldMs: number[] = [];
  let server: Server | null = null;
  for (let start = 0; start < COLD_STARTS; start++) {
    await server?.worker.stop();
    server = await startServer(dataDir);
    const current = server;
    coldMs.push((await timed(() => send(current.api, 'GET', htmlPath, current.token))).ms);
  }
  if (server === null) throw new Error('no server started');
  return { coldMs, server };
}

/** Warm pages, then the spec, the data route (its baseline) and the spec with an embed token taking turns. */
async function measureWarm(out: Out, live: Server, setup: Setup, paths: { html: string; spec: string }) {
  out(`warm: ${WARM_REQUESTS} pages, then spec and data route taking turns (${RATIO_REQUESTS} each) ...`);
  const warmMs: number[] = [];
  let html = '';
  for (let request = 0; request < WARM_REQUESTS; request++) {
    const { ms: took, answer } = await timed(() => send(live.api, 'GET', paths.html, live.token));
    warmMs.push(took);
    html = answer as string;
  }
  const specMs: number[] = [];
  const dataMs: number[] = [];
  const tokenMs: number[] = [];
  const dataBody = { components: [COMPONENT] };
  for (let request = 0; request < RATIO_REQUESTS; request++) {
    specMs.push((await timed(() => send(live.api, 'GET', paths.spec, live.token))).ms);
    dataMs.push(
      (await timed(() => send(live.api, 'POST', `/dashboards/${setup.dashboardId}/data`, live.token, dataBody))).ms,
    );
    tokenMs.push((await timed(() => send(live.api, 'GET', `${paths.spec}&token=${setup.embedToken}`))).ms);
  }
  return { html, warmMs, specMs, dataMs, tokenMs };
}

interface Figures {
  html: string;
  coldMs: number[];
  warmMs: number[];
  specMs: number[];
  dataMs: number[];
  tokenMs: number[];
  drawnMs: number[];
}

function report(out: Out, { html, coldMs, warmMs, specMs, dataMs, tokenMs, drawnMs }: Figures): void {
  const bytes = Buffer.byteLength(html);
  const gzipped = gzipSync(html).length;
  const ratio = median(specMs) / median(dataMs);
  out();
  out(`page: ${grouped(bytes)} bytes, ${grouped(gzipped)} gzipped (the server sends it plain; a proxy compresses)`);
  out(`server, page: cold p50 ${ms(median(coldMs))} (${coldMs.map(ms).join(', ')}), warm p50 ${ms(median(warmMs))}`);
  out(
    `Chromium, navigation to chart drawn: p50 ${ms(median(drawnMs))}, first ${ms(drawnMs[0] ?? Number.NaN)}, slowest ${ms(Math.max(...drawnMs))}`,
  );
  out(`spec p50 ${ms(median(specMs))}; baseline, data route p50 ${ms(median(dataMs))}; ratio ${ratio.toFixed(2)}x`);
  out(`spec with an embed token (its use recorded) p50 ${ms(median(tokenMs))}`);
  out();
  printVerdicts(out, [
    [gzipped < 400_000, `page gzipped ${grouped(gzipped)} bytes < 400 000`],
    [median(drawnMs) < 500, `chart drawn p50 ${ms(median(drawnMs))} < 500 ms after navigation`],
    [ratio <= 1.2, `spec / data route ${ratio.toFixed(2)}x <= 1.2`],
  ]);
}

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const rows = wholeFromEnv('BENCH_EXPORT_ROWS', DEFAULT_ROWS, 1000);
  const keptDir = process.env.BENCH_EXPORT_DATA;
  const out: Out = (line = '') => process.stdout.write(`${line}\n`);
  out(`export benchmark, ${new Date().toISOString()}`);
  out(`rows: ${grouped(rows)}${rows === DEFAULT_ROWS ? '' : ' (BENCH_EXPORT_ROWS)'}; a histogram of 30 bins`);
  await printMachine(out);
  out();
  const workDir = join(tmpdir(), `service-bench-export-${process.pid}`);
  try {
    const dataDir = keptDir === undefined ? join(workDir, 'table') : resolve(keptDir);
    const { fixture, reused } = await keptFixture<Fixture>(
      dataDir,
      FIXTURE_FILE,
      (kept) => kept.rows === rows,
      (empty) => buildTable(empty, rows, out),
    );
    if (reused) out(`reusing the table of ${grouped(rows)} rows kept in ${dataDir}`);
    const setupServer = await startServer(dataDir);
    let setup: Setup;
    try {
      setup = await setUp(setupServer, fixture);
    } finally {
      await setupServer.worker.stop();
    }
    const paths = {
      html: `/export/components/${setup.dashboardId}/${COMPONENT}?format=html`,
      spec: `/export/components/${setup.dashboardId}/${COMPONENT}?format=spec`,
    };
    const { coldMs, server: live } = await measureColdStarts(out, dataDir, paths.html);
    try {
      const warm = await measureWarm(out, live, setup, paths);
      out(`${BROWSER_LOADS} navigations in ${CHROMIUM} (headless) ...`);
      const drawnMs = await drawnInBrowser(`${live.api}${paths.html}&token=${setup.embedToken}`, BROWSER_LOADS);
      report(out, { coldMs, drawnMs, ...warm });
    } finally {
      await live.worker.stop();
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
