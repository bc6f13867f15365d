import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { type DataAnswer, projectWithTable, serverWithPeople } from './analytics-table.js';

/**
 * Tabs computed ahead (docs/dashboards.md "Tabs"): once a reader has opened a tab unfiltered, the
 * dashboard's other tabs are computed into the answer cache in idle time, so the next tab opened
 * is answered without computing anything; filtered views and chosen components are not; nothing starts while a request
 * runs; `SERVICE_DASHBOARD_WARM_TABS=false` turns it off. Read through the answer cache's misses.
 */

const tabs = [
  { tab_id: 'overview', title: 'Overview' },
  { tab_id: 'details', title: 'Details' },
  { tab_id: 'more', title: 'More' },
];
const components = (collection: string) => [
  { component_id: 'species', type: 'interactive', data_collection_id: collection, widget: 'select', column: 'species' },
  { component_id: 'count', type: 'card', data_collection_id: collection, agg: 'count' },
  // Each card its own aggregate: equal definitions would share one answer.
  {
    component_id: 'details-mass',
    type: 'card',
    tab_id: 'details',
    data_collection_id: collection,
    agg: 'sum',
    column: 'mass',
  },
  {
    component_id: 'by-island',
    type: 'figure',
    tab_id: 'details',
    data_collection_id: collection,
    chart: 'bar',
    x: 'island',
  },
  {
    component_id: 'more-mass',
    type: 'card',
    tab_id: 'more',
    data_collection_id: collection,
    agg: 'max',
    column: 'mass',
  },
];

async function tabbedServer(dialect: 'sqlite' | 'postgres', env: Record<string, string> = {}) {
  const people = await serverWithPeople(dialect, env);
  const ada = await people.session('ada@example.org');
  /** A dashboard on a table of its own: answers are shared by equal components over the same table. */
  const dashboard = async (title: string) => {
    const { projectId, collectionId } = await projectWithTable(people.server, ada.access_token, title);
    const created = await call<{ dashboard_id: string }>(people.server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: projectId, title, tabs, components: components(collectionId) },
    });
    expect(created.status, created.text).toBe(201);
    return created.body.dashboard_id;
  };
  return { server: people.server, ada, dashboard };
}

/** Asks for one tab's data; answers it with the answer cache's misses it caused. */
async function openTab(server: TestServer, session: Session, dashboardId: string, json: Record<string, unknown>) {
  const before = server.context.dashboardAnswers.stats().misses;
  const answer = await call<DataAnswer>(server, 'POST', `/dashboards/${dashboardId}/data`, {
    token: session.access_token,
    json,
  });
  expect(answer.status, answer.text).toBe(200);
  return { components: answer.body.components, misses: server.context.dashboardAnswers.stats().misses - before };
}

describeEachDialect('tabs computed ahead', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let dashboard: (title: string) => Promise<string>;

  beforeAll(async () => {
    ({ server, ada, dashboard } = await tabbedServer(dialect));
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('computes the other tabs once one is opened unfiltered: the next tab computes nothing', async () => {
    const id = await dashboard('Warmed');
    const before = server.context.dashboardAnswers.stats().misses;
    const first = await openTab(server, ada, id, { tab_id: 'overview' });
    expect(first.components.count).toMatchObject({ value: 120 });
    await server.context.tabWarmer.idle();
    // The overview's 2 components, then the details' 2 and the other tab's 1, computed ahead.
    expect(server.context.dashboardAnswers.stats().misses - before).toBe(5);
    const details = await openTab(server, ada, id, { tab_id: 'details' });
    expect(details.misses).toBe(0);
    // 120 × 3000 + 10 × (0 + … + 119)
    expect(details.components['details-mass']).toMatchObject({ value: 431_400 });
    expect(Object.keys(details.components).sort()).toEqual(['by-island', 'details-mass']);
    const more = await openTab(server, ada, id, { tab_id: 'more' });
    expect(more.misses).toBe(0);
    expect(more.components['more-mass']).toMatchObject({ value: 4190 });
    await server.context.tabWarmer.idle();
  });

  it('computes nothing ahead for a filtered view or chosen components', async () => {
    const id = await dashboard('Filtered');
    const filters = [{ component_id: 'species', value: ['Adelie'] }];
    await openTab(server, ada, id, { tab_id: 'overview', filters });
    await openTab(server, ada, id, { tab_id: 'overview', components: ['count'] });
    await server.context.tabWarmer.idle();
    const details = await openTab(server, ada, id, { tab_id: 'details', filters });
    expect(details.misses).toBe(2);
    // The 60 Adelie: 60 × 3000 + 10 × (0 + … + 59)
    expect(details.components['details-mass']).toMatchObject({ value: 197_700 });
    // The chosen components' request warmed nothing either.
    expect((await openTab(server, ada, id, { tab_id: 'more', components: ['more-mass'] })).misses).toBe(1);
    await server.context.tabWarmer.idle();
  });

  it('waits while a request runs on the replica', async () => {
    const { requestWork, tabWarmer } = server.context;
    const running = await requestWork.admit('user:tab-warming-test');
    const ran: string[] = [];
    tabWarmer.schedule('waits', async (gate) => {
      await gate();
      ran.push('waits');
    });
    // Several turns of the event loop: a warming not waiting for the gate would have run by now.
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual([]);
    running.finish();
    await tabWarmer.idle();
    expect(ran).toEqual(['waits']);
    expect(tabWarmer.stats.failed).toBe(0);
  });

  // Last: the warmer stays closed.
  it('stops waiting, and drops what is queued, at close', async () => {
    const { requestWork, tabWarmer } = server.context;
    const running = await requestWork.admit('user:tab-warming-close');
    const ran: string[] = [];
    for (const key of ['first', 'second']) {
      tabWarmer.schedule(key, async (gate) => {
        await gate();
        ran.push(key);
      });
    }
    await tabWarmer.close();
    running.finish();
    await tabWarmer.idle();
    expect(ran).toEqual([]);
  });
});

describe('tabs computed ahead, turned off', () => {
  let server: TestServer;
  let ada: Session;
  let dashboard: (title: string) => Promise<string>;

  beforeAll(async () => {
    ({ server, ada, dashboard } = await tabbedServer('sqlite', { SERVICE_DASHBOARD_WARM_TABS: 'false' }));
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('computes the next tab when it opens', async () => {
    const id = await dashboard('Cold');
    const before = server.context.dashboardAnswers.stats().misses;
    await openTab(server, ada, id, { tab_id: 'overview' });
    await server.context.tabWarmer.idle();
    expect(server.context.dashboardAnswers.stats().misses - before).toBe(2);
    expect((await openTab(server, ada, id, { tab_id: 'details' })).misses).toBe(2);
  });
});
