import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, startWebServer } from '../../test/support/browser.js';
import { ADMIN, type TestServer } from '../../test/support/test-server.js';

const SCREENSHOTS = resolve(import.meta.dirname, '../../docs/screenshots');
const TIMEOUT = 20_000;

let browser: Browser;

async function openPage(server: TestServer, path: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  await page.goto(`${server.url}${path}`);
  return { context, page };
}

async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

async function signIn(page: Page): Promise<void> {
  await page.waitForURL(/\/auth\/sign-in/);
  await page.getByRole('textbox', { name: 'Email' }).fill(ADMIN.email);
  await page.getByLabel(/^Password/).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A runs-structured results folder: two runs with one measures.csv each. */
function resultsFolder(root: string): string {
  const results = join(root, 'penguins');
  const runs: Record<string, string[]> = {
    run_1: ['Adelie,Torgersen,39.1', 'Gentoo,Biscoe,46.1'],
    run_2: ['Chinstrap,Dream,49.5'],
  };
  for (const [run, rows] of Object.entries(runs)) {
    mkdirSync(join(results, run), { recursive: true });
    writeFileSync(join(results, run, 'measures.csv'), `${['species,island,bill_mm', ...rows].join('\n')}\n`);
  }
  return results;
}

function projectYaml(location: string, pattern: string): string {
  return [
    'name: penguins-ingested',
    'description: Imported from the web app',
    'workflows:',
    '  - name: measure',
    '    data_location:',
    '      structure: runs',
    `      locations: [ ${JSON.stringify(location)} ]`,
    '      runs_regex: "^run_\\\\d+$"',
    '    data_collections:',
    '      - tag: measurements',
    `        pattern: ${JSON.stringify(pattern)}`,
    '        format: csv',
    '',
  ].join('\n');
}

describeBrowser('data in a real browser: import, ingestion, jobs, upload', () => {
  let server: TestServer;
  let root: string;
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'service-web-ingest-')));
    browser = await launchBrowser();
    server = await startWebServer({ SERVICE_INGESTION_ALLOWED_ROOTS: root });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('imports a project.yaml, runs ingestion to success, lists the job and uploads a file', async () => {
    const results = resultsFolder(root);
    const { context, page } = await openPage(server, '/projects');
    await signIn(page);
    await page.waitForURL(/\/projects$/);

    // Import: a broken pattern first, its error named by line and column; then the right file.
    await page.getByRole('button', { name: 'Import project.yaml' }).click();
    const yamlBox = page.getByRole('textbox', { name: 'project.yaml' });
    await yamlBox.fill(projectYaml(results, 'measures(\\.csv'));
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const errors = page.getByRole('list', { name: 'Errors' });
    await errors.waitFor();
    expect(await errors.textContent()).toMatch(/\d+:\d+ workflows\[0\]\.data_collections\[0\]\.pattern — /);
    await yamlBox.fill(projectYaml(results, 'measures\\.csv'));
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { name: 'penguins-ingested' }).waitFor();

    // Run ingestion with overwrite, and follow the job to its end.
    await page.getByRole('button', { name: 'Run ingestion' }).click();
    await page.getByRole('checkbox', { name: /Overwrite/ }).check();
    await page.getByRole('button', { name: 'Start ingestion' }).click();
    await page.getByLabel('Job status: success').waitFor({ timeout: 60_000 });
    await page.getByLabel('Job progress: 100%').waitFor();
    const history = page.getByRole('table', { name: 'Ingestion history' });
    await history.getByText('browser').waitFor();
    await history.getByText(/3 rows/).waitFor();

    // The preview shows the ingested rows.
    await page.getByRole('button', { name: /measurements/ }).click();
    const preview = page.getByRole('table', { name: 'Preview of measurements' });
    await preview.getByText('Chinstrap').waitFor();
    await page.getByText(/^3 rows · version/).waitFor();
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'ingestion');

    // Upload a file into a new run with a progress bar, then update the table.
    const rows = ['species,island,bill_mm'];
    for (let index = 0; index < 40_000; index += 1)
      rows.push(`Emperor,Ross${index},${(50 + (index % 100) / 10).toFixed(1)}`);
    const csv = `${rows.join('\n')}\n`;
    await page.locator('input[type="file"]').setInputFiles({
      name: 'measures.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    });
    await page.getByRole('textbox', { name: 'Run tag' }).fill('upload_1');
    // An upload the server never answers can be cancelled (xhr.abort()).
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/datacollections/*/files', async (route) => {
      await held;
      await route.abort().catch(() => {});
    });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('button', { name: 'Cancel upload' }).click();
    await page.getByText('Upload cancelled.').waitFor();
    release();
    await page.unroute('**/datacollections/*/files');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText(/Uploaded measures\.csv/).waitFor();
    await page.getByLabel('Upload progress: 100%').waitFor();
    await page.getByRole('button', { name: 'Update table' }).click();
    await page.getByText(/Table updated: version \d+, 40,003 rows/).waitFor();
    await page.getByText(/^40,003 rows · version/).waitFor();
    // Scroll the upload form to the top, below the fixed header (a string: this file has no DOM types).
    await page.evaluate(
      "[...document.querySelectorAll('p')].find((p) => p.textContent === 'Upload a file')?.scrollIntoView(); window.scrollBy(0, -140);",
    );
    await screenshot(page, 'upload');

    // The jobs page lists the ingestion; its detail shows the result.
    await page.getByRole('link', { name: 'Jobs' }).click();
    const jobs = page.getByRole('table', { name: 'Jobs' });
    await jobs.getByText('project.ingest').waitFor();
    await jobs.getByText('success').first().waitFor();
    await screenshot(page, 'jobs');
    await jobs.getByRole('link').first().click();
    await page.getByRole('heading', { name: 'Job', exact: true }).waitFor();
    await page.getByLabel('Job result').waitFor();
    expect(await page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);

    // Create project: name and description, then the new project's page.
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('Empty survey');
    await page.getByRole('textbox', { name: 'Description' }).fill('Nothing here yet');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'Empty survey' }).waitFor();
    await page.getByText('This project has no workflows yet.').waitFor();
    await page.getByText(/neither data locations nor uploads/).waitFor();
    await context.close();
  }, 120_000);
});
