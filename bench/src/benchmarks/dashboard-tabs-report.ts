/**
 * The `dashboard` benchmark's tabbed part, printed (dashboard-tabs.ts, dashboard-tabs-browser.ts):
 * its table, the comparison with the 11-component dashboard, and its verdicts, in the style of
 * dashboard-report.ts.
 */
import { median, percentile } from '../lib/stats.js';
import { formatTable } from '../lib/table.js';
import type { TabServerFigures } from './dashboard-tabs.js';
import type { TabBrowserFigures } from './dashboard-tabs-browser.js';

const TARGET_TAB_SERVER_P95_MS = 300;
const TARGET_TAB_SWITCH_P95_MS = 600;

type Out = (line?: string) => void;
const fixed = (value: number, digits: number) => value.toFixed(digits);

const row = (name: string, values: number[]) => [
  name,
  String(values.length),
  fixed(median(values), 1),
  fixed(percentile(values, 0.95), 1),
  fixed(Math.max(...values), 1),
];

export function reportTabs(
  out: Out,
  tabs: TabServerFigures,
  /** The 11-component dashboard's filter changes, every component (ms). */
  elevenMs: number[],
  browser: TabBrowserFigures | null,
): void {
  out('6 tabs x 15 components (90) on the same table:');
  out(`first POST /data of a tab (cold: none of its components computed yet, JSON): ${fixed(tabs.coldMs, 1)} ms`);
  out(`then the other tabs computed ahead by the server, in idle time: ${fixed(tabs.aheadMs, 0)} ms`);
  const rows = [
    row('one tab, POST /data (NDJSON) to the first component', tabs.firstMs),
    row('one tab, POST /data (NDJSON) to every component', tabs.allMs),
    row('for comparison: the 11-component dashboard, every component', elevenMs),
  ];
  if (browser !== null) {
    rows.push(row('browser: tab click to every component of the tab drawn', browser.switchMs));
    rows.push(row("browser: the same to every chart's animation finished", browser.settledMs));
  }
  out(formatTable(['ms', 'n', 'p50', 'p95', 'max'], rows));
  out(
    `one tab against one 11-component request: p50 ${fixed(median(tabs.allMs) / median(elevenMs), 2)}x, ` +
      `p95 ${fixed(percentile(tabs.allMs, 0.95) / percentile(elevenMs, 0.95), 2)}x (15 components against 11)`,
  );
  out(
    `the whole dashboard (90 components, no tab_id) in one request, once: ${fixed(tabs.wholeMs, 1)} ms ` +
      `(${fixed(tabs.wholeMs / median(tabs.allMs), 1)}x one tab's p50)`,
  );
  out(`failures: ${tabs.failures.length} of ${tabs.failures.length + tabs.allMs.length + 1}`);
  for (const failure of tabs.failures.slice(0, 5)) out(`  ${failure}`);
  if (browser !== null) {
    out(
      `browser: first paint of every component of the first tab ${fixed(browser.firstPaintMs, 0)} ms after navigation`,
    );
    out(`browser: cells that answered an error: ${browser.errors.length === 0 ? 'none' : browser.errors.join(', ')}`);
  }
  out();
}

/** The tabbed part's PASS or MISS lines, for dashboard-report.ts's `verdicts`. */
export function tabVerdicts(tabs: TabServerFigures, browser: TabBrowserFigures | null): [boolean, string][] {
  const p95 = percentile(tabs.allMs, 0.95);
  const list: [boolean, string][] = [
    [
      p95 < TARGET_TAB_SERVER_P95_MS,
      `server p95 per tab request < ${TARGET_TAB_SERVER_P95_MS} ms: ${fixed(p95, 1)} ms`,
    ],
    [
      tabs.failures.length === 0,
      `no failed tab answer: ${tabs.failures.length} of ${tabs.failures.length + tabs.allMs.length + 1}`,
    ],
  ];
  if (browser !== null) {
    const switchP95 = percentile(browser.switchMs, 0.95);
    list.push([
      switchP95 < TARGET_TAB_SWITCH_P95_MS && browser.errors.length === 0,
      `browser p95 tab switch to every component drawn < ${TARGET_TAB_SWITCH_P95_MS} ms: ${fixed(switchP95, 0)} ms` +
        (browser.errors.length === 0 ? '' : `, ${browser.errors.length} cells answered an error`),
    ]);
  }
  return list;
}
