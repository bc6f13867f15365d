import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeBrowser,
  expectAccessible,
  launchBrowser,
  openPage,
  saveScreenshot,
  startWebServer,
} from '../../test/support/browser.js';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  login,
  type TestServer,
  uploadFile,
} from '../../test/support/test-server.js';
import { counted, penguins, renderedFigure, speciesSelect } from './support/e2e-dashboards.js';

/**
 * Tabs in the browser (docs/dashboards.md "Tabs"): each with its icon or colour, the address bar
 * names the open tab, only its components are asked for, and a filter set on one tab narrows every tab. 30 penguins, species
 * in turn Adelie, Gentoo, Chinstrap: a species filter leaves 10.
 */

let browser: Browser;
let server: TestServer;
let token: string;

/** A project of 30 penguins with its table built. */
async function builtPenguins(title: string) {
  const project = await createProjectWithUpload(server, token, title, penguins(30));
  const built = await call(server, 'POST', '/deltatables/upsert', {
    token,
    json: { data_collection_id: project.collectionId },
  });
  expect(built.status, built.text).toBe(200);
  return project;
}

describeBrowser('dashboard tabs in a real browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer({ SERVICE_AUTH_PUBLIC_MODE: 'true' });
    ({ access_token: token } = await login(server, ADMIN.email, ADMIN.password));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('opens the tab the address names, asks only for its components, and filters across tabs', async () => {
    const project = await createProjectWithUpload(server, token, 'Tabbed survey', penguins(30));
    expect(await uploadFile(server, token, project.collectionId, { path: 't.csv', content: penguins(30) })).toBe(201);
    const built = await call(server, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: project.collectionId },
    });
    expect(built.status, built.text).toBe(200);
    const dc = project.collectionId;
    const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: project.projectId,
        title: 'Survey in tabs',
        is_public: true,
        tabs: [
          { tab_id: 'overview', title: 'Overview', color: '#2f9e44' },
          { tab_id: 'masses', title: 'Masses', icon: 'chart-bar', color: '#1971c2' },
        ],
        components: [
          speciesSelect(dc),
          { component_id: 'count', type: 'card', title: 'Penguins counted', data_collection_id: dc, agg: 'count' },
          {
            component_id: 'heavy',
            type: 'card',
            title: 'Heaviest',
            tab_id: 'masses',
            data_collection_id: dc,
            column: 'mass',
            agg: 'max',
          },
          {
            component_id: 'masses-count',
            type: 'card',
            title: 'Penguins weighed',
            tab_id: 'masses',
            data_collection_id: dc,
            agg: 'count',
          },
        ],
      },
    });
    expect(dashboard.status, dashboard.text).toBe(201);
    const path = `/dashboards/${dashboard.body.dashboard_id}`;
    const { context, page } = await openPage(browser, server, path);
    const asked: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith(`${path}/data`)) asked.push(request.postDataJSON());
    });
    await page.getByRole('heading', { level: 1, name: 'Survey in tabs' }).waitFor();
    const tabs = page.getByRole('tablist', { name: 'Dashboard tabs' });
    expect(await tabs.getByRole('tab').allTextContents()).toEqual(['Overview', 'Masses']);
    expect(await tabs.getByRole('tab', { name: 'Overview' }).getAttribute('aria-selected')).toBe('true');
    // A tab's icon is drawn before its title, in its colour; a tab with a colour and no icon has a dot.
    const icon = tabs.getByRole('tab', { name: 'Masses' }).locator('svg[data-tab-icon="chart-bar"]');
    expect(await icon.isVisible()).toBe(true);
    expect(await icon.getAttribute('stroke')).toBe('#1971c2');
    expect(await icon.getAttribute('aria-hidden')).toBe('true');
    expect(await tabs.getByRole('tab', { name: 'Overview' }).locator('svg').count()).toBe(0);
    expect(await tabs.getByRole('tab', { name: 'Overview' }).locator('.dashboard-tab-mark').isVisible()).toBe(true);
    await counted(page, 'Penguins counted', '30');
    expect(await page.getByRole('region', { name: 'Heaviest' }).count()).toBe(0);

    // A filter set on the first tab…
    await page.getByRole('region', { name: 'Species', exact: true }).locator('input:not([type=hidden])').click();
    await page.getByRole('option', { name: 'Gentoo' }).click();
    await counted(page, 'Penguins counted', '10');
    // …narrows the second, whose chips show it too; the address names the tab.
    asked.length = 0;
    await tabs.getByRole('tab', { name: 'Masses' }).click();
    await page.waitForURL((url) => url.searchParams.get('tab') === 'masses');
    await counted(page, 'Penguins weighed', '10');
    // Gentoo are the 2nd, 5th, … 29th penguins: the heaviest weighs 3,000 + 28·100 g.
    await counted(page, 'Heaviest', '5,800');
    await page.getByRole('region', { name: 'Active filters' }).getByText('Species: Gentoo').waitFor();
    expect(await page.getByRole('region', { name: 'Penguins counted' }).count()).toBe(0);
    expect(asked).toContainEqual(expect.objectContaining({ tab_id: 'masses' }));
    expect(asked.every((body) => (body as { tab_id?: string }).tab_id === 'masses')).toBe(true);
    await saveScreenshot(page, 'dashboard-tabs');
    await expectAccessible(page, 'dashboard tabs');

    // A link opens the tab it names, with its filters; Back returns to the previous tab.
    await page.goBack();
    await page.waitForURL((url) => url.searchParams.get('tab') === null);
    await counted(page, 'Penguins counted', '10');
    const link = `${path}?tab=masses&filters=${encodeURIComponent('[{"component_id":"species","value":["Adelie"]}]')}`;
    await page.goto(`${server.url}${link}`);
    await counted(page, 'Penguins weighed', '10');
    await counted(page, 'Heaviest', '5,700');
    // Keyboard: the arrow keys move between tabs.
    await tabs.getByRole('tab', { name: 'Masses' }).focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Enter');
    await counted(page, 'Penguins counted', '10');
    await context.close();
  });

  it("keeps an opened tab's charts drawn: opening it again draws only what changed", async () => {
    const project = await builtPenguins('Tabs kept drawn');
    const figure = { type: 'figure', data_collection_id: project.collectionId } as const;
    const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: project.projectId,
        title: 'Kept drawn',
        is_public: true,
        tabs: [
          { tab_id: 'kinds', title: 'Kinds' },
          { tab_id: 'weights', title: 'Weights' },
        ],
        components: [
          { ...figure, component_id: 'by-species', title: 'By species', chart: 'bar', x: 'species' },
          { ...figure, component_id: 'by-mass', title: 'By mass', chart: 'scatter', x: 'mass', y: 'mass' },
          {
            ...figure,
            component_id: 'mass-hist',
            title: 'Mass histogram',
            tab_id: 'weights',
            chart: 'histogram',
            x: 'mass',
          },
          { ...speciesSelect(project.collectionId), tab_id: 'weights' },
        ],
      },
    });
    expect(dashboard.status, dashboard.text).toBe(201);
    const path = `/dashboards/${dashboard.body.dashboard_id}`;
    const { context, page } = await openPage(browser, server, path);
    // Each chart's draws, counted from here on: `data-chart-state` leaves "drawing" once a draw ends.
    await page.evaluate(`(() => {
      window.__draws = {};
      new MutationObserver((records) => {
        for (const record of records) {
          if (record.oldValue !== 'drawing') continue;
          const id = record.target.closest('[data-component-id]')?.getAttribute('data-component-id');
          window.__draws[id] = (window.__draws[id] ?? 0) + 1;
        }
      }).observe(document, { subtree: true, attributes: true, attributeOldValue: true, attributeFilter: ['data-chart-state'] });
    })()`);
    await renderedFigure(page, 'By species');
    await renderedFigure(page, 'By mass');
    const tabs = page.getByRole('tablist', { name: 'Dashboard tabs' });
    const draws = async () => (await page.evaluate('JSON.stringify(window.__draws)')) as string;
    const openTab = async (title: string, tabId: string) => {
      const answered = page.waitForResponse(
        (response) =>
          response.url().endsWith(`${path}/data`) &&
          (response.request().postDataJSON() as { tab_id?: string } | null)?.tab_id === tabId,
      );
      await tabs.getByRole('tab', { name: title }).click();
      // The request has started (the cells wait for it from then on)…
      await answered;
      // …and every cell of the tab has its answer, and the page's tasks queued by then (React's
      // effects, where a chart draws) have run. Not an animation frame: a page out of sight gets none.
      await expect
        .poll(() => page.locator('.dashboard-grid:not([hidden]) [data-state="loading"]').count(), { timeout: 10_000 })
        .toBe(0);
      await page.evaluate('new Promise((resolve) => setTimeout(() => setTimeout(resolve, 0), 0))');
    };

    await openTab('Weights', 'weights');
    await renderedFigure(page, 'Mass histogram');
    await page.evaluate('window.__draws = {}');
    // Back on the first tab, with the same filters: the same answers, and no chart draws again.
    await openTab('Kinds', 'kinds');
    expect(await page.getByRole('region', { name: 'By species', exact: true }).locator('canvas').count()).toBe(1);
    expect(await draws()).toBe('{}');
    await openTab('Weights', 'weights');
    expect(await draws()).toBe('{}');

    // A filter set on the second tab: the first tab's charts draw the narrowed rows when it opens again.
    await page.getByRole('region', { name: 'Species', exact: true }).locator('input:not([type=hidden])').click();
    await page.getByRole('option', { name: 'Gentoo' }).click();
    const rows = (name: string) =>
      page.getByRole('region', { name, exact: true }).locator('[data-chart-rows]').getAttribute('data-chart-rows');
    await expect.poll(() => rows('Mass histogram')).toBe('10');
    await openTab('Kinds', 'kinds');
    await expect.poll(() => rows('By species')).toBe('10');
    await expect.poll(() => rows('By mass')).toBe('10');
    const drawnOf = async (id: string) => (JSON.parse(await draws()) as Record<string, number>)[id] ?? 0;
    await expect.poll(() => drawnOf('by-species')).toBeGreaterThan(0);
    await expect.poll(() => drawnOf('by-mass')).toBeGreaterThan(0);
    await context.close();
  });

  it('keeps each chart in place while new filters are on their way', async () => {
    const project = await builtPenguins('Charts in place');
    const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: project.projectId,
        title: 'In place',
        is_public: true,
        components: [
          {
            component_id: 'by-species',
            type: 'figure',
            title: 'By species',
            data_collection_id: project.collectionId,
            chart: 'bar',
            x: 'species',
          },
          speciesSelect(project.collectionId),
        ],
      },
    });
    expect(dashboard.status, dashboard.text).toBe(201);
    const path = `/dashboards/${dashboard.body.dashboard_id}`;
    const { context, page } = await openPage(browser, server, path);
    await renderedFigure(page, 'By species');
    const chart = page.getByRole('region', { name: 'By species', exact: true }).locator('.figure-chart');
    const before = await chart.boundingBox();
    // The next answer is held until the cell has shown that it is updating.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(`**${path}/data`, async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('region', { name: 'Species', exact: true }).locator('input:not([type=hidden])').click();
    await page.getByRole('option', { name: 'Gentoo' }).click();
    await page.getByRole('status', { name: 'Updating By species' }).waitFor();
    // A spinner above the chart shrank it, then let it grow back: two layouts and drawings of it each time.
    expect(await chart.boundingBox()).toEqual(before);
    release();
    await expect.poll(() => chart.getAttribute('data-chart-rows')).toBe('10');
    expect(await chart.boundingBox()).toEqual(before);
    await context.close();
  });

  it('adds, renames, moves into and deletes tabs in edit mode, and saves them', async () => {
    const project = await createProjectWithUpload(server, token, 'Tab editing', penguins(3));
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: project.projectId,
        title: 'To be tabbed',
        components: [
          { component_id: 'intro', type: 'text', title: 'Intro', markdown: 'Hello' },
          { component_id: 'notes', type: 'text', title: 'Notes', markdown: 'Later' },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.dashboard_id;
    const session = await login(server, ADMIN.email, ADMIN.password);
    const { context, page } = await openPage(browser, server, `/dashboards/${id}?edit=1`, { session });
    const tabsGroup = page.getByRole('group', { name: 'Tabs' });
    await tabsGroup.getByRole('button', { name: 'Add tabs' }).click();
    const tabList = tabsGroup.getByRole('tablist', { name: 'Dashboard tabs' });
    expect(await tabList.getByRole('tab').allTextContents()).toEqual(['Tab 1', 'Tab 2']);
    // The new tab is open, and empty; the address names it.
    await page.getByText('This tab has no components yet').waitFor();
    await page.waitForURL((url) => url.searchParams.get('tab') === 'tab-2');
    await tabsGroup.getByRole('textbox', { name: 'Tab title' }).fill('Details');
    await tabsGroup.getByLabel('Tab icon', { exact: true }).fill('micro');
    await page.getByRole('option', { name: 'microscope' }).click();
    await tabList.getByRole('tab', { name: 'Details' }).locator('svg[data-tab-icon="microscope"]').waitFor();
    await tabList.getByRole('tab', { name: 'Tab 1' }).click();
    await page.getByRole('button', { name: 'Move Notes to another tab' }).click();
    await page.getByRole('menuitem', { name: 'Details' }).click();
    await page.getByRole('region', { name: 'Notes' }).waitFor({ state: 'detached' });
    await expectAccessible(page, 'tabs in edit mode');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'To be tabbed' }).waitFor();
    const saved = await call<{ tabs: unknown[]; components: { component_id: string; tab_id?: string }[] }>(
      server,
      'GET',
      `/dashboards/${id}`,
      { token },
    );
    expect(saved.body.tabs).toEqual([
      { tab_id: 'tab-1', title: 'Tab 1' },
      { tab_id: 'tab-2', title: 'Details', icon: 'microscope' },
    ]);
    expect(saved.body.components.map((component) => [component.component_id, component.tab_id])).toEqual([
      ['intro', 'tab-1'],
      ['notes', 'tab-2'],
    ]);

    // Deleting a tab that holds components asks where they go.
    await page.goto(`${server.url}/dashboards/${id}?edit=1&tab=tab-2`);
    await page.getByRole('region', { name: 'Notes' }).waitFor();
    await page.getByRole('group', { name: 'Tabs' }).getByRole('button', { name: 'Delete tab' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the tab “Details”?' });
    await dialog.getByRole('radio', { name: 'Move them to “Tab 1”' }).check();
    await dialog.getByRole('button', { name: 'Delete tab' }).click();
    await page.getByRole('region', { name: 'Notes' }).waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'To be tabbed' }).waitFor();
    const after = await call<{ tabs: unknown[]; components: { tab_id?: string }[] }>(
      server,
      'GET',
      `/dashboards/${id}`,
      {
        token,
      },
    );
    expect(after.body.tabs).toEqual([{ tab_id: 'tab-1', title: 'Tab 1' }]);
    expect(after.body.components.map((component) => component.tab_id)).toEqual(['tab-1', 'tab-1']);
    await context.close();
  });
});
