/**
 * The browser part of `field-charts` (field-charts.ts): a dashboard of one chart of each new kind
 * over the items, its filter changes redrawn in Chromium, beside the same dashboard's answers
 * timed from Node (the server's part); `BENCH_FIELD_PER_KIND=1` also each kind alone
 * (`BENCH_FIELD_PER_KIND=sankey,sunburst`: those alone, and not the 22 together).
 */
import type { DashboardFilter } from '@service/common';
import type { Browser } from 'playwright-core';
import type { ChildWorker } from '../lib/child-worker.js';
import { median } from '../lib/stats.js';
import { type BenchCollection, createBenchDashboard } from './collection-fixture.js';
import { launchChromium, measureDashboardInBrowser } from './dashboard-browser.js';
import { dataClient } from './dashboard-requests.js';
import type { DashboardTargetMessage } from './dashboard-target.js';
import { everyKindComponents, rangeWalk } from './field-charts-data.js';

const BROWSER_WARMUPS = 3;

type Server = ChildWorker<DashboardTargetMessage>;

/** A component as the benchmark's dashboards list them (field-charts-data.ts). */
type BenchComponent = { component_id: string };

/** The browser part's figures: each redraw, and the server's part of them. */
export interface BrowserPart {
  /** Each filter change of the 22-kind dashboard in Chromium, to every component in sight redrawn (ms). */
  redraws: number[];
  /** The components in sight at the bench's window: those each change asks for and draws. */
  inSight: string[];
  /** Those components' streamed answers to as many other changes, from Node (ms): the server's part of a redraw. */
  inSightAnswers: number[];
}

/** The 22-kind dashboard's redraws in Chromium (none when `BENCH_FIELD_PER_KIND` names kinds alone). */
export async function inBrowser(
  server: Server,
  collection: BenchCollection,
  api: string,
  changes: number,
): Promise<BrowserPart | null> {
  const browser = await launchChromium();
  try {
    const redraws = async (components: BenchComponent[], title: string) => {
      const dashboardId = await createBenchDashboard(api, collection, title, components);
      const answered = await answersAlone(server, api, collection, dashboardId, components, changes, 29);
      const { redrawn, inSight } = await redrawsOf(browser, server, collection, dashboardId, changes);
      return { dashboardId, redrawn, answered, inSight };
    };
    const alone = perKindFromEnv();
    if (alone !== null) await perKind(redraws, alone);
    if (alone !== null && alone.size > 0) return null;
    const components = everyKindComponents();
    const { dashboardId, redrawn, answered, inSight } = await redraws(components, 'every new kind');
    process.stdout.write(
      `  the same dashboard's answers alone (other filters, from Node): p50 ${median(answered).toFixed(0)} ms\n`,
    );
    const inSightAnswers = await answersAlone(server, api, collection, dashboardId, components, changes, 31, inSight);
    return { redraws: redrawn, inSight, inSightAnswers };
  } finally {
    await browser.close();
  }
}

async function redrawsOf(
  browser: Browser,
  server: Server,
  collection: BenchCollection,
  dashboardId: string,
  changes: number,
): Promise<{ redrawn: number[]; inSight: string[] }> {
  const walk = rangeWalk('score', 0, 1, 23);
  const filters = Array.from({ length: BROWSER_WARMUPS + changes }, walk);
  const measured = await measureDashboardInBrowser(
    browser,
    server.url,
    collection.session,
    dashboardId,
    filters,
    BROWSER_WARMUPS,
  );
  if (process.env.BENCH_FIELD_EACH === '1') printEach(measured.changeMs, filters.slice(BROWSER_WARMUPS));
  return { redrawn: measured.changeMs, inSight: measured.inSight };
}

/** `BENCH_FIELD_EACH=1`: each measured change's redraw and its range, to tell a slow filter from a slow host. */
function printEach(ms: readonly number[], filters: readonly DashboardFilter[][]) {
  const ranges = filters.map((filter) => JSON.stringify(filter[0]?.value ?? null));
  process.stdout.write(
    `  each change (ms, range): ${ms.map((one, at) => `${one.toFixed(0)} ${ranges[at]}`).join(', ')}\n`,
  );
}

/**
 * The server alone: the dashboard's streamed answer (of the components `only` names, when given)
 * to as many other filter changes (another walk, of seed `seed`, so that no run finds another's
 * answers cached), from Node: the part of a redraw that is not the browser's.
 */
async function answersAlone(
  server: Server,
  api: string,
  collection: BenchCollection,
  dashboardId: string,
  components: BenchComponent[],
  changes: number,
  seed: number,
  only?: readonly string[],
): Promise<number[]> {
  const ids = components.map((component) => component.component_id);
  const client = dataClient(`${api}/dashboards/${dashboardId}/data`, collection.token, ids, only);
  const walk = rangeWalk('score', 0, 1, seed);
  try {
    const ms: number[] = [];
    for (let index = 0; index < BROWSER_WARMUPS + changes; index += 1) {
      const timing = await client.ndjson(walk());
      if (timing.failure !== null) throw new Error(`POST /data: ${timing.failure}`);
      if (index >= BROWSER_WARMUPS) ms.push(timing.ms);
      // The copies the first answer asked for (the plots' own among them) built before anything is
      // timed, as for the parts above: built during the changes, they doubled the first ones.
      if (index === 0) await settled(server);
    }
    return ms;
  } finally {
    client.close();
  }
}

type Redraws = (
  components: BenchComponent[],
  title: string,
) => Promise<{ redrawn: number[]; answered: number[]; inSight: string[] }>;

/**
 * `BENCH_FIELD_PER_KIND`: `1`, every kind alone before the 22 together (an empty set); a list of
 * component ids (`sankey,sunburst`), only those (a probe of one kind, profiled alone); else null.
 */
function perKindFromEnv(): ReadonlySet<string> | null {
  const value = process.env.BENCH_FIELD_PER_KIND ?? '';
  if (value === '' || value === '0') return null;
  return new Set(value === '1' ? [] : value.split(',').map((id) => id.trim()));
}

/** Each kind (of `only`, unless empty) alone on a dashboard (with the range filter), its redraws printed: which kind costs what. */
async function perKind(redraws: Redraws, only: ReadonlySet<string>) {
  const components = everyKindComponents();
  const filter = components.filter((component) => !('chart' in component));
  const charts = components.filter((candidate) => 'chart' in candidate);
  for (const component of charts.filter((chart) => only.size === 0 || only.has(chart.component_id))) {
    const { redrawn, answered } = await redraws([component, ...filter], component.component_id);
    process.stdout.write(
      `  ${component.component_id} alone: redraw p50 ${median(redrawn).toFixed(0)} ms, max ${Math.max(...redrawn).toFixed(0)} ms; its answer alone p50 ${median(answered).toFixed(0)} ms\n`,
    );
  }
}

/** Waits until the native copies the server was asked for are built (dashboard-target.ts `settle`). */
async function settled(server: Server): Promise<void> {
  const answer = await server.ask({ type: 'settle' });
  if (answer.type !== 'settled') throw new Error(`server: unexpected ${answer.type}`);
}
