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
 *
 * The table is built the way a user does it (upload the CSV, then `POST /deltatables/upsert`);
 * generating, uploading and upserting are printed but part of no figure.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { childReport, startTarget } from '../lib/child-target.js';
import { wholeFromEnv } from '../lib/env.js';
import { endedChildrenCpuSeconds, processCpuSeconds } from '../lib/machine.js';
import { CpuSpan, printMachine, printVerdicts } from '../lib/report.js';
import { percentile } from '../lib/stats.js';
import { formatTable } from '../lib/table.js';
import { UsageError } from '../lib/usage-error.js';
import { createBenchCollection, field } from './collection-fixture.js';
import { generateCsv } from './ingest-data.js';
import { closeConnections, requestJson, uploadFile } from './ingest-http.js';
import type { FirstPageReport } from './ingest-target.js';
import { startBaseline } from './preview.js';

const API_PREFIX = '/service/api/v1';
const TARGET_SCRIPT = fileURLToPath(new URL('./ingest-target.js', import.meta.url));
const WEB_DIST = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../web/dist');
const CHROMIUM = process.env.BENCH_CHROMIUM ?? process.env.SERVICE_TEST_CHROMIUM ?? '/usr/bin/chromium';

const DEFAULT_ROWS = 10_000_000;
const DEFAULT_RUNS = 7;
const WARMUPS = 1;
const UPLOAD_MAX = 1024 ** 3;
const MIB = 1024 ** 2;

const TARGET_LCP_MS = 1000;
const TARGET_FIRST_ROWS_MS = 500;
const TARGET_INITIAL_JS_KB = 300;
/** The warm preview request may take at most this multiple of DuckDB's own time. */
const TARGET_PREVIEW_RATIO = 2;

const STATIC_PAGE = 'bench-static.html';
/** A page of about the project page's text, no script: the best LCP this server can give. */
const STATIC_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Static page</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; margin: 2rem">
<h1 style="font-size: 34px">web benchmark</h1>
<p>The same server, the same folder: a static page with a heading and a few lines of text, as the
baseline for the project page's Largest Contentful Paint.</p>
</body></html>
`;

// The lower middle value for an even count, as the figures in docs/performance.md were taken.
const median = (values: number[]) => percentile(values, 0.5);
const fixed = (value: number, digits: number) => value.toFixed(digits);
const grouped = (value: number) => value.toLocaleString('en-US').replaceAll(',', ' ');
const kb = (bytes: number) => bytes / 1000;

/**
 * Gzipped size of each script `index.html` loads up front: the entry module and its preloads, then
 * any script written into the page itself (the web app's boot script).
 */
async function initialScripts(dist: string): Promise<{ file: string; bytes: number; gzip: number }[]> {
  const html = await readFile(join(dist, 'index.html'), 'utf8');
  const paths = [
    ...html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g),
    ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g),
  ].map((match) => match[1] ?? '');
  if (paths.length === 0) throw new Error(`${dist}/index.html loads no module script`);
  const inline = [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)]
    .map((match) => Buffer.from(match[1] ?? ''))
    .filter((code) => code.length > 0)
    .map((code) => ({ file: '(inline)', bytes: code.length, gzip: gzipSync(code, { level: 9 }).length }));
  return [...(await Promise.all(paths.map((path) => scriptSize(dist, path)))), ...inline];
}

async function scriptSize(dist: string, path: string): Promise<{ file: string; bytes: number; gzip: number }> {
  const content = await readFile(join(dist, path.replace(/^\//, '')));
  return { file: path, bytes: content.length, gzip: gzipSync(content, { level: 9 }).length };
}

// Scripts run in the page, kept as text: this package is compiled without the DOM's types.
const READ_LCP = `new Promise((resolve) => {
  setTimeout(() => resolve(null), 3000);
  new PerformanceObserver((list) => {
    const entries = list.getEntries();
    const last = entries[entries.length - 1];
    const element = last && last.element
      ? last.element.tagName.toLowerCase() + ' "' + (last.element.textContent || '').trim().slice(0, 30) + '"'
      : '?';
    resolve(last ? { ms: last.startTime, element } : null);
  }).observe({ type: 'largest-contentful-paint', buffered: true });
})`;
/** Records when the preview's first row enters the DOM (performance.now(), from navigation start). */
const FIRST_ROW = 'table[aria-label^="Preview of"] tbody tr';
const WATCH_FIRST_ROWS = `(() => {
  const selector = '${FIRST_ROW}';
  const observer = new MutationObserver(() => {
    if (window.__firstRows === undefined && document.querySelector(selector)) window.__firstRows = performance.now();
  });
  document.addEventListener('DOMContentLoaded', () => observer.observe(document.body, { childList: true, subtree: true }));
})()`;
/**
 * The preview request of the page as the browser saw it, in parts: waiting in the browser (for a
 * connection: HTTP/1.1 allows 6 per host, shared with the scripts and the other GETs), the
 * server's answer (request sent to first byte) and the rest of the body.
 */
const PREVIEW_REQUEST_MS = `(() => {
  const entry = performance.getEntriesByType('resource').find((e) => e.name.includes('/preview?'));
  return entry ? {
    total: entry.responseEnd - entry.startTime,
    queued: entry.requestStart - entry.startTime,
    server: entry.responseStart - entry.requestStart,
    body: entry.responseEnd - entry.responseStart,
  } : null;
})()`;
/**
 * The same preview request sent again from the loaded page (its URL, the session's bearer token):
 * the warm request as the browser sends it, with nothing else in flight. Answers its duration.
 */
const WARM_PREVIEWS = 5;
const WARM_PREVIEW_MS = `(async () => {
  const url = performance.getEntriesByType('resource').find((e) => e.name.includes('/preview?')).name;
  const token = JSON.parse(sessionStorage.getItem('service.session')).access_token;
  const started = performance.now();
  const answer = await fetch(url, { headers: { authorization: 'Bearer ' + token } });
  await answer.text();
  if (!answer.ok) throw new Error('preview: HTTP ' + answer.status);
  return performance.now() - started;
})()`;
const SCRIPTS_LOADED = `performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => p.endsWith('.js'))`;
/** Bytes the page's scripts took on the wire (as the server sent them: compressed), headers included. */
const SCRIPT_TRANSFER_BYTES = `performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname.endsWith('.js')).reduce((sum, e) => sum + e.transferSize, 0)`;
/** The collection's entry in its workflow card. */
const COLLECTION_BUTTON = 'li button[aria-pressed]';
const CLICK_COLLECTION = `(() => {
  window.__clickedAt = performance.now();
  document.querySelector('${COLLECTION_BUTTON}').click();
})()`;

/**
 * Waits until the preview's first row is in the DOM, then answers when it came
 * (`performance.now()`, as WATCH_FIRST_ROWS noted it). Through a selector, not `waitForFunction`:
 * the pages' Content-Security-Policy forbids the eval that a predicate given as text needs.
 */
async function waitForFirstRows(page: Page): Promise<number> {
  await page.waitForSelector(FIRST_ROW, { state: 'attached', timeout: 60_000 });
  const at: unknown = await page.evaluate('window.__firstRows');
  if (typeof at !== 'number') throw new Error('the first row is in the page, but its time was not noted');
  return at;
}

interface Measured {
  staticLcp: number[];
  projectLcp: number[];
  lcpElement: string;
  deepLinkRows: number[];
  /** The same deep link opened a second and a third time in the same browser context: the scripts come from its cache. */
  secondVisitRows: number[];
  thirdVisitRows: number[];
  clickRows: number[];
  previewRequest: number[];
  previewQueued: number[];
  previewServer: number[];
  previewBody: number[];
  /** The warm request sent again from the loaded page, `WARM_PREVIEWS` per run. */
  warmPreview: number[];
  /** DuckDB alone running the preview's statements, taking turns with `warmPreview`. */
  warmBaseline: number[];
  loadedScripts: string[];
  scriptTransferBytes: number;
}

async function measureBrowser(
  browser: Browser,
  url: string,
  session: Record<string, unknown>,
  projectId: string,
  collectionId: string,
  runs: number,
  /** Runs the preview's two statements in DuckDB alone once more; answers the milliseconds. */
  baseline: () => Promise<number>,
): Promise<Measured> {
  const stored = JSON.stringify({
    access_token: session.access_token,
    refresh_token: session.refresh_token,
    user: session.user,
  });
  const fresh = async (signedIn: boolean): Promise<BrowserContext> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    if (signedIn) await context.addInitScript(`sessionStorage.setItem('service.session', ${JSON.stringify(stored)})`);
    await context.addInitScript(WATCH_FIRST_ROWS);
    return context;
  };
  const measured: Measured = {
    staticLcp: [],
    projectLcp: [],
    lcpElement: '?',
    deepLinkRows: [],
    secondVisitRows: [],
    thirdVisitRows: [],
    clickRows: [],
    previewRequest: [],
    previewQueued: [],
    previewServer: [],
    previewBody: [],
    warmPreview: [],
    warmBaseline: [],
    loadedScripts: [],
    scriptTransferBytes: 0,
  };
  for (let run = 0; run < WARMUPS + runs; run++) {
    const keep = run >= WARMUPS;
    // Baseline: the static page.
    let context = await fresh(false);
    let page = await context.newPage();
    await page.goto(`${url}/${STATIC_PAGE}`, { waitUntil: 'load' });
    const staticLcp = (await page.evaluate(READ_LCP)) as { ms: number } | null;
    if (staticLcp === null) throw new Error('the static page reported no LCP');
    await context.close();

    // The project page, then a click on the collection.
    context = await fresh(true);
    page = await context.newPage();
    await page.goto(`${url}/projects/${projectId}`, { waitUntil: 'networkidle' });
    const projectLcp = (await page.evaluate(READ_LCP)) as { ms: number; element: string } | null;
    if (projectLcp === null) throw new Error('the project page reported no LCP');
    await page.waitForSelector(COLLECTION_BUTTON);
    await page.evaluate(CLICK_COLLECTION);
    const clickRows = (await waitForFirstRows(page)) - ((await page.evaluate('window.__clickedAt')) as number);
    await context.close();

    // A deep link to the collection: the whole app loads, then the preview.
    context = await fresh(true);
    page = await context.newPage();
    const deepLink = `${url}/projects/${projectId}?dc=${collectionId}`;
    await page.goto(deepLink);
    const deepLinkRows = await waitForFirstRows(page);
    const previewRequest = (await page.evaluate(PREVIEW_REQUEST_MS)) as {
      total: number;
      queued: number;
      server: number;
      body: number;
    } | null;
    if (previewRequest === null) throw new Error('the deep link made no preview request');
    // Taking turns with DuckDB alone (which one goes first alternates), so that a busy moment of
    // the machine hits both.
    const warmPreview: number[] = [];
    const warmBaseline: number[] = [];
    for (let turn = 0; turn < WARM_PREVIEWS; turn++) {
      if (turn % 2 === 1) warmBaseline.push(await baseline());
      warmPreview.push((await page.evaluate(WARM_PREVIEW_MS)) as number);
      if (turn % 2 === 0) warmBaseline.push(await baseline());
    }
    const loadedScripts = (await page.evaluate(SCRIPTS_LOADED)) as string[];
    const scriptTransferBytes = (await page.evaluate(SCRIPT_TRANSFER_BYTES)) as number;
    await page.close();

    // A returning visitor: the same deep link in new tabs of the same context, whose cache holds the
    // scripts. Chromium may also keep V8's compiled code of a script from its second run on, for the
    // third.
    const repeatRows: number[] = [];
    for (let visit = 2; visit <= 3; visit++) {
      page = await context.newPage();
      await page.goto(deepLink);
      repeatRows.push(await waitForFirstRows(page));
      await page.close();
    }
    await context.close();

    if (!keep) continue;
    measured.staticLcp.push(staticLcp.ms);
    measured.projectLcp.push(projectLcp.ms);
    measured.lcpElement = projectLcp.element;
    measured.clickRows.push(clickRows);
    measured.deepLinkRows.push(deepLinkRows);
    measured.secondVisitRows.push(repeatRows[0] ?? Number.NaN);
    measured.thirdVisitRows.push(repeatRows[1] ?? Number.NaN);
    measured.previewRequest.push(previewRequest.total);
    measured.previewQueued.push(previewRequest.queued);
    measured.previewServer.push(previewRequest.server);
    measured.previewBody.push(previewRequest.body);
    measured.warmPreview.push(...warmPreview);
    measured.warmBaseline.push(...warmBaseline);
    measured.loadedScripts = loadedScripts;
    measured.scriptTransferBytes = scriptTransferBytes;
  }
  return measured;
}

export async function run(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`takes no arguments (got "${args.join(' ')}")`);
  const rows = wholeFromEnv('BENCH_WEB_ROWS', DEFAULT_ROWS, 1000);
  const runs = wholeFromEnv('BENCH_WEB_RUNS', DEFAULT_RUNS, 1);
  let distIndex: string;
  try {
    distIndex = await readFile(join(WEB_DIST, 'index.html'), 'utf8');
  } catch {
    throw new UsageError(`${WEB_DIST}/index.html is missing: run \`npm run build\` first`);
  }
  const { chromium } = await import('playwright-core');
  const out = (line = '') => process.stdout.write(`${line}\n`);
  out(`web benchmark, ${new Date().toISOString()}`);
  out(
    `rows: ${grouped(rows)}${rows === DEFAULT_ROWS ? '' : ' (BENCH_WEB_ROWS)'}; ${runs} measured runs after ${WARMUPS} warm-up`,
  );
  out(`browser: ${CHROMIUM} (headless), a fresh context (empty cache) for every page load but the repeated deep link`);
  await printMachine(out);
  out();

  const workDir = await mkdtemp(join(tmpdir(), 'service-bench-web-'));
  try {
    // The built app, plus the static baseline page, served from one folder.
    const webRoot = join(workDir, 'web');
    await cp(WEB_DIST, webRoot, { recursive: true });
    await writeFile(join(webRoot, STATIC_PAGE), STATIC_HTML);
    const scripts = await initialScripts(webRoot);
    if (!distIndex.includes(scripts[0]?.file ?? '\u0000')) throw new Error('index.html changed while copying');

    const csvPath = join(workDir, 'rows.csv');
    out(`generating ${csvPath} ...`);
    const generated = await generateCsv(csvPath, rows);
    out(`  ${grouped(rows)} rows, ${fixed(generated.bytes / MIB, 0)} MiB in ${fixed(generated.seconds, 1)} s`);

    const dataDir = join(workDir, 'service');
    const profileDir = process.env.BENCH_WEB_CPU_PROF;
    const server = await startTarget(
      TARGET_SCRIPT,
      ['service', dataDir, String(Math.max(UPLOAD_MAX, generated.bytes + MIB)), webRoot],
      profileDir === undefined
        ? []
        : ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`, '--cpu-prof-interval=200'],
    );
    let measured: Measured;
    // The measured part: Chromium, then the DuckDB baseline. Their CPU is ours, counted from the
    // ended-children times once they have exited, less what the server used before it started.
    let span: CpuSpan;
    let endedBefore: number;
    let serverBefore: number;
    try {
      const api = `${server.url}${API_PREFIX}`;
      const collection = await createBenchCollection(api, {
        project: 'web benchmark',
        workflow: 'generated',
        tag: 'rows',
        pattern: 'rows\\.csv',
      });
      let started = performance.now();
      await uploadFile(`${api}/datacollections/${collection.collectionId}/files`, collection.token, {
        localPath: csvPath,
        size: generated.bytes,
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
      if (tableRows !== rows) throw new Error(`upsert: the table has ${tableRows} rows, the file ${rows}`);
      out(`  upserted in ${fixed((performance.now() - started) / 1000, 1)} s (not part of any figure below)`);
      await rm(csvPath, { force: true });
      closeConnections();

      span = new CpuSpan();
      endedBefore = endedChildrenCpuSeconds() ?? 0;
      serverBefore = processCpuSeconds(server.pid) ?? 0;
      out('measuring in Chromium ...');
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--no-first-run',
        ],
      });
      const duckdbAlone = await startBaseline(dataDir, join(workDir, 'baseline'));
      try {
        measured = await measureBrowser(
          browser,
          server.url,
          collection.session,
          collection.projectId,
          collection.collectionId,
          runs,
          async () => (await duckdbAlone.run()).ms,
        );
      } finally {
        await browser.close();
        await duckdbAlone.stop();
      }
    } finally {
      await server.stop();
    }
    out("baseline: DuckDB alone reading the table's first page ...");
    const firstPage = await childReport<FirstPageReport>(
      TARGET_SCRIPT,
      ['first-page', dataDir, String(WARMUPS + runs)],
      'first-page',
    );
    if (firstPage.rows !== rows)
      throw new Error(`baseline: the Parquet files hold ${firstPage.rows} rows, not ${rows}`);
    span.end();
    const childCpu = (endedChildrenCpuSeconds() ?? 0) - endedBefore - serverBefore;
    const duckdb = firstPage.ms.slice(WARMUPS);

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
        ],
      ),
    );
    out(
      `(DuckDB read ${firstPage.files} Parquet file(s); its first, cold run took ${fixed(firstPage.ms[0] ?? 0, 0)} ms)`,
    );
    out();

    span.print(out, childCpu, cpus().length);

    const verdicts: [boolean, string][] = [
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
    printVerdicts(out, verdicts);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
