/**
 * The `gallery` benchmark's page loads in Chromium: the gallery's thumbnails watched from before
 * the page's first script (each `load`, the frame after the first and the last), Resource Timing of
 * what came before them, and paging on (gallery.ts runs them and reports).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type PageProfiler, startProfiler } from './dashboard-browser.js';

/** Thumbnails a gallery page shows. */
export const PAGE_SIZE = 24;
/** Pages clicked through after the first. */
export const PAGES_ON = 5;

/**
 * Set in every page before its scripts: each gallery image's `load` counted, and the frame after
 * the first and the last one timed (ms from navigation start). Full images are left out.
 */
const PAINT_WATCH = `window.__gallery = { loads: 0, first: null, last: null, clickAt: null };
document.addEventListener('load', (event) => {
  const image = event.target;
  if (!(image instanceof HTMLImageElement) || image.dataset.imageSize !== 'thumbnail') return;
  const watch = window.__gallery;
  watch.loads += 1;
  requestAnimationFrame(() => {
    const now = performance.now();
    if (watch.first === null) watch.first = now;
    watch.last = now;
  });
}, true);`;

interface Watch {
  loads: number;
  first: number | null;
  last: number | null;
  clickAt: number | null;
}

/** Waits until `count` thumbnails have loaded and been painted; answers the page's watch. */
async function painted(page: Page, count: number): Promise<Watch> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const watch = (await page.evaluate('window.__gallery')) as Watch;
    if (watch.loads >= count && watch.last !== null) return watch;
    if (Date.now() > deadline) throw new Error(`${watch.loads} of ${count} thumbnails painted after 60 s`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

export interface Load {
  first: number;
  last: number;
  /** The gallery's page load only: when its requests went and came back (ms from navigation start). */
  steps?: Steps;
}

/** Resource Timing of a gallery load: where the time before the first thumbnail went. */
export interface Steps {
  appScript: number;
  dataAsked: number;
  dataAnswered: number;
  thumbnailAsked: number;
  thumbnailAnswered: number;
}

/** The page's Resource Timing as `Steps` (NaN for what it lacks). */
const STEPS = `(() => {
  const entries = performance.getEntriesByType('resource');
  const first = (match) => entries.filter((entry) => match(new URL(entry.name))).sort((a, b) => a.startTime - b.startTime)[0];
  const script = first((url) => /^\\/assets\\/index-.*\\.js$/.test(url.pathname));
  const data = first((url) => url.pathname.endsWith('/data'));
  const thumbnail = first((url) => url.searchParams.get('size') === 'thumbnail');
  return {
    appScript: script?.responseEnd ?? NaN,
    dataAsked: data?.startTime ?? NaN,
    dataAnswered: data?.responseEnd ?? NaN,
    thumbnailAsked: thumbnail?.startTime ?? NaN,
    thumbnailAnswered: thumbnail?.responseEnd ?? NaN,
  };
})()`;

/**
 * `url` opened in a fresh context (empty cache) with the session stored (none: signed out), the
 * thumbnails watched (`PAINT_WATCH`) and every image request noted in `requests`.
 */
async function openWatched(
  browser: Browser,
  url: string,
  session: string | null,
  requests: string[],
  profiled = false,
): Promise<{ context: BrowserContext; page: Page; profiler: PageProfiler | null }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  try {
    if (session !== null)
      await context.addInitScript(`sessionStorage.setItem('service.session', ${JSON.stringify(session)})`);
    await context.addInitScript(PAINT_WATCH);
    const page = await context.newPage();
    page.on('request', (request) => {
      if (request.url().includes('/images/')) requests.push(request.url());
    });
    const profiler = profiled ? await startProfiler(page) : null;
    await page.goto(url);
    return { context, page, profiler };
  } catch (error) {
    await context.close();
    throw error;
  }
}

/**
 * One page load in a fresh context: navigation start to the first and the last of 24 thumbnails
 * painted. `profiled`: the page's V8 CPU profile of the load, when `BENCH_BROWSER_CPU_PROF` names a folder.
 */
export async function loadOnce(
  browser: Browser,
  url: string,
  session: string | null,
  requests: string[],
  profiled = false,
): Promise<Load> {
  const { context, page, profiler } = await openWatched(browser, url, session, requests, profiled);
  try {
    const watch = await painted(page, PAGE_SIZE);
    await profiler?.stop();
    const load = { first: watch.first ?? 0, last: watch.last ?? 0 };
    return session === null ? load : { ...load, steps: (await page.evaluate(STEPS)) as Steps };
  } finally {
    await context.close();
  }
}

/** Scrolls the gallery and the page to the bottom, then pages on five times: each click to its page painted (ms). */
export async function scrollAndPage(
  browser: Browser,
  url: string,
  session: string,
  requests: string[],
): Promise<number[]> {
  const { context, page } = await openWatched(browser, url, session, requests);
  try {
    await painted(page, PAGE_SIZE);
    await page.evaluate(`(() => {
      const list = document.querySelector('ul.image-gallery');
      if (list) list.scrollTop = list.scrollHeight;
      window.scrollTo(0, document.body.scrollHeight);
    })()`);
    const times: number[] = [];
    for (let next = 2; next <= PAGES_ON + 1; next++) {
      await page.evaluate(`(() => {
        const watch = window.__gallery;
        watch.loads = 0; watch.first = null; watch.last = null; watch.clickAt = performance.now();
        const picker = document.querySelector('[aria-label="Gallery pages"]');
        const button = [...(picker?.querySelectorAll('button') ?? [])].find((each) => each.textContent === '${next}');
        if (!button) throw new Error('no button for page ${next}');
        button.click();
      })()`);
      const watch = await painted(page, PAGE_SIZE);
      times.push((watch.last ?? 0) - (watch.clickAt ?? 0));
    }
    return times;
  } finally {
    await context.close();
  }
}
