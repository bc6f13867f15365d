/**
 * What `field-charts` prints once everything is measured: each part's first answer, its filter
 * changes against DuckDB alone on the same statements (the ratio of the p95s), and the verdicts
 * against the targets.
 */
import { printVerdicts } from '../lib/report.js';
import { median, percentile } from '../lib/stats.js';
import type { BrowserPart } from './field-charts-browser.js';

export type Out = (line?: string) => void;

/** A Manhattan answer sends at most this many points. */
export const POINT_BUDGET = 20_000;

/** One part: its dashboard, its first answer, each filter change and DuckDB alone on that change's statements. */
export interface Measured {
  dashboardId: string;
  firstMs: number;
  changeMs: number[];
  baselineMs: number[];
}

export interface FieldFigures {
  manhattan: Measured;
  /** What the checked Manhattan answers got wrong (none when every significant variant was sent). */
  problems: string[];
  upset: Measured;
  heatmap: Measured;
  coverage: Measured;
  /** Browser redraws after each filter change, with the server's part of them (null without the browser part). */
  browser: BrowserPart | null;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const p95 = (values: number[]) => percentile(values, 0.95);

/** Prints one part's figures as soon as it is measured; answers its p95 ratio to DuckDB alone. */
export function printMeasured(out: Out, name: string, m: Measured): number {
  const ratio = p95(m.changeMs) / p95(m.baselineMs);
  out(`${name}: first answer ${ms(m.firstMs)}`);
  out(
    `  ${m.changeMs.length} filter changes: p50 ${ms(median(m.changeMs))}, p95 ${ms(p95(m.changeMs))}; ` +
      `DuckDB alone on the same statements: p50 ${ms(median(m.baselineMs))}, p95 ${ms(p95(m.baselineMs))}; ` +
      `ratio (p95) ${ratio.toFixed(2)}x`,
  );
  return ratio;
}

/** `name` p95 below `target` ms, with its ratio to DuckDB alone. */
function under(name: string, m: Measured, ratio: number, target: number): [boolean, string] {
  return [p95(m.changeMs) < target, `${name} p95 ${ms(p95(m.changeMs))} < ${target} ms (${ratio.toFixed(2)}x DuckDB)`];
}

/** Part names as printed, from the run's sizes. */
export function partNames(sizes: {
  variants: number;
  items: number;
  features: number;
  samples: number;
  length: number;
}) {
  const count = (value: number) => value.toLocaleString('en-US');
  return {
    manhattan: `Manhattan, ${count(sizes.variants)} variants`,
    upset: `UpSet, 20 sets over ${count(sizes.items)} items`,
    heatmap: `clustered heatmap, ${count(sizes.features)} features × ${sizes.samples} samples (1,000 most variable)`,
    coverage: `coverage, ${count(sizes.length)} positions × ${sizes.samples} samples (${count(sizes.length * sizes.samples)} rows)`,
  };
}

/** The browser's redraws and the verdicts, once every part was measured (and printed). */
export function reportFieldCharts(out: Out, figures: FieldFigures): void {
  const { manhattan, problems, upset, heatmap, coverage, browser } = figures;
  const ratio = (m: Measured) => p95(m.changeMs) / p95(m.baselineMs);
  const [manhattanRatio = 0, upsetRatio = 0, heatmapRatio = 0, coverageRatio = 0] = [
    manhattan,
    upset,
    heatmap,
    coverage,
  ].map(ratio);
  out();
  out(
    `Manhattan: points sent ≤ ${POINT_BUDGET} with every variant below 5e-8: ${problems.length === 0 ? 'yes' : problems.join('; ')}`,
  );
  if (browser !== null) printBrowser(out, browser);
  out();
  const verdicts: [boolean, string][] = [
    [p95(manhattan.changeMs) < 500, `Manhattan p95 ${ms(p95(manhattan.changeMs))} < 500 ms`],
    [manhattanRatio <= 1.5, `Manhattan p95 ${manhattanRatio.toFixed(2)}x DuckDB alone ≤ 1.5x`],
    [problems.length === 0, 'Manhattan: ≤ 20,000 points, every significant variant present'],
    under('UpSet', upset, upsetRatio, 300),
    under('clustered heatmap', heatmap, heatmapRatio, 400),
    under('coverage', coverage, coverageRatio, 300),
  ];
  if (browser !== null) {
    const { redraws } = browser;
    verdicts.push([
      p95(redraws) < 800,
      `browser redraw p95 ${ms(p95(redraws))} < 800 ms (${browserRatio(browser).toFixed(2)}x their answers from Node)`,
    ]);
  }
  printVerdicts(out, verdicts);
}

/**
 * The redraws beside their baseline: the answers of the components in sight alone, from Node (the
 * server's part, on the same host in the same run); the ratio is what the page adds.
 */
function printBrowser(out: Out, browser: BrowserPart) {
  const { redraws, inSight, inSightAnswers } = browser;
  out(
    `browser, one of each new kind, ${redraws.length} filter changes: p50 ${ms(median(redraws))}, p95 ${ms(p95(redraws))}`,
  );
  out(
    `  the ${inSight.length} components in sight (${inSight.join(', ')}) answered alone from Node: ` +
      `p50 ${ms(median(inSightAnswers))}, p95 ${ms(p95(inSightAnswers))}; ratio (p95) ${browserRatio(browser).toFixed(2)}x`,
  );
}

/** The redraws' p95 over their components' answers' p95: what the page adds to the server's part. */
const browserRatio = ({ redraws, inSightAnswers }: BrowserPart) => p95(redraws) / p95(inSightAnswers);
