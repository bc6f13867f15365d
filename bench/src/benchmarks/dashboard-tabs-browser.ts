/**
 * The `dashboard` benchmark's tab switches in Chromium (issue 29): the 90-component dashboard
 * opened on its first tab, then tabs clicked in the tab list (`role=tablist` "Dashboard tabs"),
 * each timed in the page from the click to every component of the new tab drawn.
 *
 * "Drawn" is dashboard-browser.ts's: the cell carries the grid's `data-view-key` in
 * `data-drawn-key`, the time taken at the next animation frame, and `settledMs` once ECharts says
 * every chart has finished. A tab switch keeps the filters, so the view key does not change, and a
 * cell mounts "ready" before its request starts (it then shows the data of an earlier visit, or
 * nothing): a cell counts only once it has been seen waiting for this visit's data
 * (`data-state="loading"`) and is no longer. An observer installed before the page's first script
 * notes those waits, so the first paint is judged the same way.
 */
import type { Browser } from 'playwright-core';
import { CHARTS_RENDERED, PAGE_TIMEOUT_MS, signedInContext } from './dashboard-browser.js';
import type { BenchTab } from './dashboard-tabs-data.js';
import { generator } from './ingest-data.js';

/** Notes, from the document's start, every cell seen waiting for its data into `window.__benchWaited`. */
const NOTE_WAITS = `(() => {
  window.__benchWaited = new Set();
  const note = (cell) => window.__benchWaited.add(cell.getAttribute('data-component-id'));
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === 'attributes' && record.oldValue === 'loading') note(record.target);
    }
    for (const cell of document.querySelectorAll('[data-component-id][data-state="loading"]')) note(cell);
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeOldValue: true, attributeFilter: ['data-state'] });
})()`;

/**
 * Answers (in the page) when the cells shown are exactly `ids`, each seen waiting since
 * `window.__benchWaited` was made and now drawn: `{ms, settledMs, errors}` from `started`, `errors`
 * naming the cells that answered an error. On a timeout, names the cells still missing.
 */
const whenTabDrawn = (ids: readonly string[], started: string) => `new Promise((resolve, reject) => {
  const wanted = new Set(${JSON.stringify(ids)});
  // Tabs opened before keep their grids, hidden: the open tab's cells are those of the shown grid.
  const cells = () => [...document.querySelectorAll('.dashboard-grid:not([hidden]) [data-component-id]')];
  const done = (cell) => {
    const key = document.querySelector('[data-view-key]')?.getAttribute('data-view-key');
    const id = cell.getAttribute('data-component-id');
    return wanted.has(id) && window.__benchWaited.has(id) && cell.getAttribute('data-state') !== 'loading' && cell.getAttribute('data-drawn-key') === key;
  };
  const drawn = () => {
    const shown = cells();
    return shown.length === wanted.size && shown.every(done);
  };
  const settled = () => ${CHARTS_RENDERED};
  const laggards = () => cells()
    .filter((cell) => !done(cell))
    .map((cell) => cell.getAttribute('data-component-id') + ' (' + cell.getAttribute('data-state') + ', ' + (window.__benchWaited.has(cell.getAttribute('data-component-id')) ? 'waited' : 'never waited') + ')')
    .join('; ') + ' of ' + cells().length + ' cells shown, ' + wanted.size + ' wanted';
  const timer = setTimeout(() => { observer.disconnect(); reject(new Error('tab not drawn after ${PAGE_TIMEOUT_MS} ms: ' + laggards())); }, ${PAGE_TIMEOUT_MS});
  const finish = () => requestAnimationFrame(() => {
    const ms = performance.now() - ${started};
    const errors = cells().filter((cell) => cell.getAttribute('data-state') === 'error').map((cell) => cell.getAttribute('data-component-id'));
    const poll = () => {
      if (!settled()) return requestAnimationFrame(poll);
      clearTimeout(timer);
      resolve({ ms, settledMs: performance.now() - ${started}, errors });
    };
    requestAnimationFrame(poll);
  });
  const observer = new MutationObserver(() => {
    if (!drawn()) return;
    observer.disconnect();
    finish();
  });
  if (drawn()) finish();
  else observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state', 'data-drawn-key', 'data-view-key'] });
})`;

/** Clicks the tab titled `title` in the tab list, then waits for its components (`ids`) to draw. */
const switchTab = (title: string, ids: readonly string[]) => `(() => {
  const tab = [...document.querySelectorAll('[role="tablist"][aria-label="Dashboard tabs"] [role="tab"]')]
    .find((candidate) => candidate.textContent.trim() === ${JSON.stringify(title)});
  if (!tab) throw new Error('no tab titled ' + ${JSON.stringify(title)});
  window.__benchWaited = new Set();
  const started = performance.now();
  tab.click();
  return ${whenTabDrawn(ids, 'started')};
})()`;

interface TabDrawn {
  ms: number;
  settledMs: number;
  errors: string[];
}

export interface TabBrowserFigures {
  /** Navigation start to every component of the first tab drawn (ms). */
  firstPaintMs: number;
  /** Each click on a tab to every component of that tab drawn (ms). */
  switchMs: number[];
  /** The same to every chart's animation finished (ms). */
  settledMs: number[];
  /** Cells that answered an error, as `tab: component`. */
  errors: string[];
}

/** `count` tab indexes after the first tab, seeded, none the same as the one before it. */
export function tabOrder(tabCount: number, count: number, seed: number): number[] {
  const next = generator(seed);
  const order: number[] = [];
  let open = 0;
  while (order.length < count) {
    // One of the other tabs, uniformly: a step of 1..tabCount-1 from the open one.
    open = (open + 1 + (next() % (tabCount - 1))) % tabCount;
    order.push(open);
  }
  return order;
}

export async function measureTabsInBrowser(
  browser: Browser,
  appUrl: string,
  session: Record<string, unknown>,
  dashboardId: string,
  tabs: readonly BenchTab[],
  /** The tabs to click, by index, one after the other (the first tab is open at the start). */
  order: readonly number[],
): Promise<TabBrowserFigures> {
  const context = await signedInContext(browser, session);
  try {
    await context.addInitScript(NOTE_WAITS);
    const page = await context.newPage();
    const [first] = tabs;
    if (first === undefined) throw new Error('the dashboard has no tabs');
    await page.goto(`${appUrl}/dashboards/${dashboardId}`);
    const opened = (await page.evaluate(whenTabDrawn(first.componentIds, '0'))) as TabDrawn;
    const figures: TabBrowserFigures = { firstPaintMs: opened.ms, switchMs: [], settledMs: [], errors: [] };
    const noteErrors = (tab: BenchTab, drawn: TabDrawn) =>
      figures.errors.push(...drawn.errors.map((id) => `${tab.tabId}: ${id}`));
    noteErrors(first, opened);
    for (const index of order) {
      const tab = tabs[index];
      if (tab === undefined) throw new Error(`no tab ${index}`);
      const drawn = (await page.evaluate(switchTab(tab.title, tab.componentIds))) as TabDrawn;
      figures.switchMs.push(drawn.ms);
      figures.settledMs.push(drawn.settledMs);
      noteErrors(tab, drawn);
    }
    return figures;
  } finally {
    await context.close();
  }
}
