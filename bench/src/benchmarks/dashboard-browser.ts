/**
 * The `dashboard` benchmark in Chromium (playwright-core, headless): the dashboard page of the
 * built web app, signed in, then filter changes, each timed in the page from the change to every
 * component redrawn.
 *
 * The change goes through the address bar, where the app keeps its filters (`?filters=`): a
 * `pushState` and the `popstate` a Back/Forward would fire, so the app's own state, data request
 * and drawing run as after a click, without the widget's own animation. "Redrawn" is what the app
 * says on the page: the grid's `data-view-key` names the filters shown, and each cell
 * (`data-component-id`) carries the same key in `data-drawn-key` once it has drawn their data;
 * the time is taken at the next animation frame after the last cell got there.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DashboardFilter } from '@service/common';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM = process.env.BENCH_CHROMIUM ?? process.env.SERVICE_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const PAGE_TIMEOUT_MS = 120_000;

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/**
 * Browser features the benchmarks turn off. Headless Chromium (since 132 the whole browser) opens
 * a window per context, and each window built its address bar's popups as WebUI pages: about 100
 * scripts and a second of CPU per fresh context, competing on a 2-CPU host with the page measured
 * and with the server answering it (traced on the project page: API answers of 2 ms took 0.6–1 s).
 * A person's tab opens in a window that has them already.
 */
const DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'WebUIOmniboxFullPopup'];

let featureSwitch: Promise<string> | null = null;
/**
 * `--disable-features` with Playwright's own list and ours: Chromium keeps only the last such
 * switch, so passing ours alone would drop Playwright's (PaintHolding among them). Playwright's
 * list is read off a browser it launched, once per process.
 */
function disabledFeaturesSwitch(): Promise<string> {
  featureSwitch ??= (async () => {
    const { chromium } = await import('playwright-core');
    const probe = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const defaults = probe.process().spawnargs.find((arg) => arg.startsWith('--disable-features='));
    await probe.close();
    const theirs = defaults === undefined ? [] : defaults.slice('--disable-features='.length).split(',');
    return `--disable-features=${[...new Set([...theirs, ...DISABLED_FEATURES])].join(',')}`;
  })();
  return featureSwitch;
}

/** Headless Chromium as every benchmark runs it. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, await disabledFeaturesSwitch()] });
}

/**
 * The bench's window: 1440 px wide, `BENCH_BROWSER_HEIGHT` (1400) px high. A taller one puts more
 * of a dashboard in sight, to be asked for and drawn on each change (a probe of the whole page).
 */
function viewport(): { width: number; height: number } {
  const text = process.env.BENCH_BROWSER_HEIGHT ?? '';
  const height = text === '' ? 1400 : Number(text);
  if (!Number.isInteger(height) || height < 200 || height > 20_000) {
    throw new Error(`BENCH_BROWSER_HEIGHT must be a whole number of pixels from 200 to 20000 (got "${text}")`);
  }
  return { width: 1440, height };
}

/** A browser context signed in as `session` (the app reads it from sessionStorage), at the bench's viewport. */
export async function signedInContext(browser: Browser, session: Record<string, unknown>) {
  const stored = JSON.stringify({
    access_token: session.access_token,
    refresh_token: session.refresh_token,
    user: session.user,
  });
  const context = await browser.newContext({ viewport: viewport() });
  await context.addInitScript(`sessionStorage.setItem('service.session', ${JSON.stringify(stored)})`);
  return context;
}

/**
 * In the page, whether an element lies more than 200 px beyond the viewport: the app asks for and
 * draws such a component once it is scrolled to (web/src/dashboard/useInSight.ts).
 */
export const OUT_OF_SIGHT = `((element) => {
  const box = element.getBoundingClientRect();
  return box.bottom < -200 || box.top > innerHeight + 200;
})`;

/**
 * Whether every figure cell (those whose data has `total_rows`) holds a chart that ECharts says it
 * has finished drawing, or one out of sight (more than 200 px beyond the viewport) that waits to be
 * scrolled to (`waiting`: the app draws charts in sight first): a chart whose code is still loading
 * counts as not drawn.
 */
export const CHARTS_RENDERED = `[...document.querySelectorAll('[data-component-id][data-total-rows]')]
    .every((cell) => {
      const chart = cell.querySelector('[data-chart-state]');
      if (chart === null) return false;
      return chart.getAttribute('data-chart-state') === 'rendered' || (chart.getAttribute('data-chart-state') === 'waiting' && ${OUT_OF_SIGHT}(chart));
    })`;

/**
 * Answers (in the page) when every cell has drawn the view the grid names, and that view differs
 * from `previous`: `{ms, settledMs, key}` from `started`. `ms` is the next animation frame after the
 * last cell got its data; `settledMs` when, from the frame after that on, every chart also says
 * ECharts has finished (`data-chart-state="rendered"`, after its transition animation). Kept as
 * text: this package is compiled without the DOM's types, and the pages' Content-Security-Policy
 * allows no eval of a predicate.
 */
export const whenDrawn = (previous: string, started: string) => `new Promise((resolve, reject) => {
  const drawn = () => {
    const grid = document.querySelector('[data-view-key]');
    const cells = [...document.querySelectorAll('[data-component-id]')];
    if (!grid || cells.length === 0) return null;
    const key = grid.getAttribute('data-view-key');
    if (key === ${JSON.stringify(previous)}) return null;
    // A cell out of sight is asked for once scrolled to: what the reader sees is what counts.
    return cells.every((cell) => cell.getAttribute('data-drawn-key') === key || ${OUT_OF_SIGHT}(cell)) ? key : null;
  };
  const settled = () => ${CHARTS_RENDERED};
  // On a timeout, name the cells that never got there, with what they hold, so the failure says why.
  const laggards = () => {
    const key = document.querySelector('[data-view-key]')?.getAttribute('data-view-key');
    return [...document.querySelectorAll('[data-component-id]')]
      .filter((cell) => cell.getAttribute('data-drawn-key') !== key || (cell.hasAttribute('data-total-rows') && !cell.querySelector('[data-chart-state="rendered"]')))
      .map((cell) => cell.getAttribute('data-component-id') + ' (drawn ' + cell.getAttribute('data-drawn-key') + ', chart ' + (cell.querySelector('[data-chart-state]')?.getAttribute('data-chart-state') ?? 'none') + ': ' + (cell.textContent || '').trim().slice(0, 80) + ')')
      .join('; ');
  };
  const timer = setTimeout(() => { observer.disconnect(); reject(new Error('not drawn after ${PAGE_TIMEOUT_MS} ms: ' + laggards())); }, ${PAGE_TIMEOUT_MS});
  const finish = (key) => requestAnimationFrame(() => {
    const ms = performance.now() - ${started};
    // A chart marks itself drawing in an effect after the commit: look from the next frame on.
    const poll = () => {
      if (!settled()) return requestAnimationFrame(poll);
      clearTimeout(timer);
      resolve({ ms, settledMs: performance.now() - ${started}, key });
    };
    requestAnimationFrame(poll);
  });
  const observer = new MutationObserver(() => {
    const key = drawn();
    if (key === null) return;
    observer.disconnect();
    finish(key);
  });
  const now = drawn();
  if (now !== null) finish(now);
  else observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-drawn-key', 'data-view-key'] });
})`;

/** Sets the filters in the address bar as a new history entry, then waits for every cell to draw them. */
const changeFilters = (filters: DashboardFilter[], previous: string) => `(() => {
  const started = performance.now();
  const url = new URL(location.href);
  const filters = ${JSON.stringify(JSON.stringify(filters))};
  if (filters === '[]') url.searchParams.delete('filters');
  else url.searchParams.set('filters', filters);
  history.pushState(history.state, '', url);
  dispatchEvent(new PopStateEvent('popstate', { state: history.state }));
  return ${whenDrawn(previous, 'started')};
})()`;

/** A V8 CPU profile of the page's measured changes, when `BENCH_BROWSER_CPU_PROF` names a folder. */
export interface PageProfiler {
  stop(): Promise<void>;
}

export async function startProfiler(page: Page): Promise<PageProfiler | null> {
  const traceDir = process.env.BENCH_BROWSER_TRACE;
  if (traceDir !== undefined && traceDir !== '') return startTrace(page, traceDir);
  const dir = process.env.BENCH_BROWSER_CPU_PROF;
  if (dir === undefined || dir === '') return null;
  const session = await page.context().newCDPSession(page);
  await session.send('Profiler.enable');
  await session.send('Profiler.setSamplingInterval', { interval: 200 });
  await session.send('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.send('Profiler.stop');
      const path = join(dir, `page-${Date.now()}.cpuprofile`);
      await writeFile(path, JSON.stringify(profile));
      process.stdout.write(`  the page's CPU profile: ${path}\n`);
    },
  };
}

/**
 * `BENCH_BROWSER_TRACE=<dir>`: a Chrome trace (the DevTools performance panel's categories) of the
 * measured changes instead, for the time a CPU profile shows only as "(program)": style, layout,
 * paint and raster. Open it in DevTools or sum its events by name.
 */
async function startTrace(page: Page, dir: string): Promise<PageProfiler> {
  const browser = page.context().browser();
  if (browser === null) throw new Error('BENCH_BROWSER_TRACE needs a launched browser');
  const categories = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink', 'cc', 'gpu'];
  await browser.startTracing(page, { categories });
  return {
    async stop() {
      const trace = await browser.stopTracing();
      const path = join(dir, `page-${Date.now()}.trace.json`);
      await writeFile(path, trace);
      process.stdout.write(`  the page's trace: ${path}\n`);
    },
  };
}

interface Drawn {
  ms: number;
  settledMs: number;
  key: string;
}

export interface BrowserFigures {
  /** Navigation start to every component drawn, unfiltered (ms). */
  firstPaintMs: number;
  /** Each filter change to every component showing the new data (ms). */
  changeMs: number[];
  /** Each filter change to every chart's transition animation finished (ms). */
  settledMs: number[];
  /** The components in sight once the page has drawn (those each change asks for and draws), in page order. */
  inSight: string[];
}

/** In the page: the ids of the components in sight (within 200 px of the window). */
const COMPONENTS_IN_SIGHT = `[...document.querySelectorAll('[data-component-id]')]
  .filter((cell) => !${OUT_OF_SIGHT}(cell))
  .map((cell) => cell.getAttribute('data-component-id'))`;

export async function measureDashboardInBrowser(
  browser: Browser,
  appUrl: string,
  session: Record<string, unknown>,
  dashboardId: string,
  /** The filter lists to apply, one after the other. */
  changes: DashboardFilter[][],
  /** How many of the first changes only warm up (not counted). */
  warmups: number,
): Promise<BrowserFigures> {
  const context = await signedInContext(browser, session);
  try {
    const page = await context.newPage();
    await page.goto(`${appUrl}/dashboards/${dashboardId}`);
    const first = (await page.evaluate(whenDrawn('\u0000', '0'))) as Drawn;
    const inSight = (await page.evaluate(COMPONENTS_IN_SIGHT)) as string[];
    let key = first.key;
    const changeMs: number[] = [];
    const settledMs: number[] = [];
    let profiler: PageProfiler | null = null;
    for (const [index, filters] of changes.entries()) {
      if (index === warmups) profiler = await startProfiler(page);
      const drawn = (await page.evaluate(changeFilters(filters, key))) as Drawn;
      key = drawn.key;
      if (index < warmups) continue;
      changeMs.push(drawn.ms);
      settledMs.push(drawn.settledMs);
    }
    await profiler?.stop();
    return { firstPaintMs: first.ms, changeMs, settledMs, inSight };
  } finally {
    await context.close();
  }
}
