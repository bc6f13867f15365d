import { mkdirSync, mkdtempSync, realpathSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeBrowser,
  expectAccessible,
  launchBrowser,
  openPage,
  saveScreenshot,
  startWebServer,
  submitPasswordSignIn,
} from '../../test/support/browser.js';
import { ADMIN, type TestServer } from '../../test/support/test-server.js';

const TIMEOUT = 20_000;

let browser: Browser;

const open = (server: TestServer, path: string) => openPage(browser, server, path, { height: 900, timeout: TIMEOUT });
const signIn = (page: Page) => submitPasswordSignIn(page, ADMIN.email, ADMIN.password);

/** A runs-structured results folder: two runs with one measures.csv each. */
function resultsFolder(root: string, name = 'penguins'): string {
  const results = join(root, name);
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

function projectYaml(location: string, pattern: string, name = 'penguins-ingested'): string {
  return [
    `name: ${name}`,
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
    const { context, page } = await open(server, '/projects');
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
    await saveScreenshot(page.getByRole('region', { name: 'Ingestion', exact: true }), 'ingestion');
    await expectAccessible(page, 'ingestion');

    // Upload a file into a new run with a progress bar, then update the table.
    const rows = ['species,island,bill_mm'];
    for (let index = 0; index < 40_000; index += 1)
      rows.push(`Emperor,Ross${index},${(50 + (index % 100) / 10).toFixed(1)}`);
    const csv = `${rows.join('\n')}\n`;
    await page
      .getByRole('region', { name: 'Upload a file' })
      .locator('input[type="file"]')
      .setInputFiles({
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
    await saveScreenshot(page, 'upload');
    await expectAccessible(page, 'upload');

    // The jobs page lists the ingestion; its detail shows the result.
    await page.getByRole('link', { name: 'Jobs' }).click();
    const jobs = page.getByRole('table', { name: 'Jobs' });
    await jobs.getByText('project.ingest').waitFor();
    await jobs.getByText('success').first().waitFor();
    await saveScreenshot(page, 'jobs');
    await expectAccessible(page, 'jobs');
    await jobs.getByRole('link').first().click();
    await page.getByRole('heading', { name: 'Job', exact: true }).waitFor();
    await page.getByLabel('Job result').waitFor();
    expect(await page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    await expectAccessible(page, 'job detail');

    // Create project: name and description, then the new project's page.
    await page.getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('Empty survey');
    await expectAccessible(page, 'create project dialog');
    await page.getByRole('textbox', { name: 'Description' }).fill('Nothing here yet');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'Empty survey' }).waitFor();
    // A new project opens on Add data.
    await page.getByRole('region', { name: 'Add data' }).getByRole('button', { name: 'Choose files…' }).waitFor();
    await page.getByText(/neither data locations nor uploads/).waitFor();
    await context.close();
  }, 120_000);

  it('explores a table (sort, distinct values, statistics, versions) and cancels a running ingestion', async () => {
    const results = resultsFolder(root, 'explorer');
    const { context, page } = await open(server, '/projects');
    await signIn(page);
    await page.waitForURL(/\/projects$/);
    await page.getByRole('button', { name: 'Import project.yaml' }).click();
    await page.getByRole('textbox', { name: 'project.yaml' }).fill(projectYaml(results, 'measures\\.csv', 'explored'));
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { name: 'explored' }).waitFor();

    // Two upserts: the first two runs, then a third run added on disk.
    const ingest = async (finished: number) => {
      await page.getByRole('button', { name: 'Run ingestion' }).click();
      await page.getByRole('button', { name: 'Start ingestion' }).click();
      await page.getByLabel('Job status: success').waitFor({ timeout: 60_000 });
      await page
        .getByRole('table', { name: 'Ingestion history' })
        .getByText('success')
        .nth(finished - 1)
        .waitFor();
    };
    await ingest(1);
    mkdirSync(join(results, 'run_3'));
    writeFileSync(
      join(results, 'run_3', 'measures.csv'),
      'species,island,bill_mm\nAdelie,Dream,37.8\nGentoo,Biscoe,50.0\n',
    );
    await ingest(2);

    // Sort by a header: ascending, then descending; the sort is in the address bar and survives a reload.
    await page.getByRole('button', { name: /measurements/ }).click();
    const preview = page.getByRole('table', { name: 'Preview of measurements' });
    await page.getByText(/^5 rows · version/).waitFor();
    // The header shows the new sort at once; the rows are the new ones once the table is no longer busy.
    const sortedBy = (direction: string) =>
      page
        .locator(`table[aria-label="Preview of measurements"][aria-busy="false"] th[aria-sort="${direction}"]`)
        .waitFor();
    const firstColumn = () => preview.locator('tbody tr td:first-child').allTextContents();
    const bills = () => preview.locator('tbody tr td:nth-child(3)').allTextContents();
    await page.getByRole('button', { name: 'Sort by bill_mm' }).click();
    await page.waitForURL(/sort=bill_mm%3Aasc/);
    await sortedBy('ascending');
    expect(await bills()).toEqual(['37.8', '39.1', '46.1', '49.5', '50']);
    await page.getByRole('button', { name: 'Sort by bill_mm' }).click();
    await page.waitForURL(/sort=bill_mm%3Adesc/);
    await sortedBy('descending');
    expect(await bills()).toEqual(['50', '49.5', '46.1', '39.1', '37.8']);
    await page.reload();
    await sortedBy('descending');
    expect(await firstColumn()).toEqual(['Gentoo', 'Chinstrap', 'Gentoo', 'Adelie', 'Adelie']);
    await saveScreenshot(page.getByRole('region', { name: 'Data collection measurements' }), 'explorer');
    await expectAccessible(page, 'explorer');

    // A column's distinct values with their counts, most frequent first.
    await page.getByRole('button', { name: 'Distinct values of species' }).click();
    await page.waitForURL(/values=species/);
    const values = page.getByRole('table', { name: 'Values of species' });
    await values.waitFor();
    expect(await values.locator('tbody tr').allTextContents()).toEqual([
      'Adelie240.0%',
      'Gentoo240.0%',
      'Chinstrap120.0%',
    ]);
    await expectAccessible(page, 'explorer, distinct values');
    await page.keyboard.press('Escape');
    await values.waitFor({ state: 'detached' });

    // Column types and statistics.
    await page.getByRole('tab', { name: 'Columns' }).click();
    const columns = page.getByRole('table', { name: 'Columns of measurements' });
    const bill = columns.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'bill_mm' }) });
    await bill.waitFor();
    expect(await bill.getByRole('cell').allTextContents()).toEqual([
      'double',
      '5',
      '0',
      // NaN/±∞
      '0',
      '5',
      '37.8',
      '50',
      '44.5',
      expect.stringMatching(/^5\.\d+$/),
      'Values',
    ]);
    await columns.getByRole('row').filter({ hasText: 'species' }).getByText('string').waitFor();
    await expectAccessible(page, 'explorer, columns');

    // The versions after two upserts, with the rows each wrote.
    await page.getByRole('tab', { name: 'Versions' }).click();
    const versions = page.getByRole('table', { name: 'Versions of measurements' });
    await page.getByText('2 versions, newest first').waitFor();
    const versionRows = await versions.locator('tbody tr').allTextContents();
    expect(versionRows).toHaveLength(2);
    expect(versionRows[0]).toMatch(/latest/);
    await expectAccessible(page, 'explorer, versions');
    const before = page.url();

    // A run whose file takes minutes to hash (a sparse file of 256 GiB, nothing on disk): the
    // ingestion is surely still scanning when Cancel is pressed, without any timing guess.
    mkdirSync(join(results, 'run_4'));
    writeFileSync(join(results, 'run_4', 'huge.bin'), '');
    truncateSync(join(results, 'run_4', 'huge.bin'), 256 * 1024 ** 3);
    await page.getByRole('button', { name: 'Run ingestion' }).click();
    await page.getByRole('button', { name: 'Start ingestion' }).click();
    await page.getByLabel('Job status: running').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.getByLabel('Job status: cancelled').waitFor();
    await expectAccessible(page, 'ingestion, cancelled');
    // The run itself ends cancelled once the worker has stopped hashing.
    const history = page.getByRole('table', { name: 'Ingestion history' });
    await expect
      .poll(
        async () => {
          await page.reload();
          return (await history.locator('tbody tr').first().textContent()) ?? '';
        },
        { timeout: 30_000, interval: 500 },
      )
      .toMatch(/cancelled/);
    // The table did not change: the same two versions, the same rows.
    await page.goto(before);
    await page.getByText('2 versions, newest first').waitFor();
    expect(await versions.locator('tbody tr').allTextContents()).toEqual(versionRows);
    await page.getByRole('tab', { name: 'Rows' }).click();
    await page.getByText(/^5 rows · version/).waitFor();
    await context.close();
  }, 180_000);
});
