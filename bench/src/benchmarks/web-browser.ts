/**
 * The browser half of the `web` benchmark (web.ts): the scripts the app loads, and page loads in
 * headless Chromium timed from inside the page.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';

/** Page loads before the measured ones, left out of every figure. */
export const WARMUPS = 1;

export const STATIC_PAGE = 'bench-static.html';
/** A page of about the project page's text, no script: the best LCP this server can give. */
export const STATIC_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Static page</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; margin: 2rem">
<h1 style="font-size: 34px">web benchmark</h1>
<p>The same server, the same folder: a static page with a heading and a few lines of text, as the
baseline for the project page's Largest Contentful Paint.</p>
</body></html>
`;

/**
 * Gzipped size of each script `index.html` loads up front: the entry module and its preloads, then
 * any script written into the page itself (the web app's boot script).
 */
export async function initialScripts(dist: string): Promise<{ file: string; bytes: number; gzip: number }[]> {
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

export async function scriptSize(dist: string, path: string): Promise<{ file: string; bytes: number; gzip: number }> {
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
/** Warm preview requests sent from the loaded page in each run. */
export const WARM_PREVIEWS = 5;
/**
 * The same preview request sent again from the loaded page (its URL, the session's bearer token):
 * the warm request as the browser sends it, with nothing else in flight. Answers its duration.
 */
const WARM_PREVIEW_MS = `(async () => {
  const url = performance.getEntriesByType('resource').find((e) => e.name.includes('/preview?')).name;
  const token = JSON.parse(localStorage.getItem('service.session')).access_token;
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

export interface Measured {
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

type Fresh = (signedIn: boolean) => Promise<BrowserContext>;

export async function measureBrowser(
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
  const fresh: Fresh = async (signedIn) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    if (signedIn) await context.addInitScript(`localStorage.setItem('service.session', ${JSON.stringify(stored)})`);
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
    const staticLcp = await staticPageLcp(fresh, url);
    const project = await projectPageAndClick(fresh, url, projectId);
    const deep = await deepLinkVisits(fresh, `${url}/projects/${projectId}?dc=${collectionId}`, baseline);
    if (run < WARMUPS) continue;
    measured.staticLcp.push(staticLcp);
    measured.projectLcp.push(project.lcp.ms);
    measured.lcpElement = project.lcp.element;
    measured.clickRows.push(project.clickRows);
    measured.deepLinkRows.push(deep.deepLinkRows);
    measured.secondVisitRows.push(deep.repeatRows[0] ?? Number.NaN);
    measured.thirdVisitRows.push(deep.repeatRows[1] ?? Number.NaN);
    measured.previewRequest.push(deep.previewRequest.total);
    measured.previewQueued.push(deep.previewRequest.queued);
    measured.previewServer.push(deep.previewRequest.server);
    measured.previewBody.push(deep.previewRequest.body);
    measured.warmPreview.push(...deep.warmPreview);
    measured.warmBaseline.push(...deep.warmBaseline);
    measured.loadedScripts = deep.loadedScripts;
    measured.scriptTransferBytes = deep.scriptTransferBytes;
  }
  return measured;
}

/** Baseline: the LCP of the static page. */
async function staticPageLcp(fresh: Fresh, url: string): Promise<number> {
  const context = await fresh(false);
  const page = await context.newPage();
  await page.goto(`${url}/${STATIC_PAGE}`, { waitUntil: 'load' });
  const staticLcp = (await page.evaluate(READ_LCP)) as { ms: number } | null;
  if (staticLcp === null) throw new Error('the static page reported no LCP');
  await context.close();
  return staticLcp.ms;
}

/** The project page's LCP, then a click on the collection until its first rows. */
async function projectPageAndClick(fresh: Fresh, url: string, projectId: string) {
  const context = await fresh(true);
  const page = await context.newPage();
  const quiet = networkQuiet(page);
  await page.goto(`${url}/projects/${projectId}`, { waitUntil: 'load' });
  await quiet;
  const lcp = (await page.evaluate(READ_LCP)) as { ms: number; element: string } | null;
  if (lcp === null) throw new Error('the project page reported no LCP');
  await page.waitForSelector(COLLECTION_BUTTON);
  await page.evaluate(CLICK_COLLECTION);
  const clickRows = (await waitForFirstRows(page)) - ((await page.evaluate('window.__clickedAt')) as number);
  await context.close();
  return { lcp, clickRows };
}

/** A page's requests stay open this long with none started before it counts as settled. */
const QUIET_MS = 500;

/**
 * Settles when, after the page's first request, none has been in flight for QUIET_MS, as
 * Playwright's `networkidle` would, except that the page's event stream (`GET /events`, open for the page's lifetime) is not counted.
 */
function networkQuiet(page: Page): Promise<void> {
  const inFlight = new Set<Request>();
  const isEventStream = (request: Request) => new URL(request.url()).pathname.endsWith('/events');
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const settleLater = () => {
      clearTimeout(timer);
      if (inFlight.size === 0) timer = setTimeout(done, QUIET_MS);
    };
    const started = (request: Request) => {
      if (isEventStream(request)) return;
      inFlight.add(request);
      clearTimeout(timer);
    };
    const ended = (request: Request) => {
      if (inFlight.delete(request)) settleLater();
    };
    const done = () => {
      page.off('request', started);
      page.off('requestfinished', ended);
      page.off('requestfailed', ended);
      resolve();
    };
    page.on('request', started);
    page.on('requestfinished', ended);
    page.on('requestfailed', ended);
  });
}

/**
 * A deep link to the collection (the whole app loads, then the preview), its preview request
 * warm again taking turns with DuckDB alone, then the same link revisited.
 */
async function deepLinkVisits(fresh: Fresh, deepLink: string, baseline: () => Promise<number>) {
  const context = await fresh(true);
  const page = await context.newPage();
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
  const repeatRows = await revisit(context, deepLink);
  await context.close();
  return { deepLinkRows, previewRequest, warmPreview, warmBaseline, loadedScripts, scriptTransferBytes, repeatRows };
}

/**
 * A returning visitor: the same deep link in new tabs of the same context, whose cache holds the
 * scripts. Chromium may also keep V8's compiled code of a script from its second run on, for the
 * third.
 */
async function revisit(context: BrowserContext, deepLink: string): Promise<number[]> {
  const repeatRows: number[] = [];
  for (let visit = 2; visit <= 3; visit++) {
    const page = await context.newPage();
    await page.goto(deepLink);
    repeatRows.push(await waitForFirstRows(page));
    await page.close();
  }
  return repeatRows;
}
