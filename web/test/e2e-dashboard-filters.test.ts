import type { Browser, Page } from 'playwright-core';
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
import { counted as countedCard, drawn, penguins } from './support/e2e-dashboards.js';

let browser: Browser;
let server: TestServer;
let token: string;

/** Rows the figure in cell `name` was computed from (those matching the filters), once its chart has drawn them. */
async function chartRows(page: Page, name: string): Promise<string | null> {
  const cell = page.getByRole('region', { name, exact: true });
  // A chart out of sight draws once scrolled to.
  await cell.scrollIntoViewIfNeeded();
  if ((await cell.getAttribute('data-state')) !== 'ready') return null;
  if ((await cell.locator('[data-chart-state="rendered"]').count()) === 0) return null;
  return cell.getAttribute('data-total-rows');
}

/**
 * Clicks the first bar of the bar chart in cell `name`. ECharts draws on a canvas, so the test
 * moves along it, low enough to cross the bars, until ECharts shows the pointer of a clickable item.
 */
async function clickABar(page: Page, name: string): Promise<void> {
  const selector = `section[aria-label=${JSON.stringify(name)}] canvas`;
  const box = await page.locator(selector).first().boundingBox();
  if (box === null) throw new Error(`${name} has no canvas`);
  const cursor = `getComputedStyle(document.querySelector(${JSON.stringify(selector)})).cursor`;
  const y = box.y + box.height * 0.75;
  for (let x = box.x + 4; x < box.x + box.width; x += 6) {
    await page.mouse.move(x, y);
    if ((await page.evaluate(cursor)) === 'pointer') {
      await page.mouse.click(x, y);
      return;
    }
  }
  throw new Error(`no bar found across ${name}`);
}

/** Waits until the count card reads `count`. */
const counted = (page: Page, count: number) => countedCard(page, 'Penguins counted', count);

describeBrowser('dashboard filters in a real browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer({ SERVICE_AUTH_PUBLIC_MODE: 'true' });
    ({ access_token: token } = await login(server, ADMIN.email, ADMIN.password));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function upsert(collectionId: string, csv: string) {
    expect(await uploadFile(server, token, collectionId, { path: 't.csv', content: csv })).toBe(201);
    const answer = await call(server, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: collectionId },
    });
    expect(answer.status, answer.text).toBe(200);
  }

  it('filters every component by a slider, shows chips, keeps them across a reload, and travels back in time', async () => {
    const project = await createProjectWithUpload(server, token, 'Penguin survey', penguins(30));
    await upsert(project.collectionId, penguins(30));
    const dc = project.collectionId;
    const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: project.projectId,
        title: 'Penguin filters',
        is_public: true,
        components: [
          {
            component_id: 'mass',
            type: 'interactive',
            title: 'Body mass',
            data_collection_id: dc,
            widget: 'range',
            column: 'mass',
          },
          { component_id: 'count', type: 'card', title: 'Penguins counted', data_collection_id: dc, agg: 'count' },
          {
            component_id: 'bars',
            type: 'figure',
            title: 'By species',
            data_collection_id: dc,
            chart: 'bar',
            x: 'species',
          },
          {
            component_id: 'hist',
            type: 'figure',
            title: 'Mass histogram',
            data_collection_id: dc,
            chart: 'histogram',
            x: 'mass',
            bins: 5,
          },
          { component_id: 'rows', type: 'table', title: 'Rows', data_collection_id: dc },
        ],
        layout: [
          { component_id: 'mass', x: 0, y: 0, w: 4, h: 3 },
          { component_id: 'count', x: 4, y: 0, w: 4, h: 3 },
          { component_id: 'bars', x: 0, y: 3, w: 6, h: 6 },
          { component_id: 'hist', x: 6, y: 3, w: 6, h: 6 },
          { component_id: 'rows', x: 0, y: 9, w: 12, h: 8 },
        ],
      },
    });
    expect(dashboard.status, dashboard.text).toBe(201);
    const path = `/dashboards/${dashboard.body.dashboard_id}`;
    const { context, page } = await open(path);
    await page.getByRole('heading', { level: 1, name: 'Penguin filters' }).waitFor();
    await counted(page, 30);
    await page.getByRole('region', { name: 'Rows' }).getByText('30 rows').waitFor();
    await expect.poll(() => chartRows(page, 'Mass histogram')).toBe('30');

    // A click on a bar filters the others by its species: ten penguins of each.
    await clickABar(page, 'By species');
    const chip = page
      .getByRole('region', { name: 'Active filters' })
      .getByText(/^By species: (Adelie|Gentoo|Chinstrap)$/);
    await chip.waitFor();
    await counted(page, 10);
    await expect.poll(() => chartRows(page, 'Mass histogram')).toBe('10');
    await page.getByRole('region', { name: 'Rows' }).getByText('10 rows').waitFor();
    await page.getByRole('button', { name: `Remove filter ${await chip.textContent()}` }).click();
    await counted(page, 30);

    // Two steps left on the upper thumb: 5,900 g is out; each step is one committed change.
    const upper = page.getByRole('slider', { name: 'Body mass to' });
    await upper.focus();
    await upper.press('ArrowLeft');
    await upper.press('ArrowLeft');
    await counted(page, 29);
    await page.getByRole('region', { name: 'Active filters' }).getByText('Body mass: ≤ 5,898').waitFor();
    await expect.poll(() => chartRows(page, 'By species')).toBe('29');
    // The table's second page comes from the rows route, under the same filter: 29 rows, 25 a page.
    const rows = page.getByRole('table', { name: 'Rows' }).locator('tbody tr');
    await page.getByLabel('Rows pages').getByRole('button', { name: '2' }).click();
    await expect.poll(() => rows.count()).toBe(4);
    // The lower bound typed: 4,000 g to 5,898 g holds 19 penguins.
    const lower = page.getByRole('textbox', { name: 'Body mass from' });
    await lower.fill('4000');
    await lower.press('Enter');
    await counted(page, 19);
    await page.getByRole('region', { name: 'Active filters' }).getByText('Body mass: 4,000–5,898').waitFor();
    await page.getByRole('region', { name: 'Rows' }).getByText('19 rows').waitFor();
    // New filters start the table again at its first page.
    await expect.poll(() => rows.count()).toBe(19);
    await drawn(page);

    // A reload (or the link shared) opens the same view.
    expect(new URL(page.url()).searchParams.get('filters')).toBe('[{"component_id":"mass","value":[4000,5898]}]');
    await page.reload();
    await counted(page, 19);
    await page.getByRole('region', { name: 'Active filters' }).getByText('Body mass: 4,000–5,898').waitFor();
    expect(await page.getByRole('slider', { name: 'Body mass from' }).getAttribute('aria-valuenow')).toBe('4000');
    await drawn(page);
    await expectAccessible(page, 'filtered dashboard');

    // Back undoes the last committed change.
    await page.goBack();
    await counted(page, 29);
    await page.getByRole('button', { name: 'Clear all' }).click();
    await counted(page, 30);
    expect(await page.getByRole('region', { name: 'Active filters' }).count()).toBe(0);

    // New data: the page shows it live, and the version picker shows the dashboard as before.
    await upsert(dc, penguins(45));
    await page.reload();
    await counted(page, 45);
    await page.getByLabel('Data as of', { exact: true }).first().click();
    const versions = page.getByRole('option');
    await versions.nth(2).waitFor();
    await page.getByRole('option', { name: /v0/ }).click();
    await counted(page, 30);
    await page
      .getByRole('status', { name: 'Time travel' })
      .getByText(/Viewing the data as of/)
      .waitFor();
    expect(new URL(page.url()).searchParams.get('as_of')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    await drawn(page);
    await saveScreenshot(page, 'dashboard-time-travel');
    await page.getByRole('button', { name: 'Back to live' }).click();
    await counted(page, 45);
    await drawn(page);

    await expectAccessible(page, 'dashboard, light');
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    // The toggle's tooltip, shown in a portal while the pointer rests on it, is not the page.
    await page.mouse.move(0, 0);
    await page.getByRole('tooltip').waitFor({ state: 'detached' });
    await expectAccessible(page, 'dashboard, dark');
    await context.close();
  }, 120_000);
});

const open = (path: string) => openPage(browser, server, path, { height: 1400, timeout: 20_000 });
