import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedExampleData } from '../../server/src/examples/seed.js';
import {
  describeBrowser,
  expectAccessible,
  launchBrowser,
  openPage,
  type StoredSession,
  saveScreenshot,
  startWebServer,
  submitPasswordSignIn,
} from '../../test/support/browser.js';
import { ADMIN, call, createUser, login, type TestServer } from '../../test/support/test-server.js';

const EXAMPLE_PROJECT = 'Example: Palmer penguins';
const EXAMPLE_DASHBOARD = 'Penguins at a glance';
const FIELD_DASHBOARD = "The field's charts";
const ADA = { email: 'ada@example.org', password: 'ada@example.org-password' };

let browser: Browser;
let server: TestServer;
let ada: StoredSession;
let adaDashboardId: string;

const open = (path: string, options: { width?: number; session?: StoredSession } = {}) =>
  openPage(browser, server, path, { height: 900, timeout: 20_000, ...options });

/** The screen checked by axe-core as it is, then in the other theme (the header's button switches). */
async function expectAccessibleInBothThemes(page: Page, screen: string): Promise<void> {
  await expectAccessible(page, `${screen}, light`);
  await switchTheme(page, 'dark');
  await expectAccessible(page, `${screen}, dark`);
  await switchTheme(page, 'light');
}

/** Clicks the header's theme button, then leaves it, so its tooltip is gone before axe looks. */
async function switchTheme(page: Page, to: 'dark' | 'light'): Promise<void> {
  await page.getByRole('button', { name: `Switch to ${to} theme` }).click();
  await page.getByRole('button', { name: `Switch to ${to === 'dark' ? 'light' : 'dark'} theme` }).waitFor();
  await page.mouse.move(0, 600);
  await page.getByRole('tooltip').waitFor({ state: 'detached' });
}

/** The first column's cells of the Dashboards table, as shown. */
async function dashboardTitles(page: Page): Promise<string[]> {
  const cells = await page
    .getByRole('table', { name: 'Dashboards' })
    .locator('tbody tr td:first-child')
    .allTextContents();
  return cells.map((cell) => cell.replace(/public$/, '').trim());
}

/** Waits until the Dashboards table lists exactly `titles`, in this order. */
async function expectTitles(page: Page, titles: string[]): Promise<void> {
  await expect.poll(() => dashboardTitles(page), { timeout: 15_000 }).toEqual(titles);
}

describeBrowser('a newcomer in a real browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer();
    // What `service serve --example-data` loads at start: the public example, two runs of it.
    expect(await seedExampleData(server.context)).toBe('created');
    const admin = await login(server, ADMIN.email, ADMIN.password);
    ada = await createUser(server, admin.access_token, ADA.email);
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token: ada.access_token,
      json: { name: 'Zoo nests' },
    });
    for (const title of ['Nest counts', 'Adelie chicks']) {
      const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
        token: ada.access_token,
        json: { project_id: project.body.project_id, title },
      });
      expect(dashboard.status).toBe(201);
      adaDashboardId = dashboard.body.dashboard_id;
    }
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('lands on the home page after sign-in: the example project, recent dashboards, a search by name', async () => {
    const { context, page } = await open('/');
    await submitPasswordSignIn(page, ADA.email, ADA.password);
    await page.waitForURL((url) => url.pathname === '/home');
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    const projects = page.getByRole('region', { name: 'Example and public projects' });
    await projects.getByRole('link', { name: EXAMPLE_PROJECT }).waitFor();
    const recent = page.getByRole('region', { name: 'Recently updated dashboards' });
    await recent.getByRole('link', { name: EXAMPLE_DASHBOARD }).waitFor();
    await recent.getByRole('link', { name: 'Nest counts' }).waitFor();
    await saveScreenshot(page, 'home');
    await expectAccessibleInBothThemes(page, 'home');

    const search = page.getByRole('searchbox', { name: 'Search projects and dashboards' });
    await search.fill('GLANCE');
    const found = page.getByRole('region', { name: 'Dashboards found' });
    await found.getByRole('link', { name: EXAMPLE_DASHBOARD }).waitFor();
    await page.getByRole('region', { name: 'Projects found' }).getByText('No project name contains').waitFor();
    expect(await found.getByRole('link').allTextContents()).toEqual([EXAMPLE_DASHBOARD, 'All dashboards']);
    await search.fill('nest');
    await page.getByRole('region', { name: 'Projects found' }).getByRole('link', { name: 'Zoo nests' }).waitFor();
    await found.getByRole('link', { name: 'Nest counts' }).click();
    await page.getByRole('heading', { level: 1, name: 'Nest counts' }).waitFor();
    await context.close();
  });

  it('lists dashboards with their project and owner, sorted and searched', async () => {
    const { context, page } = await open('/dashboards', { session: ada });
    const table = page.getByRole('table', { name: 'Dashboards' });
    await table.getByRole('link', { name: EXAMPLE_DASHBOARD }).waitFor();
    const example = table.getByRole('row', { name: new RegExp(EXAMPLE_DASHBOARD) });
    await example.getByRole('link', { name: EXAMPLE_PROJECT }).waitFor();
    // A public dashboard's readers who are not its members see no email of its owners.
    await example.getByRole('cell', { name: '—', exact: true }).waitFor();
    const nests = table.getByRole('row', { name: /Nest counts/ });
    await nests.getByRole('link', { name: 'Zoo nests' }).waitFor();
    await nests.getByText(ADA.email).waitFor();

    const sortBy = page.getByRole('combobox', { name: 'Sort by' });
    await sortBy.selectOption('title');
    await expectTitles(page, ['Adelie chicks', 'Nest counts', EXAMPLE_DASHBOARD, FIELD_DASHBOARD]);
    await sortBy.selectOption('project');
    await expectTitles(page, [EXAMPLE_DASHBOARD, FIELD_DASHBOARD, 'Adelie chicks', 'Nest counts']);
    await page.waitForURL(/sort=project/);
    await page.getByRole('searchbox', { name: 'Search dashboards' }).fill('Penguins');
    await expectTitles(page, [EXAMPLE_DASHBOARD]);
    await page.waitForURL(/q=Penguins/);
    await page.getByRole('searchbox', { name: 'Search dashboards' }).fill('no such title');
    await page.getByText('No dashboard title contains “no such title”.').waitFor();
    await page.getByRole('searchbox', { name: 'Search dashboards' }).fill('');
    await expectTitles(page, [EXAMPLE_DASHBOARD, FIELD_DASHBOARD, 'Adelie chicks', 'Nest counts']);
    await expectAccessibleInBothThemes(page, 'dashboards list');
    await context.close();
  });

  it('at 390 px keeps the header usable and says edit mode needs a wider screen', async () => {
    const { context, page } = await open('/home', { width: 390, session: ada });
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    const theme = page.getByRole('button', { name: 'Switch to dark theme' });
    const box = await theme.boundingBox();
    expect(box && box.x + box.width).toBeLessThanOrEqual(390);
    await theme.click();
    await page.getByRole('button', { name: 'Switch to light theme' }).click();
    await page.getByRole('button', { name: 'Switch to dark theme' }).waitFor();
    // Nothing wider than the screen: the page never scrolls sideways.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.getByRole('button', { name: `Account menu for ${ADA.email}` }).waitFor();

    await page.goto(`${server.url}/dashboards/${adaDashboardId}?edit=1`);
    const notice = page.getByRole('status').filter({ hasText: 'Editing needs a wider screen' });
    await notice.waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await expectAccessibleInBothThemes(page, 'edit mode on a phone');
    await notice.getByRole('button', { name: 'Back to the dashboard' }).click();
    await page.waitForURL((url) => !url.search.includes('edit'));
    await page.getByRole('heading', { level: 1, name: 'Adelie chicks' }).waitFor();
    await context.close();
  });

  it("travels back in the example's versions, to the second, and says when a table had no data yet", async () => {
    const { context, page } = await open('/dashboards', { session: ada });
    await page.getByRole('link', { name: EXAMPLE_DASHBOARD }).click();
    await page.getByRole('heading', { level: 1, name: EXAMPLE_DASHBOARD }).waitFor();
    await page.getByLabel('Data as of', { exact: true }).first().click();
    const options = page.getByRole('option');
    const stamp = String.raw`\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}`;
    await page.getByRole('option', { name: new RegExp(`^${stamp} · measurements v1`) }).waitFor();
    await page.getByRole('option', { name: new RegExp(`^${stamp} · sites v1`) }).waitFor();
    expect(await options.count()).toBe(5); // Live, and each of the two tables' two versions it reads.
    await page.getByRole('option', { name: new RegExp(`^${stamp} · measurements v0`) }).click();
    await page.getByRole('status', { name: 'Time travel' }).waitFor();
    // The sites table was built after the measurements' first version: it had no data yet.
    await page.getByRole('img', { name: /^Colony size of the islands.*No data yet at this time\.$/ }).waitFor();
    await page.getByRole('img', { name: /^Penguins by island/ }).waitFor();
    expect(await page.getByText('no rows match the filters').count()).toBe(0);
    await context.close();
  });
});
