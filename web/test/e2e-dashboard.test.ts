import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../cli/test/run-cli.js';
import {
  describeBrowser,
  expectAccessible,
  launchBrowser,
  openPage,
  saveScreenshot,
  startWebServer,
  submitPasswordSignIn,
} from '../../test/support/browser.js';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createUser,
  login,
  type TestServer,
} from '../../test/support/test-server.js';

const KEY = 'provisioning-key-for-the-dashboard-browser-test';
let browser: Browser;
const open = (server: TestServer, path: string) => openPage(browser, server, path, { height: 900, timeout: 20_000 });

/** A flat results folder: 30 penguins (two pages of the overview's tables) and a small TSV. */
function resultsFolder(root: string): string {
  const results = join(root, 'penguin_survey');
  mkdirSync(results, { recursive: true });
  const species = ['Adelie', 'Gentoo', 'Chinstrap'];
  const rows = Array.from(
    { length: 30 },
    (_, i) => `P${String(i + 1).padStart(2, '0')},${species[i % 3]},${(35 + ((i * 7) % 20) + i / 100).toFixed(2)}`,
  );
  writeFileSync(join(results, 'penguins.csv'), `${['sample,species,bill_mm', ...rows].join('\n')}\n`);
  writeFileSync(join(results, 'islands.tsv'), 'island\tarea_km2\nBiscoe\t31\nDream\t16\nTorgersen\t1\n');
  return results;
}

/** The first column's cells of a table, as shown. */
async function firstColumn(page: Page, table: string): Promise<string[]> {
  return page
    .getByRole('table', { name: table })
    .locator('tbody tr td:first-child')
    .allTextContents()
    .then((cells) => cells.map((cell) => cell.trim()));
}

describeBrowser('dashboards in a real browser', () => {
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'service-web-dashboard-'));
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  describeBrowser('auth mode', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startWebServer({ SERVICE_AUTH_PROVISIONING_API_KEY: KEY });
    }, 180_000);
    afterAll(async () => {
      await server?.stop();
    });

    it("opens service ingest's magic link on the overview dashboard, with paged and sortable tables", async () => {
      const results = resultsFolder(root);
      const ingest = await runCli(['ingest', results, '--user', 'ada@example.org', '--server', server.url], {
        SERVICE_AUTH_PROVISIONING_API_KEY: KEY,
      });
      expect(ingest.code, ingest.stderr).toBe(0);
      const link = new URL(ingest.stdout.trim());
      const next = new URLSearchParams(link.hash.slice(1)).get('next') ?? '';
      expect(next).toMatch(/^\/dashboards\/[0-9a-f-]{36}$/);

      const { context, page } = await open(server, `${link.pathname}${link.hash}`);
      await page.waitForURL((url) => url.pathname === next);
      await page.getByRole('heading', { level: 1, name: 'penguin_survey — overview' }).waitFor();
      await page.getByRole('button', { name: 'Account menu for ada@example.org' }).waitFor();
      // The text component, then one table per data collection.
      await page.getByRole('heading', { name: 'penguin_survey', exact: true }).waitFor();
      const penguins = page.getByRole('table', { name: 'penguins' });
      await penguins.getByText('Chinstrap').first().waitFor();
      await page.getByRole('table', { name: 'islands' }).getByText('Torgersen').waitFor();
      await page.getByText('30 rows').waitFor();
      expect(await firstColumn(page, 'penguins')).toHaveLength(25);

      // Sorting: descending by sample after two clicks; the next page holds the rest.
      await page.getByRole('button', { name: 'Sort by sample' }).click();
      await page
        .getByRole('columnheader', { name: /sample/ })
        .and(page.locator('[aria-sort="ascending"]'))
        .waitFor();
      await page.getByRole('button', { name: 'Sort by sample' }).click();
      await page
        .getByRole('columnheader', { name: /sample/ })
        .and(page.locator('[aria-sort="descending"]'))
        .waitFor();
      await penguins.locator('tbody tr').first().getByText('P30').waitFor();
      const firstPage = await firstColumn(page, 'penguins');
      expect(firstPage.slice(0, 3)).toEqual(['P30', 'P29', 'P28']);
      await page.getByLabel('penguins pages').getByRole('button', { name: '2' }).click();
      await penguins.locator('tbody tr').first().getByText('P05').waitFor();
      expect(await firstColumn(page, 'penguins')).toEqual(['P05', 'P04', 'P03', 'P02', 'P01']);
      await page.getByLabel('penguins pages').getByRole('button', { name: '1' }).click();
      await penguins.locator('tbody tr').first().getByText('P30').waitFor();
      await page.getByLabel('Updating penguins').waitFor({ state: 'detached' });
      await saveScreenshot(page, 'dashboard');
      await expectAccessible(page, 'dashboard');

      // The project page lists its dashboards, linking back here.
      await page.getByRole('link', { name: 'Project', exact: true }).click();
      const list = page.getByRole('region', { name: 'Dashboards' });
      await list.getByRole('link', { name: 'penguin_survey — overview' }).click();
      await page.waitForURL((url) => url.pathname === next);
      await context.close();
    }, 120_000);

    it('shows a member of the dashboard alone no link to the project they cannot open', async () => {
      const { access_token: token } = await login(server, ADMIN.email, ADMIN.password);
      const project = await createProjectWithUpload(server, token, 'Lab notebook', 'a,b\n1,x\n');
      const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
        token,
        json: {
          project_id: project.projectId,
          title: 'Shared with Eve',
          components: [{ component_id: 'intro', type: 'text', markdown: 'Hello Eve' }],
          layout: [{ component_id: 'intro', x: 0, y: 0, w: 6, h: 2 }],
        },
      });
      expect(dashboard.status).toBe(201);
      const eve = await createUser(server, token, 'eve-dashboard@example.org');
      const shared = await call(server, 'PUT', `/dashboards/${dashboard.body.dashboard_id}/permissions`, {
        token,
        json: { owners: [ADMIN.email], viewers: ['eve-dashboard@example.org'], is_public: false },
      });
      expect(shared.status, shared.text).toBe(200);

      const path = `/dashboards/${dashboard.body.dashboard_id}`;
      const { context, page } = await open(server, `/auth/sign-in?next=${encodeURIComponent(path)}`);
      await submitPasswordSignIn(page, eve.user.email, 'eve-dashboard@example.org-password');
      await page.getByRole('heading', { name: 'Shared with Eve' }).waitFor();
      await page.getByText('Hello Eve').waitFor();
      expect(await page.getByRole('link', { name: 'Project', exact: true }).count()).toBe(0);
      await context.close();
    });

    it('sends an anonymous visitor to sign in, and shows a dashboard they cannot see as not found', async () => {
      const anonymous = await open(server, '/dashboards/0193a000-0000-7000-8000-000000000000');
      await anonymous.page.waitForURL(/\/auth\/sign-in\?next=%2Fdashboards%2F/);
      await anonymous.context.close();

      const { context, page } = await open(server, '/auth/sign-in?next=/dashboards/no-such-dashboard');
      await submitPasswordSignIn(page, ADMIN.email, ADMIN.password);
      await page.getByRole('alert').getByText('Dashboard not found').waitFor();
      await context.close();
    });
  });

  describeBrowser('public mode', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startWebServer({ SERVICE_AUTH_PUBLIC_MODE: 'true' });
    }, 180_000);
    afterAll(async () => {
      await server?.stop();
    });

    it("shows a public dashboard's table to an anonymous visitor, but not its private project", async () => {
      const { access_token: token } = await login(server, ADMIN.email, ADMIN.password);
      const project = await createProjectWithUpload(server, token, 'Private survey', 'a,b\n1,x\n2,y\n3,z\n');
      await call(server, 'POST', '/deltatables/upsert', { token, json: { data_collection_id: project.collectionId } });
      const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
        token,
        json: {
          project_id: project.projectId,
          title: 'Shared results',
          is_public: true,
          components: [
            { component_id: 'intro', type: 'text', markdown: 'Read **this** first. <b>raw</b>' },
            { component_id: 'rows', type: 'table', title: 'Rows', data_collection_id: project.collectionId },
          ],
          layout: [
            { component_id: 'intro', x: 0, y: 0, w: 4, h: 2 },
            { component_id: 'rows', x: 4, y: 0, w: 8, h: 6 },
          ],
        },
      });
      expect(dashboard.status).toBe(201);

      const { context, page } = await open(server, `/dashboards/${dashboard.body.dashboard_id}`);
      await page.getByRole('heading', { name: 'Shared results' }).waitFor();
      await page.getByRole('table', { name: 'Rows' }).getByText('z').waitFor();
      await page.getByText('Read').locator('strong', { hasText: 'this' }).waitFor();
      // Raw HTML is shown as text, never interpreted.
      await page.getByText('<b>raw</b>').waitFor();
      expect(await page.getByRole('link', { name: 'Project', exact: true }).count()).toBe(0);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();

      await page.goto(`${server.url}/projects/${project.projectId}`);
      await page.getByRole('alert').getByText('Project not found').waitFor();

      // A table whose data collection is gone says so in its cell (a component-level error of
      // POST /data); the rest of the dashboard stays.
      await call(server, 'DELETE', `/datacollections/${project.collectionId}`, { token });
      await page.goto(`${server.url}/dashboards/${dashboard.body.dashboard_id}`);
      await page.getByRole('alert').getByText('Could not load Rows').waitFor();
      await page
        .getByRole('alert')
        .getByText(/data collection no longer exists/)
        .waitFor();
      await page.getByText('Read').locator('strong', { hasText: 'this' }).waitFor();
      await context.close();
    }, 60_000);
  });
});
