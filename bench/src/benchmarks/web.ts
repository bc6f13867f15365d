/**
 * `web`: the web app in headless Chromium (playwright-core, `/usr/bin/chromium` or
 * `BENCH_CHROMIUM`) against the real server on loopback, over a generated table of 10 million rows
 * (`BENCH_WEB_ROWS` for fewer), each figure next to a baseline measured in the same run:
 *
 * 1. **initial JavaScript**: the scripts `web/dist/index.html` loads before anything else (entry,
 *    module preloads and scripts inline in the page), gzipped at level 9 as Vite reports them; and
 *    the JavaScript the project page with the preview really fetched (lazy chunks included).
 * 2. **LCP**: the Largest Contentful Paint of a project page (`/projects/{id}`), signed in, each
 *    run in a fresh browser context (empty cache: a first visit); baseline: a static HTML page of
 *    similar text served by the same server from the same folder.
 * 3. **first rows**: from navigation start to the first row of the preview in the DOM, for a deep
 *    link to the collection (`/projects/{id}?dc=...`), the same deep link a second and a third time
 *    in new tabs of the same context (a returning visitor: the scripts come from the browser's
 *    cache; Chromium may also reuse V8's compiled code from the third), and from a
 *    click on the collection in an already loaded project page; the preview request's own duration
 *    as the browser saw it (waiting for a connection, to the first byte, the body), the same
 *    request sent again from the loaded page (warm, nothing else in flight), and the bytes the
 *    page's scripts took on the wire.
 *    Baseline: the server's DuckDB alone, in a child process after the server has stopped, running
 *    the preview's two statements (first 25 rows, then the row count) over the table's Parquet files.
 * 4. **Add data**: a 50 MB CSV chosen in the project page's Add data, from the file input's change
 *    to the preview's first row painted (web-add-data.ts). Baseline, taking turns with it: the
 *    preview request alone (the file's first MiB, as the app sends it) posted from Node.
 *
 * The table is built the way a user does it (upload the CSV, then `POST /deltatables/upsert`);
 * generating, uploading and upserting are printed but part of no figure.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childReport, startTarget } from '../lib/child-target.js';
import { wholeFromEnv } from '../lib/env.js';
import { endedChildrenCpuSeconds, processCpuSeconds } from '../lib/machine.js';
import { CpuSpan, printMachine, printVerdicts } from '../lib/report.js';
import { percentile } from '../lib/stats.js';
import { formatTable } from '../lib/table.js';
import { UsageError } from '../lib/usage-error.js';
import { createBenchCollection, field } from './collection-fixture.js';
import { CHROMIUM, launchChromium } from './dashboard-browser.js';
import { generateCsv } from './ingest-data.js';
import { closeConnections, requestJson, uploadFile } from './ingest-http.js';
import type { FirstPageReport } from './ingest-target.js';
import { startBaseline } from './preview.js';
import { type AddDataMeasured, measureAddData, writeAddDataCsv } from './web-add-data.js';
import {
  initialScripts,
  type Measured,
  measureBrowser,
  STATIC_HTML,
  STATIC_PAGE,
  scriptSize,
  WARM_PREVIEWS,
  WARMUPS,
} from './web-browser.js';

const API_PREFIX = '/service/api/v1';
const TARGET_SCRIPT = fileURLToPath(new URL('./ingest-target.js', import.meta.url));
const WEB_DIST = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../web/dist');

const DEFAULT_ROWS = 10_000_000;
const DEFAULT_RUNS = 7;
const UPLOAD_MAX = 1024 ** 3;
const MIB = 1024 ** 2;

const TARGET_LCP_MS = 1000;
const TARGET_ADD_DATA_MS = 1000;
const TARGET_FIRST_ROWS_MS = 500;
const TARGET_INITIAL_JS_KB = 250;
/** The warm preview request may take at most this multiple of DuckDB's own time. */
const TARGET_PREVIEW_RATIO = 2;

// The lower middle value for an even count, as the figures in docs/performance.md were taken.
const median = (values: number[]) => percentile(values, 0.5);
const fixed = (value: number, digits: number) => value.toFixed(digits);
const grouped = (value: number) => value.toLocaleString('en-US').replaceAll(',', ' ');
const kb = (bytes: number) => bytes / 1000;

type Out = (line?: string) => void;

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const rows = wholeFromEnv('BENCH_WEB_ROWS', DEFAULT_ROWS, 1000);
  const runs = wholeFromEnv('BENCH_WEB_RUNS', DEFAULT_RUNS, 1);
  const distIndex = await readDistIndex();
  const out: Out = (line = '') => process.stdout.write(`${line}\n`);
  await printHeader(out, rows, runs);

  const workDir = await mkdtemp(join(tmpdir(), 'service-bench-web-'));
  try {
    const { webRoot, scripts } = await prepareWebRoot(workDir, distIndex);
    const csvPath = join(workDir, 'rows.csv');
    out(`generating ${csvPath} ...`);
    const generated = await generateCsv(csvPath, rows);
    out(`  ${grouped(rows)} rows, ${fixed(generated.bytes / MIB, 0)} MiB in ${fixed(generated.seconds, 1)} s`);

    const dataDir = join(workDir, 'service');
    const { measured, addData, span, childCpuBefore } = await measureWithServer(out, {
      workDir,
      dataDir,
      webRoot,
      csvPath,
      csvBytes: generated.bytes,
      rows,
      runs,
    });
    const firstPage = await measureDuckdbFirstPage(out, dataDir, rows, runs);
    span.end();
    const childCpu = (endedChildrenCpuSeconds() ?? 0) - childCpuBefore;

    const initialGzip = await reportScripts(out, webRoot, scripts, measured);
    reportPageLoads(out, measured, firstPage, addData);
    span.print(out, childCpu, cpus().length);
    printVerdicts(out, verdicts(measured, rows, initialGzip, addData));
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

async function readDistIndex(): Promise<string> {
  try {
    return await readFile(join(WEB_DIST, 'index.html'), 'utf8');
  } catch {
    throw new UsageError(`${WEB_DIST}/index.html is missing: run \`npm run build\` first`);
  }
}

async function printHeader(out: Out, rows: number, runs: number): Promise<void> {
  out(`web benchmark, ${new Date().toISOString()}`);
  out(
    `rows: ${grouped(rows)}${rows === DEFAULT_ROWS ? '' : ' (BENCH_WEB_ROWS)'}; ${runs} measured runs after ${WARMUPS} warm-up`,
  );
  out(`browser: ${CHROMIUM} (headless), a fresh context (empty cache) for every page load but the repeated deep link`);
  await printMachine(out);
  out();
}

/** The built app, plus the static baseline page, served from one folder; with the scripts index.html loads first. */
async function prepareWebRoot(workDir: string, distIndex: string) {
  const webRoot = join(workDir, 'web');
  await cp(WEB_DIST, webRoot, { recursive: true });
  await writeFile(join(webRoot, STATIC_PAGE), STATIC_HTML);
  const scripts = await initialScripts(webRoot);
  if (!distIndex.includes(scripts[0]?.file ?? '\u0000')) throw new Error('index.html changed while copying');
  return { webRoot, scripts };
}

interface Setup {
  workDir: string;
  dataDir: string;
  webRoot: string;
  csvPath: string;
  csvBytes: number;
  rows: number;
  runs: number;
}

/**
 * Starts the server, builds the table, and measures in Chromium (with the DuckDB baseline taking
 * turns). The measured part's CPU is ours, counted from the ended-children times once they have
 * exited, less what the server used before it started (`childCpuBefore`).
 */
async function measureWithServer(out: Out, setup: Setup) {
  const profileDir = process.env.BENCH_WEB_CPU_PROF;
  const server = await startTarget(
    TARGET_SCRIPT,
    ['service', setup.dataDir, String(Math.max(UPLOAD_MAX, setup.csvBytes + MIB)), setup.webRoot],
    profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`, '--cpu-prof-interval=200'],
  );
  try {
    const collection = await buildTable(out, `${server.url}${API_PREFIX}`, setup);
    const addDataCsv = join(setup.workDir, 'add-data.csv');
    out(`  the Add data CSV: ${fixed((await writeAddDataCsv(addDataCsv)) / 1e6, 1)} MB (part of no figure)`);
    const span = new CpuSpan();
    const childCpuBefore = (endedChildrenCpuSeconds() ?? 0) + (processCpuSeconds(server.pid) ?? 0);
    out('measuring in Chromium ...');
    const { measured, addData } = await measureInChromium(server.url, collection, setup, addDataCsv);
    return { measured, addData, span, childCpuBefore };
  } finally {
    await server.stop();
  }
}

/** The table as a user builds it: upload the CSV, then upsert; printed, but part of no figure. */
async function buildTable(out: Out, api: string, setup: Setup) {
  const collection = await createBenchCollection(api, {
    project: 'web benchmark',
    workflow: 'generated',
    tag: 'rows',
    pattern: 'rows\\.csv',
  });
  let started = performance.now();
  await uploadFile(`${api}/datacollections/${collection.collectionId}/files`, collection.token, {
    localPath: setup.csvPath,
    size: setup.csvBytes,
    run: 'bench',
    path: 'rows.csv',
    contentType: 'text/csv',
  });
  out(`  uploaded in ${fixed((performance.now() - started) / 1000, 1)} s`);
  started = performance.now();
  const upsert = await requestJson('POST', `${api}/deltatables/upsert`, {
    token: collection.token,
    body: { data_collection_id: collection.collectionId },
  });
  const tableRows = field<number>(upsert, 'rows', 'upsert');
  if (tableRows !== setup.rows) throw new Error(`upsert: the table has ${tableRows} rows, the file ${setup.rows}`);
  out(`  upserted in ${fixed((performance.now() - started) / 1000, 1)} s (not part of any figure below)`);
  await rm(setup.csvPath, { force: true });
  closeConnections();
  return collection;
}

async function measureInChromium(
  serverUrl: string,
  collection: Awaited<ReturnType<typeof createBenchCollection>>,
  setup: Setup,
  addDataCsv: string,
): Promise<{ measured: Measured; addData: AddDataMeasured }> {
  const browser = await launchChromium();
  const duckdbAlone = await startBaseline(setup.dataDir, join(setup.workDir, 'baseline'));
  try {
    const measured = await measureBrowser(
      browser,
      serverUrl,
      collection.session,
      collection.projectId,
      collection.collectionId,
      setup.runs,
      async () => (await duckdbAlone.run()).ms,
    );
    const { session, projectId } = collection;
    const api = `${serverUrl}${API_PREFIX}`;
    const addData = await measureAddData(browser, serverUrl, api, session, projectId, addDataCsv, setup.runs);
    return { measured, addData };
  } finally {
    await browser.close();
    await duckdbAlone.stop();
  }
}

/** Baseline: the server's DuckDB alone reading the first page, in a child process after the server stopped. */
async function measureDuckdbFirstPage(out: Out, dataDir: string, rows: number, runs: number) {
  out("baseline: DuckDB alone reading the table's first page ...");
  const firstPage = await childReport<FirstPageReport>(
    TARGET_SCRIPT,
    ['first-page', dataDir, String(WARMUPS + runs)],
    'first-page',
  );
  if (firstPage.rows !== rows) throw new Error(`baseline: the Parquet files hold ${firstPage.rows} rows, not ${rows}`);
  return firstPage;
}

/** The initial and the fetched JavaScript; answers the initial scripts' gzipped bytes. */
async function reportScripts(
  out: Out,
  webRoot: string,
  scripts: Awaited<ReturnType<typeof initialScripts>>,
  measured: Measured,
): Promise<number> {
  const loaded = await Promise.all(measured.loadedScripts.map((path) => scriptSize(webRoot, path)));
  const initialGzip = scripts.reduce((sum, script) => sum + script.gzip, 0);
  const loadedGzip = loaded.reduce((sum, script) => sum + script.gzip, 0);
  out();
  out(
    formatTable(
      ['JavaScript', 'files', 'kB', 'kB gzipped'],
      [
        [
          'initial (index.html: entry + module preloads + inline)',
          String(scripts.length),
          fixed(kb(scripts.reduce((sum, script) => sum + script.bytes, 0)), 1),
          fixed(kb(initialGzip), 1),
        ],
        [
          'fetched by the project page with the preview',
          String(loaded.length),
          fixed(kb(loaded.reduce((sum, script) => sum + script.bytes, 0)), 1),
          fixed(kb(loadedGzip), 1),
        ],
      ],
    ),
  );
  out(
    `the project page's scripts took ${fixed(kb(measured.scriptTransferBytes), 1)} kB on the wire ` +
      '(the Brotli copies the build writes, headers included)',
  );
  out();
  return initialGzip;
}

function reportPageLoads(out: Out, measured: Measured, firstPage: FirstPageReport, addData: AddDataMeasured): void {
  const duckdb = firstPage.ms.slice(WARMUPS);
  const row = (name: string, values: number[], baseline: number[] | null) => [
    name,
    fixed(median(values), 0),
    fixed(Math.min(...values), 0),
    fixed(Math.max(...values), 0),
    baseline === null ? '' : `${fixed(median(values) / median(baseline), 2)}x`,
  ];
  out(
    formatTable(
      ['page load (ms from navigation start unless said)', 'median', 'min', 'max', 'x baseline'],
      [
        row('baseline: LCP of a static page, same server', measured.staticLcp, null),
        row(`LCP of the project page (${measured.lcpElement})`, measured.projectLcp, measured.staticLcp),
        row("baseline: DuckDB alone, the preview's 2 statements", duckdb, null),
        row('first rows, deep link to the collection', measured.deepLinkRows, duckdb),
        row('first rows, the deep link a 2nd time (scripts cached)', measured.secondVisitRows, duckdb),
        row('first rows, the deep link a 3rd time (scripts cached)', measured.thirdVisitRows, duckdb),
        row('first rows, click on the collection (ms from click)', measured.clickRows, duckdb),
        row('preview request as the browser saw it (deep link)', measured.previewRequest, duckdb),
        row('  of which waiting in the browser for a connection', measured.previewQueued, null),
        row('  of which request sent to first byte', measured.previewServer, duckdb),
        row('  of which the rest of the body', measured.previewBody, null),
        row('baseline: DuckDB alone, the 2 statements, taking turns with the next', measured.warmBaseline, null),
        row(
          `preview request, warm, again from the loaded page (${WARM_PREVIEWS} a run)`,
          measured.warmPreview,
          measured.warmBaseline,
        ),
        row('baseline: Add data preview request alone (first MiB, from Node)', addData.request, null),
        row(
          `Add data, ${fixed(addData.bytes / 1e6, 0)} MB CSV: first rows in the DOM (ms from choice)`,
          addData.rows,
          addData.request,
        ),
        row('Add data: first rows painted (the frame after)', addData.painted, addData.request),
      ],
    ),
  );
  out(
    `(DuckDB read ${firstPage.files} Parquet file(s); its first, cold run took ${fixed(firstPage.ms[0] ?? 0, 0)} ms)`,
  );
  out();
}

function verdicts(
  measured: Measured,
  rows: number,
  initialGzip: number,
  addData: AddDataMeasured,
): [boolean, string][] {
  return [
    [
      median(addData.painted) < TARGET_ADD_DATA_MS,
      `Add data preview of a ${fixed(addData.bytes / 1e6, 0)} MB CSV painted < ${TARGET_ADD_DATA_MS} ms: ` +
        `${fixed(median(addData.painted), 0)} ms`,
    ],
    [
      median(measured.projectLcp) < TARGET_LCP_MS,
      `project page LCP < ${TARGET_LCP_MS} ms: ${fixed(median(measured.projectLcp), 0)} ms`,
    ],
    [
      median(measured.deepLinkRows) < TARGET_FIRST_ROWS_MS,
      `first rows of a ${grouped(rows)}-row table < ${TARGET_FIRST_ROWS_MS} ms (deep link): ` +
        `${fixed(median(measured.deepLinkRows), 0)} ms (after a click: ${fixed(median(measured.clickRows), 0)} ms)`,
    ],
    [
      median(measured.warmPreview) <= TARGET_PREVIEW_RATIO * median(measured.warmBaseline),
      `warm preview request <= ${TARGET_PREVIEW_RATIO}x DuckDB alone (taking turns): ` +
        `${fixed(median(measured.warmPreview), 0)} ms against ${fixed(median(measured.warmBaseline), 0)} ms ` +
        `(${fixed(median(measured.warmPreview) / median(measured.warmBaseline), 2)}x)`,
    ],
    [
      kb(initialGzip) < TARGET_INITIAL_JS_KB,
      `initial JavaScript < ${TARGET_INITIAL_JS_KB} kB gzipped: ${fixed(kb(initialGzip), 1)} kB`,
    ],
  ];
}
