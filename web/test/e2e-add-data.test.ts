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
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createUser,
  login,
  type TestServer,
} from '../../test/support/test-server.js';

let browser: Browser;
let server: TestServer;

const EMAIL = 'first-steps@example.org';
const PASSWORD = 'first-steps-password';

/** Soil samples as a person exports them: NA for what was not measured, a date, and plot numbers. */
const SAMPLES = [
  'sample,plot,site,count,ph,sampled_on',
  'S1,101,Biscoe,3,7.1,2024-01-02',
  'S2,102,Dream,NA,6.8,2024-01-03',
  'S3,103,Biscoe,5,NA,2024-02-01',
  'S4,104,Torgersen,12,7.4,2024-02-11',
  '',
].join('\n');

/** A second export of the same survey, where someone wrote a word in a count. */
const MORE_SAMPLES = ['sample,plot,site,count,ph,sampled_on', 'S5,105,Dream,many,7.0,2024-03-05', ''].join('\n');

describeBrowser('adding data from the browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer();
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await browser?.close();
  });

  it('takes a new account from an empty project to its table, through a file that does not fit, to an overview dashboard', async () => {
    const { context, page } = await openPage(browser, server, '/auth/register', { height: 900 });
    await page.getByRole('textbox', { name: 'Email' }).fill(EMAIL);
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByLabel(/^Repeat password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Register' }).click();
    // A new account lands on the home page; projects are made from the projects list.
    await page.waitForURL(/\/home$/);
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    await page.waitForURL(/\/projects$/);

    // A new project opens on Add data rather than on an empty list of workflows.
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('Soil survey');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Soil survey' }).waitFor();
    const addData = page.getByRole('region', { name: 'Add data' });
    await addData.getByText(/Drop CSV, TSV, Parquet or JSON files here/).waitFor();
    expect(await page.getByText('This project has no workflows yet.').count()).toBe(0);
    await expectAccessibleInBothThemes(page, 'add data, empty project');

    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      addData.getByRole('button', { name: 'Choose files…' }).click(),
    ]);
    await chooser.setFiles([
      { name: 'soil-samples-1.csv', mimeType: 'text/csv', buffer: Buffer.from(SAMPLES) },
      { name: 'soil-samples-2.csv', mimeType: 'text/csv', buffer: Buffer.from(MORE_SAMPLES) },
    ]);

    // The first rows with each column's inferred type; NA is read as missing; a name is proposed.
    const preview = addData.getByRole('table', { name: 'Preview of the first rows' });
    await preview.getByRole('cell', { name: 'Torgersen' }).waitFor();
    const typeOf = (column: string) => addData.getByRole('combobox', { name: `Type of ${column}` });
    expect(await typeOf('plot').inputValue()).toBe('integer');
    expect(await typeOf('count').inputValue()).toBe('integer');
    expect(await typeOf('ph').inputValue()).toBe('double');
    expect(await typeOf('sampled_on').inputValue()).toBe('date');
    expect(await addData.getByRole('textbox', { name: 'Collection name' }).inputValue()).toBe('soil-samples');
    expect(await addData.getByRole('combobox', { name: 'Delimiter' }).inputValue()).toBe(',');
    expect(await addData.getByRole('textbox', { name: /Missing-value markers/ }).inputValue()).toBe('NA, N/A, null');
    expect(await preview.getByRole('cell', { name: '∅' }).count()).toBe(2);

    // Plot numbers are labels, not quantities: read them as text.
    await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/files/preview')),
      typeOf('plot').selectOption('string'),
    ]);
    await addData.locator('table[aria-busy="false"]').waitFor();
    await saveScreenshot(page, 'add-data');
    await expectAccessibleInBothThemes(page, 'add data, preview');

    // Counts as decimals: the first file fits, the second does not. Every file is read, so the
    // second says why before anything is made, and its rows can be looked at.
    await typeOf('count').selectOption('double');
    const misfit = addData.getByRole('alert').filter({ hasText: 'soil-samples-2.csv cannot be read this way' });
    await misfit.getByText('line 2: column count holds "many", which is not a double').waitFor();
    expect(await addData.getByRole('button', { name: 'Create' }).isDisabled()).toBe(true);
    await typeOf('count').selectOption('string');
    await misfit.waitFor({ state: 'detached' });
    await addData.getByRole('combobox', { name: 'Rows of' }).selectOption('soil-samples-2.csv');
    await preview.getByRole('cell', { name: 'many' }).waitFor();
    await addData.getByRole('button', { name: 'Create' }).click();
    const ready = addData.getByRole('status').filter({ hasText: 'The table is ready' });
    await ready.waitFor({ timeout: 60_000 });
    await ready.getByText('soil-samples: 5 rows.').waitFor();
    await expectAccessibleInBothThemes(page, 'add data, done');

    // The chosen type and the null markers are in the collection's definition, and in project.yaml.
    const session = await login(server, EMAIL, PASSWORD);
    const projectId = new URL(page.url()).pathname.split('/').pop() ?? '';
    const yaml = await call(server, 'GET', `/projects/${projectId}/yaml`, { token: session.access_token });
    expect(yaml.text).toContain('plot: string');
    expect(yaml.text).toContain('count: string');
    expect(yaml.text).toMatch(/null_values:[\s\S]*NA[\s\S]*N\/A[\s\S]*null/);

    // The explorer shows the rows: NA as missing, the plot numbers as text.
    await ready.getByRole('button', { name: 'Explore the table' }).click();
    const rows = page.getByRole('table', { name: 'Preview of soil-samples' });
    await rows.getByText('Torgersen').waitFor();
    expect(await rows.getByText('∅').count()).toBe(2);
    await rows.getByText('many').waitFor();
    const header = rows.getByRole('columnheader').filter({ hasText: 'plot' });
    expect(await header.textContent()).toMatch(/VARCHAR|string/i);
    const workflows = await call<{ items: { workflow_id: string; name: string }[] }>(
      server,
      'GET',
      `/projects/${projectId}/workflows`,
      { token: session.access_token },
    );
    expect(workflows.body.items.map((workflow) => workflow.name)).toEqual(['Uploads']);
    const collections = await call<{ items: { data_collection_id: string; read_options: unknown }[] }>(
      server,
      'GET',
      `/workflows/${workflows.body.items[0]?.workflow_id}/datacollections`,
      { token: session.access_token },
    );
    const collection = collections.body.items[0];
    expect(collection?.read_options).toMatchObject({
      delimiter: ',',
      header: true,
      null_values: ['NA', 'N/A', 'null', ''],
      columns: { plot: 'string', count: 'string' },
    });
    const stored = await call<{ rows: Record<string, unknown>[] }>(
      server,
      'GET',
      `/datacollections/${collection?.data_collection_id}/preview?sort=sample:asc`,
      { token: session.access_token },
    );
    expect(stored.body.rows.map((row) => [row.plot, row.count, row.ph, row.sampled_on])).toEqual([
      ['101', '3', 7.1, '2024-01-02'],
      ['102', null, 6.8, '2024-01-03'],
      ['103', '5', null, '2024-02-01'],
      ['104', '12', 7.4, '2024-02-11'],
      ['105', 'many', 7, '2024-03-05'],
    ]);

    // And an overview dashboard is one click away.
    await ready.getByRole('button', { name: 'Make an overview dashboard' }).click();
    await page.waitForURL(/\/dashboards\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await context.close();
  }, 180_000);

  it('after a build that fails past the previewed lines, changes a type and tries again on what was made', async () => {
    const { access_token: admin } = await login(server, ADMIN.email, ADMIN.password);
    const owner = await createUser(server, admin, 'retry-owner@example.org');
    const project = await createProjectWithUpload(server, owner.access_token, 'Long survey');
    // Over 1 MiB, so the preview reads only its head; a word in a count on the very last line.
    const lines = Array.from(
      { length: 40_000 },
      (_, i) => `S${i + 1},${101 + (i % 50)},Biscoe,${i % 9},7.1,2024-01-02`,
    );
    const csv = `sample,plot,site,count,ph,sampled_on\n${lines.join('\n')}\nS40001,150,Dream,many,7.0,2024-03-05\n`;
    expect(csv.length).toBeGreaterThan(1024 * 1024);
    const { context, page } = await openPage(browser, server, `/auth/sign-in?next=/projects/${project.projectId}`, {
      height: 1200,
    });
    await submitPasswordSignIn(page, owner.user.email, 'retry-owner@example.org-password');
    await page.getByRole('heading', { level: 1, name: 'Long survey' }).waitFor();
    await page.getByRole('button', { name: 'Add data' }).click();
    const addData = page.getByRole('region', { name: 'Add data' });
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      addData.getByRole('button', { name: 'Choose files…' }).click(),
    ]);
    await chooser.setFiles({ name: 'long-survey.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    const typeOf = (column: string) => addData.getByRole('combobox', { name: `Type of ${column}` });
    await addData
      .getByRole('table', { name: 'Preview of the first rows' })
      .getByRole('cell', { name: 'S20' })
      .waitFor();
    expect(await typeOf('count').inputValue()).toBe('integer');
    const name = await addData.getByRole('textbox', { name: 'Collection name' }).inputValue();
    // Counts as decimals, chosen (kept in the definition): the previewed lines fit.
    await typeOf('count').selectOption('double');
    await addData.locator('table[aria-busy="false"]').waitFor();

    // The build reads the whole file: it fails on the last line and says where.
    await addData.getByRole('button', { name: 'Create' }).click();
    await addData
      .getByText(/line 40002/)
      .first()
      .waitFor({ timeout: 60_000 });
    await addData.getByRole('button', { name: 'Change the choices and try again' }).click();
    // What was made stays made: its name is settled; the types can change.
    expect(await addData.getByRole('textbox', { name: 'Collection name' }).isDisabled()).toBe(true);
    await typeOf('count').selectOption('string');
    await addData.getByRole('button', { name: 'Try again' }).click();
    const ready = addData.getByRole('status').filter({ hasText: 'The table is ready' });
    await ready.getByText(`${name}: 40,001 rows.`).waitFor({ timeout: 90_000 });

    // One collection made, once, with the type chosen on the second try.
    const collections = await call<{ items: { tag: string; read_options: unknown }[] }>(
      server,
      'GET',
      `/workflows/${project.workflowId}/datacollections`,
      { token: owner.access_token },
    );
    const made = collections.body.items.filter((collection) => collection.tag !== 't');
    expect(made.map((collection) => collection.tag)).toEqual([name]);
    expect(made[0]?.read_options).toMatchObject({ columns: { count: 'string' } });
    await context.close();
  }, 180_000);

  it('reads every file dropped, and proposes one collection per set of columns', async () => {
    const { access_token: admin } = await login(server, ADMIN.email, ADMIN.password);
    const owner = await createUser(server, admin, 'many-files@example.org');
    const project = await createProjectWithUpload(server, owner.access_token, 'Plots and rain');
    const { context, page } = await openPage(browser, server, `/auth/sign-in?next=/projects/${project.projectId}`, {
      height: 1200,
    });
    await submitPasswordSignIn(page, owner.user.email, 'many-files@example.org-password');
    await page.getByRole('heading', { level: 1, name: 'Plots and rain' }).waitFor();
    await page.getByRole('button', { name: 'Add data' }).click();
    const addData = page.getByRole('region', { name: 'Add data' });
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      addData.getByRole('button', { name: 'Choose files…' }).click(),
    ]);
    await chooser.setFiles([
      {
        name: 'plots-north.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('plot,site,area\n1,North,2.5\n2,North,3\n'),
      },
      { name: 'rain.csv', mimeType: 'text/csv', buffer: Buffer.from('day,mm\n2024-05-01,12\n') },
      // The same columns in another order: the same collection.
      { name: 'plots-south.csv', mimeType: 'text/csv', buffer: Buffer.from('site,plot,area\nSouth,3,1.5\n') },
    ]);

    await addData.getByText('2 collections').waitFor();
    const plots = addData.getByRole('region', { name: 'Collection plots' });
    const rain = addData.getByRole('region', { name: 'Collection rain' });
    expect(await plots.getByRole('textbox', { name: 'Collection name' }).inputValue()).toBe('plots');
    await plots.getByText('plots-north.csv, plots-south.csv').waitFor();
    // Each file's rows, not only the first file's.
    await plots
      .getByRole('table', { name: 'Preview of the first rows' })
      .getByRole('cell', { name: 'North' })
      .first()
      .waitFor();
    await plots.getByRole('combobox', { name: 'Rows of' }).selectOption('plots-south.csv');
    await plots
      .getByRole('table', { name: 'Preview of the first rows' })
      .getByRole('cell', { name: 'South' })
      .waitFor();
    await rain.getByRole('table', { name: 'Preview of the first rows' }).getByRole('cell', { name: '12' }).waitFor();
    expect(await rain.getByRole('combobox', { name: 'Rows of' }).count()).toBe(0);
    await expectAccessibleInBothThemes(page, 'add data, two collections');
    await saveScreenshot(page, 'add-data-collections');

    for (const [section, text] of [
      [plots, 'plots: 3 rows.'],
      [rain, 'rain: 1 rows.'],
    ] as const) {
      await section.getByRole('button', { name: 'Create' }).click();
      await section
        .getByRole('status')
        .filter({ hasText: 'The table is ready' })
        .getByText(text)
        .waitFor({ timeout: 60_000 });
    }
    const collections = await call<{ items: { tag: string; pattern: string }[] }>(
      server,
      'GET',
      `/workflows/${project.workflowId}/datacollections`,
      { token: owner.access_token },
    );
    expect(
      collections.body.items
        .map(({ tag, pattern }) => [tag, pattern])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ).toEqual([
      ['plots', 'plots/[^/]+'],
      ['rain', 'rain/[^/]+'],
      ['t', expect.any(String)],
    ]);
    await context.close();
  }, 120_000);

  it('adds JSON lines to a project that has a workflow; a viewer is not offered Add data', async () => {
    const { access_token: admin } = await login(server, ADMIN.email, ADMIN.password);
    const owner = await createUser(server, admin, 'lines-owner@example.org');
    const viewer = await createUser(server, admin, 'lines-viewer@example.org');
    const project = await createProjectWithUpload(server, owner.access_token, 'Field events');
    await call(server, 'PUT', `/projects/${project.projectId}/permissions`, {
      token: owner.access_token,
      json: { owners: [owner.user.email], editors: [], viewers: [viewer.user.email], is_public: false },
    });

    const { context, page } = await openPage(browser, server, `/auth/sign-in?next=/projects/${project.projectId}`);
    await submitPasswordSignIn(page, owner.user.email, 'lines-owner@example.org-password');
    await page.getByRole('heading', { level: 1, name: 'Field events' }).waitFor();
    // The project has data: Add data waits behind its button.
    expect(await page.getByRole('region', { name: 'Add data' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Add data' }).click();
    const addData = page.getByRole('region', { name: 'Add data' });
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      addData.getByRole('button', { name: 'Choose files…' }).click(),
    ]);
    const lines = '{"station": "north", "level": 1.5, "ok": true}\n{"station": "south", "level": 2.25, "ok": false}\n';
    await chooser.setFiles({
      name: 'Station Events.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(lines),
    });

    // JSON carries its own types: shown, not chosen; no delimiter or markers to set.
    const preview = addData.getByRole('table', { name: 'Preview of the first rows' });
    await preview.getByRole('cell', { name: 'south' }).waitFor();
    expect(await preview.getByRole('columnheader').allTextContents()).toEqual([
      'stationstring',
      'leveldouble',
      'okboolean',
    ]);
    expect(await addData.getByRole('combobox', { name: 'Delimiter' }).count()).toBe(0);
    expect(await addData.getByRole('combobox', { name: 'Format' }).inputValue()).toBe('ndjson');
    expect(await addData.getByRole('combobox', { name: 'Workflow' }).inputValue()).toBe(project.workflowId);
    const name = addData.getByRole('textbox', { name: 'Collection name' });
    expect(await name.inputValue()).toBe('station_events');
    // A name the workflow already uses is refused before anything is made.
    await name.fill('t');
    await addData.getByText('the workflow already has a collection of this name').waitFor();
    expect(await addData.getByRole('button', { name: 'Create' }).isDisabled()).toBe(true);
    await name.fill('station_events');
    await addData.getByRole('button', { name: 'Create' }).click();
    const ready = addData.getByRole('status').filter({ hasText: 'The table is ready' });
    await ready.getByText('station_events: 2 rows.').waitFor({ timeout: 60_000 });

    // The new collection sits beside the old one in the same workflow; closing shows the page as before.
    await addData.getByRole('button', { name: 'Close Add data' }).click();
    await page.getByRole('button', { name: 'station_events' }).waitFor();
    await page.getByRole('button', { name: /^t\s*csv$/ }).waitFor();
    await context.close();

    const asViewer = await openPage(browser, server, `/auth/sign-in?next=/projects/${project.projectId}`);
    await submitPasswordSignIn(asViewer.page, viewer.user.email, 'lines-viewer@example.org-password');
    await asViewer.page.getByRole('button', { name: 'station_events' }).waitFor();
    expect(await asViewer.page.getByRole('button', { name: 'Add data' }).count()).toBe(0);
    await asViewer.page.goto(`${server.url}/projects/${project.projectId}?add=1`);
    await asViewer.page.getByRole('button', { name: 'station_events' }).waitFor();
    expect(await asViewer.page.getByRole('region', { name: 'Add data' }).count()).toBe(0);
    await asViewer.context.close();
  }, 120_000);
});
