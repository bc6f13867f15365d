/**
 * The `dashboard` benchmark's tabbed part over HTTP (issue 29): the 6-tab, 90-component dashboard
 * (dashboard-tabs-data.ts) made on the same table, then `POST /dashboards/{id}/data {tab_id}` as
 * the web app asks for the open tab: the first request (of the first tab, unfiltered, JSON: none
 * of its components computed yet), the other tabs computed ahead by the server (waited for, not
 * timed against a request), then requests streamed (NDJSON) taking the tabs in turn, each
 * with the next filters of the random walk; and once, the whole dashboard in one request (no
 * `tab_id`) with the walk's next filters, to show what asking for one tab saves.
 */
import type { DashboardFilter } from '@service/common';
import { field } from './collection-fixture.js';
import type { Fixture } from './dashboard-report.js';
import { dataClient } from './dashboard-requests.js';
import { type BenchTab, tabbedBenchDashboard } from './dashboard-tabs-data.js';
import { closeConnections, requestJson } from './ingest-http.js';

const PROGRESS_EVERY = 20;

type Out = (line?: string) => void;

export interface TabServerFigures {
  /** The first request of the first tab, unfiltered, as JSON (ms). */
  coldMs: number;
  /** From its answer until the server has computed the other tabs ahead (ms). */
  aheadMs: number;
  /** Each tab request, to its first component's line and to the whole answer (ms). */
  firstMs: number[];
  allMs: number[];
  /** The whole dashboard (every tab) in one request, once (ms; NaN when it failed). */
  wholeMs: number;
  failures: string[];
}

/** Makes the tabbed dashboard in the fixture's project; answers its id and its tabs. */
export async function createTabbedDashboard(api: string, token: string, fixture: Fixture, title: string) {
  const { definition, tabs } = tabbedBenchDashboard(fixture.collectionId);
  const dashboard = await requestJson('POST', `${api}/dashboards`, {
    token,
    body: { project_id: fixture.projectId, title, ...definition },
  });
  closeConnections();
  return {
    dashboardId: field<string>(dashboard, 'dashboard_id', 'POST /dashboards'),
    tabs,
    componentIds: definition.components.map((component) => component.component_id),
  };
}

/**
 * The tab requests, over one keep-alive connection: `changes` holds one filter list per request
 * and one more for the whole dashboard's.
 */
export async function measureTabRequests(
  url: string,
  token: string,
  dashboard: { tabs: readonly BenchTab[]; componentIds: readonly string[] },
  changes: readonly DashboardFilter[][],
  out: Out,
  /** Resolves once the server has computed what the first request made it compute ahead. */
  settle: () => Promise<void>,
): Promise<TabServerFigures> {
  const { tabs, componentIds } = dashboard;
  const scope = (tab: BenchTab) => ({ tabId: tab.tabId, expected: tab.componentIds });
  const client = dataClient(url, token, componentIds);
  try {
    const [first] = tabs;
    if (first === undefined) throw new Error('the tabbed dashboard has no tabs');
    const cold = await client.json([], scope(first));
    if (cold.failure !== null) throw new Error(`the first POST /data of a tab failed: ${cold.failure}`);
    const settling = performance.now();
    await settle();
    const aheadMs = performance.now() - settling;
    const figures: TabServerFigures = {
      coldMs: cold.ms,
      aheadMs,
      firstMs: [],
      allMs: [],
      wholeMs: Number.NaN,
      failures: [],
    };
    const requests = changes.slice(0, -1);
    out(`${requests.length} requests of one tab, the tabs in turn, each with the next filters of the walk ...`);
    for (const [index, filters] of requests.entries()) {
      const tab = tabs[index % tabs.length] as BenchTab;
      const timing = await client.ndjson(filters, scope(tab));
      if (timing.failure !== null) {
        figures.failures.push(`request ${index + 1}, tab ${tab.tabId} ${JSON.stringify(filters)}: ${timing.failure}`);
        continue;
      }
      figures.firstMs.push(timing.firstMs);
      figures.allMs.push(timing.ms);
      if ((index + 1) % PROGRESS_EVERY === 0) out(`  ${index + 1} done, ${figures.failures.length} failed`);
    }
    const whole = await client.json(changes.at(-1) ?? []);
    if (whole.failure === null) figures.wholeMs = whole.ms;
    else figures.failures.push(`the whole dashboard in one request: ${whole.failure}`);
    return figures;
  } finally {
    client.close();
  }
}
