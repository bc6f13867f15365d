/**
 * `dashboard`: the analytic dashboard of Depictio's performance report on a table of 12 M rows
 * (`BENCH_DASHBOARD_ROWS` for fewer): 4 figures, 3 cards, 3 interactive components and 1 table
 * (dashboard-data.ts), and a dashboard of 6 tabs of 15 components each on the same table
 * (dashboard-tabs-data.ts), against the real server in a child process, measured in one run:
 *
 * 1. the first whole `POST /dashboards/{id}/data` after the server started (cold), then the same
 *    request again (warm: the server's answer cache);
 * 2. `BENCH_DASHBOARD_CHANGES` (300) random filter changes, each one request streamed as the web
 *    app asks (NDJSON): to the first component, to the last, failures. Baseline, taking turns with
 *    it: DuckDB alone, in another process, running back to back the very statements the server's
 *    DuckDB ran for that request (noted in the server's process, dashboard-target.ts);
 * 3. the tabbed dashboard (issue 29, dashboard-tabs.ts): its first `POST /data {tab_id}` (cold),
 *    then `BENCH_DASHBOARD_TAB_REQUESTS` (60) requests of one tab, the tabs in turn, each with the
 *    walk's next filters, set beside 2's requests; and the whole 90 components once in one request;
 * 4. in Chromium, `BENCH_DASHBOARD_BROWSER_CHANGES` (50) filter changes, each from the change to
 *    every component redrawn (dashboard-browser.ts; needs `npm run build`; 0 skips 4 and 5);
 * 5. in Chromium, the tabbed dashboard opened on its first tab (first paint), then
 *    `BENCH_DASHBOARD_TAB_SWITCHES` (30) clicks on another tab, each to every component of that tab
 *    drawn (dashboard-tabs-browser.ts);
 * 6. the server's peak resident memory (VmHWM) over all of it.
 *
 * The table is written as Parquet by DuckDB, uploaded into a Parquet collection and upserted, as
 * a user would (not timed). `BENCH_DASHBOARD_DATA=<dir>` keeps it there for later runs.
 */
import { readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DashboardFilter } from '@service/common';
import { childReport } from '../lib/child-target.js';
import { type ChildWorker, startWorker } from '../lib/child-worker.js';
import { wholeFromEnv } from '../lib/env.js';
import { endedChildrenCpuSeconds } from '../lib/machine.js';
import { CpuSpan, printMachine } from '../lib/report.js';
import { UsageError } from '../lib/usage-error.js';
import { BENCH_ADMIN_EMAIL, BENCH_ADMIN_PASSWORD } from './api-fixture.js';
import { createBenchCollection, field, keptFixture, uploadAndUpsert } from './collection-fixture.js';
import { buildsCopy, copyAttaches } from './copy-statements.js';
import { CHROMIUM, launchChromium, measureDashboardInBrowser } from './dashboard-browser.js';
import { benchDashboard, filterWalk } from './dashboard-data.js';
import { type Fixture, report, type ServerFigures, verdicts } from './dashboard-report.js';
import { dataClient } from './dashboard-requests.js';
import { createTabbedDashboard, measureTabRequests } from './dashboard-tabs.js';
import { measureTabsInBrowser, tabOrder } from './dashboard-tabs-browser.js';
import { reportTabs, tabVerdicts } from './dashboard-tabs-report.js';
import type { DashboardTargetMessage, RecordedStatement } from './dashboard-target.js';
import { closeConnections, requestJson } from './ingest-http.js';
import { peakResidentBytes } from './ingest-memory.js';

const API_PREFIX = '/service/api/v1';
const TARGET_SCRIPT = fileURLToPath(new URL('./dashboard-target.js', import.meta.url));
const WEB_DIST = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../web/dist');
const FIXTURE_FILE = 'bench-dashboard.json';
const DEFAULT_ROWS = 12_000_000;
const DEFAULT_CHANGES = 300;
const DEFAULT_BROWSER_CHANGES = 50;
const DEFAULT_TAB_REQUESTS = 60;
const DEFAULT_TAB_SWITCHES = 30;
const WARM_REQUESTS = 5;
const PROGRESS_EVERY = 25;
const BROWSER_WARMUPS = 3;
const UPLOAD_MAX = 4 * 1024 ** 3;
const MIB = 1024 ** 2;
const SEED = 0x0da5b0a2;

type Out = (line?: string) => void;
const fixed = (value: number, digits: number) => value.toFixed(digits);
const grouped = (value: number) => value.toLocaleString('en-US').replaceAll(',', ' ');

/** Generates the Parquet file, uploads it into a new Parquet collection and upserts it; not timed (the `export` benchmark's table too). */
export async function buildTable(dir: string, rows: number, out: Out): Promise<Fixture> {
  const parquet = join(dir, 'rows.parquet');
  out(`generating ${grouped(rows)} rows with DuckDB ...`);
  const generated = await childReport<Extract<DashboardTargetMessage, { type: 'generated' }>>(
    TARGET_SCRIPT,
    ['generate', join(dir, 'generate'), parquet, String(rows)],
    'generated',
  );
  out(`  ${fixed(generated.bytes / MIB, 0)} MiB of Parquet in ${fixed(generated.seconds, 1)} s`);
  const server = await startWorker<DashboardTargetMessage>(TARGET_SCRIPT, [
    'service',
    join(dir, 'service'),
    String(Math.max(UPLOAD_MAX, generated.bytes + MIB)),
  ]);
  try {
    const api = `${server.url}${API_PREFIX}`;
    const collection = await createBenchCollection(api, {
      project: 'dashboard benchmark',
      workflow: 'generated',
      tag: 'samples',
      pattern: 'rows\\.parquet',
      format: 'parquet',
    });
    const seconds = await uploadAndUpsert(
      api,
      collection,
      { localPath: parquet, size: generated.bytes, path: 'rows.parquet', contentType: 'application/octet-stream' },
      rows,
    );
    out(`  uploaded and upserted in ${fixed(seconds, 1)} s (not part of any figure)`);
    closeConnections();
    return {
      rows,
      projectId: collection.projectId,
      collectionId: collection.collectionId,
      parquetBytes: generated.bytes,
    };
  } finally {
    await server.stop();
    await rm(parquet, { force: true });
  }
}

/** Whether the web app is built (the browser part needs it). */
async function webBuilt(): Promise<boolean> {
  try {
    await readFile(join(WEB_DIST, 'index.html'));
    return true;
  } catch {
    return false;
  }
}

/** `count` filter lists of the random walk, no two in a row the same. */
function filterChanges(count: number, seed: number): DashboardFilter[][] {
  const walk = filterWalk(seed);
  const changes: DashboardFilter[][] = [];
  let previous = '[]';
  while (changes.length < count) {
    const filters = walk();
    const text = JSON.stringify(filters);
    if (text === previous) continue;
    previous = text;
    changes.push(filters);
  }
  return changes;
}

/** A statement's kind: its first words, spaces collapsed and file lists cut (the filters come later). */
function statementKind(sql: string): string {
  return sql
    .replace(/\s+/g, ' ')
    .replace(/read_parquet\(\[[^\]]*\]/g, 'read_parquet([…]')
    .trim()
    .slice(0, 110);
}

async function measureServer(
  server: ChildWorker<DashboardTargetMessage>,
  baseline: ChildWorker<DashboardTargetMessage>,
  client: ReturnType<typeof dataClient>,
  changes: DashboardFilter[][],
  out: Out,
): Promise<ServerFigures> {
  const take = async (): Promise<RecordedStatement[]> => {
    const answer = await server.ask({ type: 'take' });
    if (answer.type !== 'statements') throw new Error(`server: unexpected ${answer.type}`);
    return answer.statements;
  };
  const replay = async (statements: RecordedStatement[], counted = true): Promise<number> => {
    if (statements.length === 0) return 0;
    const answer = await baseline.ask({ type: 'replay', statements });
    if (answer.type !== 'replayed') throw new Error(`baseline: unexpected ${answer.type}`);
    if (!counted) return answer.ms;
    statements.forEach((statement, index) => {
      const kind = statementKind(statement.sql);
      figures.byStatement.set(kind, (figures.byStatement.get(kind) ?? 0) + (answer.each[index] ?? 0));
    });
    return answer.ms;
  };
  const cold = await client.json([]);
  if (cold.failure !== null) throw new Error(`the first POST /data failed: ${cold.failure}`);
  const warmMs: number[] = [];
  for (let run = 0; run < WARM_REQUESTS; run++) {
    const warm = await client.json([]);
    if (warm.failure !== null) throw new Error(`a warm POST /data failed: ${warm.failure}`);
    warmMs.push(warm.ms);
  }
  const figures: ServerFigures = {
    coldMs: cold.ms,
    warmMs,
    firstMs: [],
    allMs: [],
    baselineMs: [],
    statements: [],
    byStatement: new Map(),
    failures: [],
    copies: { count: 0, ms: 0 },
  };
  const settling = performance.now();
  const settled = await server.ask({ type: 'settle' });
  if (settled.type !== 'settled') throw new Error(`server: unexpected ${settled.type}`);
  figures.copies = { count: settled.copies, ms: performance.now() - settling };
  // DuckDB alone reads the server's native copies too (attached read-only by both processes).
  await replay(copyAttaches(await take()), false);
  out(`${changes.length} filter changes, each then DuckDB alone on its statements ...`);
  for (const [index, filters] of changes.entries()) {
    const timing = await client.ndjson(filters);
    const taken = await take();
    await replay(copyAttaches(taken), false);
    const statements = taken.filter((statement) => !buildsCopy(statement));
    if (timing.failure !== null) {
      figures.failures.push(`change ${index + 1} ${JSON.stringify(filters)}: ${timing.failure}`);
      continue;
    }
    figures.firstMs.push(timing.firstMs);
    figures.allMs.push(timing.ms);
    figures.statements.push(statements.length);
    figures.baselineMs.push(await replay(statements));
    if ((index + 1) % PROGRESS_EVERY === 0) out(`  ${index + 1} done, ${figures.failures.length} failed`);
  }
  return figures;
}

type TabbedDashboard = Awaited<ReturnType<typeof createTabbedDashboard>>;
type Worker = Awaited<ReturnType<typeof startWorker<DashboardTargetMessage>>>;

interface MeasureSetup {
  server: Worker;
  baseline: Worker;
  fixture: Fixture;
  rows: number;
  changeCount: number;
  browserChanges: number;
  tabRequests: number;
  tabSwitches: number;
}

/**
 * The bench dashboard over HTTP against DuckDB alone, the tabbed one over HTTP, then (when asked)
 * both in Chromium; with the server's peak memory.
 */
async function measureAll(out: Out, setup: MeasureSetup) {
  const { server, baseline, fixture, rows, changeCount, browserChanges, tabRequests, tabSwitches } = setup;
  const api = `${server.url}${API_PREFIX}`;
  const { session, token, dashboardId, expected } = await createBenchDashboard(api, fixture, rows);
  const client = dataClient(`${api}/dashboards/${dashboardId}/data`, token, expected);
  let figures: ServerFigures;
  try {
    figures = await measureServer(server, baseline, client, filterChanges(changeCount, SEED), out);
  } finally {
    client.close();
  }
  const tabbed = await createTabbedDashboard(api, token, fixture, `Dashboard benchmark in tabs, ${grouped(rows)} rows`);
  const tabChanges = filterChanges(tabRequests + 1, SEED + 2);
  const tabFigures = await measureTabRequests(
    `${api}/dashboards/${tabbed.dashboardId}/data`,
    token,
    tabbed,
    tabChanges,
    out,
    async () => {
      const settled = await server.ask({ type: 'settle' });
      if (settled.type !== 'settled') throw new Error(`server: unexpected ${settled.type}`);
    },
  );
  const browser =
    browserChanges > 0
      ? await measureInChromium(out, server.url, session, { dashboardId, browserChanges, tabbed, tabSwitches })
      : null;
  return { figures, tabFigures, browser, peakBytes: peakResidentBytes(server.pid) };
}

async function createBenchDashboard(api: string, fixture: Fixture, rows: number) {
  const session = (await requestJson('POST', `${api}/auth/login`, {
    body: { email: BENCH_ADMIN_EMAIL, password: BENCH_ADMIN_PASSWORD },
  })) as Record<string, unknown>;
  const token = field<string>(session, 'access_token', 'POST /auth/login');
  const definition = benchDashboard(fixture.collectionId);
  const dashboard = await requestJson('POST', `${api}/dashboards`, {
    token,
    body: { project_id: fixture.projectId, title: `Dashboard benchmark, ${grouped(rows)} rows`, ...definition },
  });
  const dashboardId = field<string>(dashboard, 'dashboard_id', 'POST /dashboards');
  closeConnections();
  const expected = definition.components.map((component) => component.component_id);
  return { session, token, dashboardId, expected };
}

async function measureInChromium(
  out: Out,
  serverUrl: string,
  session: Record<string, unknown>,
  asked: { dashboardId: string; browserChanges: number; tabbed: TabbedDashboard; tabSwitches: number },
) {
  const { dashboardId, browserChanges, tabbed, tabSwitches } = asked;
  out(`${browserChanges} filter changes in Chromium ...`);
  const browser = await launchChromium();
  try {
    const filters = await measureDashboardInBrowser(
      browser,
      serverUrl,
      session,
      dashboardId,
      filterChanges(BROWSER_WARMUPS + browserChanges, SEED + 1),
      BROWSER_WARMUPS,
    );
    out(`${tabSwitches} tab switches in Chromium ...`);
    const order = tabOrder(tabbed.tabs.length, tabSwitches, SEED + 3);
    const tabs = await measureTabsInBrowser(browser, serverUrl, session, tabbed.dashboardId, tabbed.tabs, order);
    return { filters, tabs };
  } finally {
    await browser.close();
  }
}

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const rows = wholeFromEnv('BENCH_DASHBOARD_ROWS', DEFAULT_ROWS, 1000);
  const changeCount = wholeFromEnv('BENCH_DASHBOARD_CHANGES', DEFAULT_CHANGES, 1);
  const browserChanges = wholeFromEnv('BENCH_DASHBOARD_BROWSER_CHANGES', DEFAULT_BROWSER_CHANGES, 0);
  const tabRequests = wholeFromEnv('BENCH_DASHBOARD_TAB_REQUESTS', DEFAULT_TAB_REQUESTS, 1);
  const tabSwitches = wholeFromEnv('BENCH_DASHBOARD_TAB_SWITCHES', DEFAULT_TAB_SWITCHES, 1);
  const keptDir = process.env.BENCH_DASHBOARD_DATA;
  const withBrowser = browserChanges > 0;
  if (withBrowser && !(await webBuilt())) {
    throw new UsageError(
      `${WEB_DIST}/index.html is missing: run \`npm run build\` first (or BENCH_DASHBOARD_BROWSER_CHANGES=0)`,
    );
  }
  const out: Out = (line = '') => process.stdout.write(`${line}\n`);
  out(`dashboard benchmark, ${new Date().toISOString()}`);
  out(
    `rows: ${grouped(rows)}${rows === DEFAULT_ROWS ? '' : ' (BENCH_DASHBOARD_ROWS)'}; ${changeCount} filter changes ` +
      `over HTTP; ${withBrowser ? `${browserChanges} in ${CHROMIUM} (headless)` : 'no browser part'}; ` +
      `6 tabs x 15 components: ${tabRequests} tab requests${withBrowser ? `, ${tabSwitches} tab switches` : ''}`,
  );
  await printMachine(out);
  out();

  const workDir = join(tmpdir(), `service-bench-dashboard-${process.pid}`);
  try {
    const dataDir = keptDir === undefined ? join(workDir, 'table') : resolve(keptDir);
    const { fixture, reused } = await keptFixture<Fixture>(
      dataDir,
      FIXTURE_FILE,
      (kept) => kept.rows === rows,
      (empty) => buildTable(empty, rows, out),
    );
    if (reused) out(`reusing the table of ${grouped(rows)} rows kept in ${dataDir}`);
    const serverArgs = ['service', join(dataDir, 'service'), String(UPLOAD_MAX)];
    const server = await startWorker<DashboardTargetMessage>(
      TARGET_SCRIPT,
      withBrowser ? [...serverArgs, WEB_DIST] : serverArgs,
    );
    const baseline = await startWorker<DashboardTargetMessage>(TARGET_SCRIPT, ['baseline', join(workDir, 'baseline')]);
    const span = new CpuSpan();
    const endedBefore = endedChildrenCpuSeconds() ?? 0;
    let measured: Awaited<ReturnType<typeof measureAll>>;
    try {
      measured = await measureAll(out, {
        server,
        baseline,
        fixture,
        rows,
        changeCount,
        browserChanges,
        tabRequests,
        tabSwitches,
      });
    } finally {
      await baseline.stop();
      await server.stop();
    }
    const { figures, tabFigures, browser, peakBytes } = measured;
    const filtered = browser?.filters ?? { changeMs: [], settledMs: [], firstPaintMs: Number.NaN };
    const { changeMs: browserMs, settledMs: browserSettledMs, firstPaintMs: browserFirstMs } = filtered;
    span.end();
    report(out, { rows, fixture, figures, browserMs, browserSettledMs, browserFirstMs, peakBytes, withBrowser });
    reportTabs(out, tabFigures, figures.allMs, browser?.tabs ?? null);
    span.print(out, (endedChildrenCpuSeconds() ?? 0) - endedBefore, cpus().length);
    verdicts(out, figures, browserMs, peakBytes, withBrowser, tabVerdicts(tabFigures, browser?.tabs ?? null));
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
