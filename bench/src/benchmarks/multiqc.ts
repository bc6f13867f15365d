/**
 * `multiqc`: a MultiQC report of 2,000 samples (`BENCH_MULTIQC_SAMPLES` for another count; made
 * from the real nf-core/ampliseq report by multiqc-report.ts) against the real server in a child
 * process (embedded SQLite, local storage), in one run:
 *
 * 1. ingestion: the report uploaded, then the upsert that reads its general statistics (time) and
 *    the server's peak resident memory (VmHWM) from the upsert to the end;
 * 2. `POST /dashboards/{id}/data` for a dashboard of all 14 plots and the general statistics, streamed
 *    as the web app asks for it: the first (cold: reports read and parsed) and `WARM_REQUESTS` more
 *    (warm), p50 and p95; and once as one JSON answer;
 * 3. `FILTER_CHANGES` random sample filters (1–20 samples through a multiselect on `sample`), p50/p95;
 * 4. the baseline: DuckDB alone reading the same plot data from the same parquet, `WARM_REQUESTS`
 *    times; the ratio of the warm p95 to it.
 *
 * 5. the browser (Chromium, the built web app): `BROWSER_CHANGES` sample filters after
 *    `BROWSER_WARMUPS`, each timed from the change to every plot redrawn (dashboard-browser.ts).
 *
 * Targets (issue 27): warm p95 < 250 ms and ≤ 2× DuckDB; browser redraw p95 < 800 ms; ingestion
 * < 5 s; RSS < 1 GiB. `BENCH_MULTIQC_BROWSER_CHANGES=0` leaves the browser out.
 */
import { access, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DashboardFilter } from '@service/common';
import { startWorker } from '../lib/child-worker.js';
import { wholeFromEnv } from '../lib/env.js';
import { printMachine, printVerdicts } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';
import { UsageError } from '../lib/usage-error.js';
import { BENCH_ADMIN_EMAIL, BENCH_ADMIN_PASSWORD } from './api-fixture.js';
import { launchChromium, measureDashboardInBrowser } from './dashboard-browser.js';
import { dataClient } from './dashboard-requests.js';
import type { DashboardTargetMessage } from './dashboard-target.js';
import { requestJson, uploadFile } from './ingest-http.js';
import { peakResidentBytes, resetPeak } from './ingest-memory.js';
import { writeLargeReport } from './multiqc-report.js';

const API_PREFIX = '/service/api/v1';
const TARGET_SCRIPT = fileURLToPath(new URL('./dashboard-target.js', import.meta.url));
const WARM_REQUESTS = 20;
const FILTER_CHANGES = 100;
const REPORT_PATH = 'multiqc/multiqc_data/multiqc.parquet';
const BROWSER_WARMUPS = 3;
const WEB_DIST = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../web/dist');

type Out = (line?: string) => void;
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; answer: T }> {
  const started = performance.now();
  const answer = await work();
  return { ms: performance.now() - started, answer };
}

/** DuckDB alone reading every plot input of the report (what the server reads it for), `times` times. */
async function baseline(parquet: string, times: number): Promise<number[]> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const connection = await instance.connect();
  try {
    const sql = `SELECT anchor, plot_type, plot_input_data FROM read_parquet('${parquet}') WHERE type = 'plot_input'`;
    const each: number[] = [];
    for (let i = 0; i < times; i++) each.push((await timed(() => connection.runAndReadAll(sql))).ms);
    return each;
  } finally {
    connection.closeSync();
  }
}

async function project(api: string, token: string): Promise<{ projectId: string; collectionId: string }> {
  const yaml = `name: multiqc bench\nworkflows:\n  - name: qc\n    data_collections:\n      - { tag: multiqc, type: multiqc, pattern: "multiqc/multiqc_data/multiqc\\\\.parquet", format: parquet }\n`;
  const imported = (await requestJson('POST', `${api}/projects/import`, { token, body: { yaml } })) as {
    project_id: string;
  };
  const workflows = (await requestJson('GET', `${api}/projects/${imported.project_id}/workflows`, { token })) as {
    items: { workflow_id: string }[];
  };
  const collections = (await requestJson('GET', `${api}/workflows/${workflows.items[0]?.workflow_id}/datacollections`, {
    token,
  })) as { items: { data_collection_id: string }[] };
  return { projectId: imported.project_id, collectionId: collections.items[0]?.data_collection_id ?? '' };
}

/** What the run measured, for the report and the verdicts. */
interface Figures {
  plots: number;
  ingestionMs: number;
  coldMs: number;
  jsonMs: number;
  warm: number[];
  changes: number[];
  redraws: number[];
  baseline: number[];
  peak: number | null;
}

export async function run(_args: string[]): Promise<void> {
  const out: Out = (line = '') => process.stdout.write(`${line}\n`);
  const samples = wholeFromEnv('BENCH_MULTIQC_SAMPLES', 2000, 24);
  const browserChanges = wholeFromEnv('BENCH_MULTIQC_BROWSER_CHANGES', 20, 0);
  if (browserChanges > 0) await expectWebBuilt();
  const dir = await mkdtemp(join(tmpdir(), 'bench-multiqc-'));
  const serverArgs = ['service', join(dir, 'service'), String(4 * 1024 ** 3)];
  const worker = await startWorker<DashboardTargetMessage>(
    TARGET_SCRIPT,
    browserChanges > 0 ? [...serverArgs, WEB_DIST] : serverArgs,
  );
  try {
    await printMachine(out);
    const parquet = join(dir, 'multiqc.parquet');
    const report = await writeLargeReport(parquet, samples);
    const bytes = (await stat(parquet)).size;
    out(
      `report: ${report.samples} read samples, ${(bytes / 1024 ** 2).toFixed(1)} MiB, made in ${report.seconds.toFixed(1)} s`,
    );
    const setUp = await ingestReport(worker, parquet, bytes);
    const figures = await measure(worker, setUp, browserChanges);
    figures.baseline = await baseline(parquet, WARM_REQUESTS);
    printFigures(out, figures);
  } finally {
    await worker.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function expectWebBuilt(): Promise<void> {
  await access(join(WEB_DIST, 'index.html')).catch(() => {
    throw new UsageError(
      `${WEB_DIST}/index.html is missing: run \`npm run build\` first (or BENCH_MULTIQC_BROWSER_CHANGES=0)`,
    );
  });
}

interface SetUp {
  api: string;
  session: { access_token: string } & Record<string, unknown>;
  projectId: string;
  collectionId: string;
  ingestionMs: number;
  summary: { samples: string[]; plots: { anchor: string }[] };
}

/** Signs in, makes the project, uploads the report and times its ingestion (the peak RSS from there). */
async function ingestReport(worker: { url: string; pid: number }, parquet: string, bytes: number): Promise<SetUp> {
  const api = `${worker.url}${API_PREFIX}`;
  const session = (await requestJson('POST', `${api}/auth/login`, {
    body: { email: BENCH_ADMIN_EMAIL, password: BENCH_ADMIN_PASSWORD },
  })) as SetUp['session'];
  const token = session.access_token;
  const { projectId, collectionId } = await project(api, token);
  await uploadFile(`${api}/datacollections/${collectionId}/files`, token, {
    localPath: parquet,
    size: bytes,
    run: 'run1',
    path: REPORT_PATH,
    contentType: 'application/octet-stream',
  });
  resetPeak(worker.pid);
  const ingestion = await timed(() =>
    requestJson('POST', `${api}/deltatables/upsert`, { token, body: { data_collection_id: collectionId } }),
  );
  const summary = (await requestJson('GET', `${api}/datacollections/${collectionId}/multiqc`, {
    token,
  })) as SetUp['summary'];
  return { api, session, projectId, collectionId, ingestionMs: ingestion.ms, summary };
}

/** A dashboard of every plot of the report and a multiselect on its samples. */
async function benchDashboard({ api, session, projectId, collectionId, summary }: SetUp) {
  const components = [
    { component_id: 'samples', type: 'interactive', widget: 'multiselect', column: 'sample' },
    ...summary.plots.map((plot, index) => ({ component_id: `p${index}`, type: 'multiqc', plot: plot.anchor })),
  ].map((component) => ({ ...component, data_collection_id: collectionId }));
  const dashboard = (await requestJson('POST', `${api}/dashboards`, {
    token: session.access_token,
    body: { project_id: projectId, title: 'MultiQC bench', components },
  })) as { dashboard_id: string };
  return { dashboardId: dashboard.dashboard_id, componentIds: components.map((component) => component.component_id) };
}

/** 1–20 random samples of the report, the same ones in every run. */
function sampleFilters(samples: readonly string[]): () => DashboardFilter[] {
  let seed = 7;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  return () => {
    const chosen = Array.from(
      { length: 1 + Math.floor(next() * 20) },
      () => samples[Math.floor(next() * samples.length)] as string,
    );
    return [{ component_id: 'samples', value: [...new Set(chosen)] }];
  };
}

/** `POST /data` cold, warm and under sample filters, as the web app asks (streamed); then the browser. */
async function measure(worker: { url: string; pid: number }, setUp: SetUp, browserChanges: number): Promise<Figures> {
  const { dashboardId, componentIds } = await benchDashboard(setUp);
  const streaming = dataClient(`${setUp.api}/dashboards/${dashboardId}/data`, setUp.session.access_token, componentIds);
  try {
    const data = async (filters: DashboardFilter[]) => {
      const timing = await streaming.ndjson(filters);
      if (timing.failure !== null) throw new Error(`POST /data: ${timing.failure}`);
      return timing.ms;
    };
    const coldMs = await data([]);
    const jsonMs = (await streaming.json([])).ms;
    const warm: number[] = [];
    for (let i = 0; i < WARM_REQUESTS; i++) warm.push(await data([]));
    const sampleFilter = sampleFilters(setUp.summary.samples);
    const changes: number[] = [];
    for (let i = 0; i < FILTER_CHANGES; i++) changes.push(await data(sampleFilter()));
    const redraws =
      browserChanges > 0 ? await inBrowser(worker.url, setUp.session, dashboardId, browserChanges, sampleFilter) : [];
    const peak = peakResidentBytes(worker.pid);
    const plots = setUp.summary.plots.length;
    return { plots, ingestionMs: setUp.ingestionMs, coldMs, jsonMs, warm, changes, redraws, baseline: [], peak };
  } finally {
    streaming.close();
  }
}

function printFigures(out: Out, figures: Figures): void {
  const { warm, changes, redraws, peak } = figures;
  const warmP95 = percentile(warm, 0.95);
  const ratio = warmP95 / median(figures.baseline);
  const mib = peak === null ? '?' : (peak / 1024 ** 2).toFixed(0);
  out(`ingestion (upsert of the report): ${ms(figures.ingestionMs)}`);
  out(
    `POST /data, ${figures.plots} plots (streamed): cold ${ms(figures.coldMs)}; warm p50 ${ms(median(warm))}, p95 ${ms(warmP95)}; as one JSON answer ${ms(figures.jsonMs)}`,
  );
  out(`${FILTER_CHANGES} sample filters: p50 ${ms(median(changes))}, p95 ${ms(percentile(changes, 0.95))}`);
  out(
    `baseline, DuckDB alone reading the plot data: p50 ${ms(median(figures.baseline))}; warm p95 / baseline = ${ratio.toFixed(2)}x`,
  );
  out(`server peak RSS from the upsert on: ${mib} MiB`);
  if (redraws.length > 0) {
    out(
      `browser, ${redraws.length} sample filters to every plot redrawn: p50 ${ms(median(redraws))}, p95 ${ms(percentile(redraws, 0.95))}`,
    );
  }
  out();
  const verdicts: [boolean, string][] = [
    [warmP95 < 250, `warm POST /data p95 ${ms(warmP95)} < 250 ms`],
    [ratio <= 2, `warm p95 ${ratio.toFixed(2)}x DuckDB alone ≤ 2x`],
    [percentile(changes, 0.95) < 250, `sample filter p95 ${ms(percentile(changes, 0.95))} < 250 ms`],
    [figures.ingestionMs < 5000, `ingestion ${ms(figures.ingestionMs)} < 5 s`],
    [peak !== null && peak < 1024 ** 3, `peak RSS ${mib} MiB < 1 GiB`],
  ];
  if (redraws.length > 0) {
    const p95 = percentile(redraws, 0.95);
    verdicts.push([p95 < 800, `browser redraw p95 ${ms(p95)} < 800 ms`]);
  }
  printVerdicts(out, verdicts);
}

/** The dashboard in Chromium: `changes` sample filters after the warm-ups, each to every plot redrawn (ms). */
async function inBrowser(
  appUrl: string,
  session: Record<string, unknown>,
  dashboardId: string,
  changes: number,
  sampleFilter: () => DashboardFilter[],
): Promise<number[]> {
  const browser = await launchChromium();
  try {
    const filters = Array.from({ length: BROWSER_WARMUPS + changes }, sampleFilter);
    const measured = await measureDashboardInBrowser(browser, appUrl, session, dashboardId, filters, BROWSER_WARMUPS);
    return measured.changeMs;
  } finally {
    await browser.close();
  }
}
