/**
 * What the `dashboard` benchmark measured, printed: the tables, where DuckDB's time went, and one
 * PASS or MISS line per target (dashboard.ts runs it).
 */
import { printVerdicts } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';
import { formatTable } from '../lib/table.js';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

const TARGET_SERVER_P95_MS = 300;
const TARGET_BASELINE_RATIO = 1.5;
const TARGET_BROWSER_P95_MS = 500;
const TARGET_PEAK_RSS_BYTES = 1.5 * GIB;

export interface Fixture {
  rows: number;
  projectId: string;
  collectionId: string;
  parquetBytes: number;
}

export interface ServerFigures {
  coldMs: number;
  warmMs: number[];
  firstMs: number[];
  allMs: number[];
  baselineMs: number[];
  statements: number[];
  /** DuckDB alone's milliseconds per kind of statement (its first words), over all changes. */
  byStatement: Map<string, number>;
  failures: string[];
  /** Native copies ready after the cold request, and how long after it they were. */
  copies: { count: number; ms: number };
}

type Out = (line?: string) => void;
const fixed = (value: number, digits: number) => value.toFixed(digits);
const grouped = (value: number) => value.toLocaleString('en-US').replaceAll(',', ' ');

export function report(
  out: Out,
  run: {
    rows: number;
    fixture: Fixture;
    figures: ServerFigures;
    browserMs: number[];
    browserSettledMs: number[];
    browserFirstMs: number;
    peakBytes: number | null;
    withBrowser: boolean;
  },
): void {
  const { figures } = run;
  const row = (name: string, values: number[], against: number[] | null) => [
    name,
    String(values.length),
    fixed(median(values), 1),
    fixed(percentile(values, 0.95), 1),
    fixed(Math.max(...values), 1),
    against === null ? '' : `${fixed(percentile(values, 0.95) / percentile(against, 0.95), 2)}x`,
  ];
  out();
  out(`table: ${grouped(run.rows)} rows, ${fixed(run.fixture.parquetBytes / MIB, 0)} MiB of Parquet`);
  out(`first POST /data after start (cold, JSON): ${fixed(figures.coldMs, 1)} ms`);
  out(`the same again (warm, from the answer cache): median ${fixed(median(figures.warmMs), 1)} ms`);
  out(
    `native copies ready (built in the background after the first request): ${figures.copies.count}, ` +
      `${fixed(figures.copies.ms / 1000, 1)} s after the warm requests`,
  );
  out();
  const rows = [
    row('baseline: DuckDB alone, the same statements back to back', figures.baselineMs, null),
    row('filter change, POST /data (NDJSON) to the first component', figures.firstMs, null),
    row('filter change, POST /data (NDJSON) to every component', figures.allMs, figures.baselineMs),
  ];
  if (run.withBrowser && run.browserMs.length > 0) {
    rows.push(row('browser: filter change to every component showing the new data', run.browserMs, null));
    rows.push(row("browser: the same to every chart's animation finished", run.browserSettledMs, null));
  }
  out(formatTable(['ms', 'n', 'p50', 'p95', 'max', 'p95 x baseline'], rows));
  out(
    `failures: ${figures.failures.length} of ${figures.failures.length + figures.allMs.length}; ` +
      `statements per change (median): ${median(figures.statements)}`,
  );
  for (const failure of figures.failures.slice(0, 5)) out(`  ${failure}`);
  const total = [...figures.byStatement.values()].reduce((sum, ms) => sum + ms, 0);
  out("where DuckDB alone's time went (statement kinds, share of its total):");
  for (const [kind, ms] of [...figures.byStatement].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
    out(`  ${fixed((100 * ms) / total, 0).padStart(3)}%  ${kind}`);
  }
  if (run.withBrowser)
    out(`browser: first paint of every component ${fixed(run.browserFirstMs, 0)} ms after navigation`);
  out(`server peak resident memory: ${run.peakBytes === null ? '?' : `${fixed(run.peakBytes / MIB, 0)} MiB`}`);
  out();
}

export function verdicts(
  out: Out,
  figures: ServerFigures,
  browserMs: number[],
  peakBytes: number | null,
  withBrowser: boolean,
  /** More lines, judged with these (the tabbed dashboard's). */
  more: [boolean, string][] = [],
): void {
  const p95 = percentile(figures.allMs, 0.95);
  const baselineP95 = percentile(figures.baselineMs, 0.95);
  const list: [boolean, string][] = [
    [p95 < TARGET_SERVER_P95_MS, `server p95 per filter change < ${TARGET_SERVER_P95_MS} ms: ${fixed(p95, 1)} ms`],
    [
      p95 <= TARGET_BASELINE_RATIO * baselineP95,
      `server p95 <= ${TARGET_BASELINE_RATIO}x DuckDB alone's p95: ${fixed(p95, 1)} ms against ` +
        `${fixed(baselineP95, 1)} ms (${fixed(p95 / baselineP95, 2)}x)`,
    ],
    [
      figures.failures.length === 0,
      `no failed answer: ${figures.failures.length} of ${figures.failures.length + figures.allMs.length}`,
    ],
    [
      peakBytes !== null && peakBytes < TARGET_PEAK_RSS_BYTES,
      `server peak RSS < 1.5 GiB: ${peakBytes === null ? 'unknown' : `${fixed(peakBytes / GIB, 2)} GiB`}`,
    ],
  ];
  if (withBrowser) {
    const browserP95 = percentile(browserMs, 0.95);
    list.push([
      browserP95 < TARGET_BROWSER_P95_MS,
      `browser p95 filter change to every component redrawn < ${TARGET_BROWSER_P95_MS} ms: ${fixed(browserP95, 0)} ms`,
    ]);
  }
  printVerdicts(out, [...list, ...more]);
}
