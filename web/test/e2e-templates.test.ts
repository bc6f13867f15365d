import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { expect, it, vi } from 'vitest';
import {
  describeBrowser,
  expectAccessible,
  expectAccessibleInBothThemes,
  openPage,
  saveScreenshot,
} from '../../test/support/browser.js';
import { ADMIN, call, login } from '../../test/support/test-server.js';
import { counted, drawn, useBrowserSuite } from './support/e2e-dashboards.js';

// Six tabs of a real pipeline's results drawn whole, one after the other: every wait is for a
// condition, so the budget only has to cover a slow, shared machine.
vi.setConfig({ testTimeout: 600_000 });

/**
 * How long each wait may go on before the condition counts as never coming: generous, so a loaded
 * host that draws the QC tab's fourteen MultiQC plots slowly is not mistaken for a broken one.
 */
const PATIENCE = 120_000;

/**
 * New project from a template (docs/templates.md "From the web app"): the nf-core/ampliseq
 * template applied, from the Projects page, to a copy of the real results
 * (server/test/fixtures/ampliseq-results) in a folder the server may read; then each of the six
 * tabs of the dashboard it makes opened, drawn whole, and saved for docs/templates.md.
 */
const FIXTURE = fileURLToPath(new URL('../../server/test/fixtures/ampliseq-results/', import.meta.url));

/** A tab of the template's dashboard and one card it shows, with its value in the fixture's data. */
interface Tab {
  id: string;
  title: string;
  card: string;
  value: string;
}

const TABS: Tab[] = [
  { id: 'qc', title: 'QC overview', card: 'Samples', value: '12' },
  { id: 'alpha', title: 'Alpha diversity', card: 'Samples', value: '12' },
  { id: 'community', title: 'Community & diversity', card: 'Phyla', value: '31' },
  { id: 'ordination', title: 'Ordination & clustering', card: 'Samples', value: '12' },
  { id: 'differential', title: 'Differential abundance', card: 'Taxa analysed', value: '96' },
  { id: 'phylogeny', title: 'Phylogeny', card: 'ASVs', value: '2,683' },
];

/** The components of the template's dashboard, each with its tab: all of them must be drawn. */
interface TemplateDashboard {
  components: { component_id: string; tab_id?: string }[];
}

const VIEWPORT = { width: 1280, height: 800 };

/** The open tab's cells, by component id, each with its state and, when it failed, what it says. */
const CELLS = `[...document.querySelectorAll('.dashboard-grid:not([hidden]) [data-component-id]')].map((cell) => ({
  id: cell.getAttribute('data-component-id'),
  state: cell.getAttribute('data-state'),
  text: cell.getAttribute('data-state') === 'error' ? (cell.textContent ?? '').trim() : '',
}))`;

/** How tall the page is, all of it. */
const PAGE_HEIGHT = 'document.documentElement.scrollHeight';

/**
 * Opens the tab by a click and waits until every component the template gives it has drawn (none
 * left out), then saves it as `docs/screenshots/template-ampliseq-<tab_id>.png` and runs axe-core
 * on it. Its card's value
 * shows the tab's data has come (the request with its `tab_id` has started, so no cell of it is
 * left from before); then the viewport grows to the whole tab, because MultiQC's plots draw only
 * once in sight (MultiqcView.tsx), and the wait is for every cell's data, every chart finished and
 * no loader left. No component may show an error.
 */
async function showTab(page: Page, template: TemplateDashboard, tab: Tab): Promise<void> {
  await page.setViewportSize(VIEWPORT);
  const tabList = page.getByRole('tablist', { name: 'Dashboard tabs' });
  const tabButton = tabList.getByRole('tab', { name: tab.title });
  await tabButton.click();
  await expect.poll(() => tabButton.getAttribute('aria-selected'), { timeout: PATIENCE }).toBe('true');
  await counted(page, tab.card, tab.value, PATIENCE);
  await page.setViewportSize({ width: VIEWPORT.width, height: Number(await page.evaluate(PAGE_HEIGHT)) });
  await drawn(page, PATIENCE);
  const cells = (await page.evaluate(CELLS)) as { id: string; state: string; text: string }[];
  const inTab = template.components.filter((component) => component.tab_id === tab.id);
  expect(cells.map((cell) => cell.id).sort()).toEqual(inTab.map((component) => component.component_id).sort());
  expect(cells.filter((cell) => cell.state === 'error').map((cell) => `${cell.id}: ${cell.text}`)).toEqual([]);
  await saveScreenshot(page, `template-ampliseq-${tab.id}`);
  await expectAccessible(page, `the ampliseq dashboard's tab ${tab.title}`);
}

describeBrowser('a new project from a template in a real browser', () => {
  const suite = useBrowserSuite();

  it('checks the folder, shows the variable detected, creates the project and draws each of its six tabs', async () => {
    const folder = join(suite.server.database.dataDir, 'imports', 'ampliseq_run');
    await mkdir(folder, { recursive: true });
    await cp(FIXTURE, folder, { recursive: true });
    const session = await login(suite.server, ADMIN.email, ADMIN.password);
    const { context, page } = await openPage(suite.browser, suite.server, '/projects', {
      session,
      timeout: PATIENCE,
    });
    await page.getByRole('button', { name: 'From a template' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('New project from a template').waitFor();
    await dialog.getByLabel(/^Template/).click();
    await page.getByRole('option', { name: 'nf-core/ampliseq 2.16.0' }).click();
    // The name follows the pipeline; the variable is offered with its description.
    expect(await dialog.getByLabel(/^Name/).inputValue()).toBe('ampliseq');
    await dialog.getByLabel(/^Name/).fill('Ampliseq megatest');
    await dialog.getByLabel(/^Results folder on the server/).fill(folder);
    await dialog.getByRole('button', { name: 'Check the folder' }).click();
    const found = dialog.getByRole('alert', { name: 'What the folder gives' });
    await found.getByText(/^15 collections of \d+ files\./).waitFor();
    // The value detected from the metadata is the variable's placeholder.
    expect(await dialog.getByLabel(/^group_by/).getAttribute('placeholder')).toBe('habitat');
    await saveScreenshot(dialog, 'template-new-project');
    // The form in the light theme and the dark one (no chart on it to wait for).
    await expectAccessibleInBothThemes(page, 'new project from a template');

    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/dashboards\/[^/?]+/);
    const dashboardId = new URL(page.url()).pathname.split('/').pop() as string;
    const dashboard = await call<{ project_id: string }>(suite.server, 'GET', `/dashboards/${dashboardId}`, {
      token: suite.token,
    });
    // The ingestion runs as a job: once it ends, the dashboard shows the folder's data.
    await expect
      .poll(
        async () => {
          const runs = await call<{ items: { status: string }[] }>(
            suite.server,
            'GET',
            `/projects/ingestion-runs/${dashboard.body.project_id}`,
            { token: suite.token },
          );
          return runs.body.items[0]?.status;
        },
        { timeout: PATIENCE, interval: 1_000 },
      )
      .toBe('success');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'nf-core/ampliseq' }).waitFor();
    const tabs = page.getByRole('tablist', { name: 'Dashboard tabs' });
    expect(await tabs.getByRole('tab').allTextContents()).toEqual(TABS.map((tab) => tab.title));
    const template = await call<{ dashboards: TemplateDashboard[] }>(
      suite.server,
      'GET',
      '/templates/nf-core/ampliseq',
      {
        token: suite.token,
      },
    );
    const [generated] = template.body.dashboards;
    if (generated === undefined) throw new Error('the ampliseq template has no dashboard');
    for (const tab of TABS) await showTab(page, generated, tab);
    await context.close();
  });
});
