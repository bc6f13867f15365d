import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeBrowser,
  expectAccessibleInBothThemes,
  launchBrowser,
  openPage,
  saveScreenshot,
  startWebServer,
  submitPasswordSignIn,
} from '../../test/support/browser.js';
import { ADMIN, call, createUser, login, type TestServer } from '../../test/support/test-server.js';

let browser: Browser;
let server: TestServer;

/** Counts that came out as text: the collection reads `count` as a string, NA is missing. */
const SAMPLES = ['sample,site,count', 'S1,Biscoe,3', 'S2,Dream,NA', 'S3,Biscoe,12', 'S4,Torgersen,5', ''].join('\n');

/** A new account's project with one collection made by Add data's layout (`soil/…`), its count read as text. */
async function projectWithTextCounts(token: string): Promise<{ projectId: string; collectionId: string }> {
  const project = await call<{ project_id: string }>(server, 'POST', '/projects', { token, json: { name: 'Soil' } });
  const workflow = await call<{ workflow_id: string }>(
    server,
    'POST',
    `/projects/${project.body.project_id}/workflows`,
    {
      token,
      json: { name: 'Uploads' },
    },
  );
  const collection = await call<{ data_collection_id: string }>(
    server,
    'POST',
    `/workflows/${workflow.body.workflow_id}/datacollections`,
    {
      token,
      json: {
        tag: 'soil',
        pattern: 'soil/[^/]+',
        format: 'csv',
        read_options: { null_values: ['NA', ''], columns: { count: 'string' } },
      },
    },
  );
  const collectionId = collection.body.data_collection_id;
  const form = new FormData();
  form.append('run', 'uploads');
  form.append('path', 'soil/samples.csv');
  form.append('file', new Blob([SAMPLES]), 'samples.csv');
  expect((await call(server, 'POST', `/datacollections/${collectionId}/files`, { token, form })).status).toBe(201);
  const built = await call(server, 'POST', '/deltatables/upsert', {
    token,
    json: { data_collection_id: collectionId },
  });
  expect(built.status).toBe(200);
  return { projectId: project.body.project_id, collectionId };
}

describeBrowser('fixing a table from the browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer();
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await browser?.close();
  });

  it('fixes a type, filters the rows, and adds a file whose name the pattern did not take', async () => {
    const { access_token: admin } = await login(server, ADMIN.email, ADMIN.password);
    const person = await createUser(server, admin, 'fixer@example.org');
    const { projectId, collectionId } = await projectWithTextCounts(person.access_token);
    const { context, page } = await openPage(
      browser,
      server,
      `/auth/sign-in?next=/projects/${projectId}?dc=${collectionId}`,
      {
        height: 900,
      },
    );
    await submitPasswordSignIn(page, 'fixer@example.org', 'fixer@example.org-password');
    const rows = page.getByRole('table', { name: 'Preview of soil' });
    await rows.getByText('Torgersen').waitFor();
    const countHeader = rows.getByRole('columnheader').filter({ hasText: 'count' });
    expect(await countHeader.textContent()).toMatch(/string/);

    // Fix types: count as an integer; the newest file is read with the choice before anything is saved.
    await page.getByRole('button', { name: 'Fix types…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Fix the types of soil' });
    const preview = dialog.getByRole('table', { name: 'Preview of the first rows' });
    await preview.getByRole('cell', { name: 'Torgersen' }).waitFor();
    expect(await dialog.getByRole('textbox', { name: /Missing values/ }).inputValue()).toBe('NA');
    expect(await dialog.getByRole('combobox', { name: 'Type of count' }).inputValue()).toBe('string');
    // Without NA as a missing value, an integer column cannot hold it: the preview says which value and what to do.
    await dialog.getByRole('textbox', { name: /Missing values/ }).fill('');
    await dialog.getByRole('combobox', { name: 'Type of count' }).selectOption('integer');
    await dialog.getByRole('alert').filter({ hasText: 'column count holds "NA", which is not an integer' }).waitFor();
    await dialog.getByRole('textbox', { name: /Missing values/ }).fill('NA');
    await dialog.locator('table[aria-busy="false"]').waitFor();
    await expectAccessibleInBothThemes(page, 'fix types');
    await saveScreenshot(page, 'fix-types');
    await dialog.getByRole('button', { name: 'Save and rebuild the table' }).click();
    await dialog.getByText('Version 1, 4 rows.').waitFor({ timeout: 60_000 });
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByText(/^4 rows · version 1/).waitFor();
    expect(await countHeader.textContent()).toMatch(/long|integer/);

    // Time travel still reads the old version, with count as text.
    await page.getByRole('tab', { name: 'Versions' }).click();
    await page
      .getByRole('button', { name: /version 0/i })
      .first()
      .click();
    await page.getByText('Reading version 0').waitFor();
    await rows.getByText('Torgersen').waitFor();
    expect(await countHeader.textContent()).toMatch(/string/);
    await page.getByRole('button', { name: 'Back to the latest version' }).click();
    await page.getByText(/^4 rows · version 1/).waitFor();

    // A row filter: count ≥ 5, done by the server, kept in the address (a reload keeps it).
    const filter = page.locator('form').filter({ hasText: 'Filter rows by' });
    await filter.getByRole('combobox', { name: 'Filter rows by' }).selectOption('count');
    await filter.getByRole('combobox', { name: 'Operator' }).selectOption('ge');
    await filter.getByRole('textbox', { name: 'Value' }).fill('5');
    await filter.getByRole('button', { name: 'Add filter' }).click();
    await page.getByText(/^2 rows match the filters · version 1/).waitFor();
    expect(new URL(page.url()).searchParams.get('filters')).toBe(
      JSON.stringify([{ column: 'count', op: 'ge', value: '5' }]),
    );
    await expectAccessibleInBothThemes(page, 'row filter');
    await saveScreenshot(page, 'row-filter');
    await page.reload();
    await page.getByText(/^2 rows match the filters · version 1/).waitFor();
    expect(await rows.getByText('Dream').count()).toBe(0);
    await page.getByRole('button', { name: 'Remove the filter count ≥ 5' }).click();
    await page.getByText(/^4 rows · version 1/).waitFor();

    // An upload whose name the pattern does not take is offered a way in rather than refused.
    const upload = page.getByRole('region', { name: 'Upload a file' });
    await upload.locator('input[type="file"]').setInputFiles({
      name: 'more samples.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('sample,site,count\nS5,Dream,7\n'),
    });
    await upload.getByRole('button', { name: 'Upload', exact: true }).click();
    const offer = upload.getByRole('alert').filter({ hasText: 'does not fit the collection' });
    await offer.waitFor();
    await expectAccessibleInBothThemes(page, 'upload name offer');
    await saveScreenshot(page, 'upload-name-offer');
    await offer.getByRole('button', { name: 'Upload as soil/more samples.csv' }).click();
    await upload.getByText(/Uploaded soil\/more samples\.csv/).waitFor();
    await upload.getByRole('button', { name: 'Update table' }).click();
    await upload.getByText(/Table updated: version 2, 5 rows/).waitFor();

    // The other way: the name itself added to the pattern.
    await upload.locator('input[type="file"]').setInputFiles({
      name: 'late.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('sample,site,count\nS6,Biscoe,1\n'),
    });
    await upload.getByRole('button', { name: 'Upload', exact: true }).click();
    await upload.getByRole('button', { name: 'Add late.csv to the pattern' }).click();
    await upload.getByText(/Uploaded late\.csv/).waitFor();
    const stored = await call<{ pattern: string }>(server, 'GET', `/datacollections/${collectionId}`, {
      token: person.access_token,
    });
    expect(stored.body.pattern).toBe('(?:soil/[^/]+)|late\\.csv');
    await context.close();
  }, 180_000);
});
