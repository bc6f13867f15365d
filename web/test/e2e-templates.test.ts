import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it, vi } from 'vitest';
import { describeBrowser, expectAccessible, openPage, saveScreenshot } from '../../test/support/browser.js';
import { ADMIN, call, login } from '../../test/support/test-server.js';
import { counted, useBrowserSuite } from './support/e2e-dashboards.js';

vi.setConfig({ testTimeout: 120_000 });

/**
 * New project from a template (docs/templates.md "From the web app"): the nf-core/ampliseq
 * template applied, from the Projects page, to a copy of the real results
 * (server/test/fixtures/ampliseq-results) in a folder the server may read.
 */
const FIXTURE = fileURLToPath(new URL('../../server/test/fixtures/ampliseq-results/', import.meta.url));
const TABS = [
  'QC overview',
  'Alpha diversity',
  'Community & diversity',
  'Ordination & clustering',
  'Differential abundance',
  'Phylogeny',
];

describeBrowser('a new project from a template in a real browser', () => {
  const suite = useBrowserSuite();

  it('checks the folder, shows the variable detected, creates the project and opens its six tabs', async () => {
    const folder = join(suite.server.database.dataDir, 'imports', 'ampliseq_run');
    await mkdir(folder, { recursive: true });
    await cp(FIXTURE, folder, { recursive: true });
    const session = await login(suite.server, ADMIN.email, ADMIN.password);
    const { context, page } = await openPage(suite.browser, suite.server, '/projects', { session });
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
    await expectAccessible(page, 'new project from a template');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page, 'new project from a template, dark');
    await page.emulateMedia({ colorScheme: 'light' });

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
        { timeout: 90_000, interval: 1_000 },
      )
      .toBe('success');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'nf-core/ampliseq' }).waitFor();
    const tabs = page.getByRole('tablist', { name: 'Dashboard tabs' });
    expect(await tabs.getByRole('tab').allTextContents()).toEqual(TABS);
    await counted(page, 'Samples', '12', 30_000);
    await saveScreenshot(page, 'template-ampliseq-qc');
    await tabs.getByRole('tab', { name: 'Alpha diversity' }).click();
    await page.waitForURL((url) => url.searchParams.get('tab') === 'alpha');
    await counted(page, 'Samples', '12', 30_000);
    await tabs.getByRole('tab', { name: 'Phylogeny' }).click();
    await page.waitForURL((url) => url.searchParams.get('tab') === 'phylogeny');
    await page.getByRole('region', { name: 'ASVs' }).waitFor();
    await context.close();
  });
});
