import { readFileSync } from 'node:fs';
import type { Browser, Download, Page } from 'playwright-core';
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

/** Opens the dashboard's menu and picks one item. */
async function menuItem(page: Page, item: string): Promise<void> {
  await page.getByRole('button', { name: 'Dashboard ▾' }).click();
  await page.getByRole('menuitem', { name: item }).click();
}

describeBrowser('managing dashboards from their menu', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    // A product name of its own (SERVICE_APP_NAME): the header and the tab show it.
    server = await startWebServer({ SERVICE_APP_NAME: 'Soil Lab Data' });
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await browser?.close();
  });

  it('renames, duplicates, shares, downloads, uploads and deletes a dashboard as a new user would', async () => {
    const { access_token: admin } = await login(server, ADMIN.email, ADMIN.password);
    const nina = await createUser(server, admin, 'nina-manage@example.org');
    const omar = await createUser(server, admin, 'omar-manage@example.org');
    const project = await createProjectWithUpload(server, nina.access_token, 'Nina’s soil survey');
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: nina.access_token,
      json: {
        project_id: project.projectId,
        title: 'Draft',
        components: [{ component_id: 'intro', type: 'text', markdown: 'Soil **pH** by site' }],
        layout: [{ component_id: 'intro', x: 0, y: 0, w: 6, h: 2 }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.dashboard_id;

    const { context, page } = await openPage(browser, server, `/auth/sign-in?next=/dashboards/${id}`);
    await submitPasswordSignIn(page, nina.user.email, 'nina-manage@example.org-password');
    await page.getByRole('heading', { level: 1, name: 'Draft' }).waitFor();
    await page.getByRole('banner').getByRole('link', { name: 'Soil Lab Data' }).waitFor();
    expect(await page.title()).toBe('Soil Lab Data');

    // Rename: the title changes on the page and on the server, the content stays.
    await menuItem(page, 'Rename…');
    const rename = page.getByRole('dialog', { name: 'Rename the dashboard' });
    await rename.getByRole('textbox', { name: 'Title' }).fill('Soil pH');
    await expectAccessibleInBothThemes(page, 'rename dialog');
    await rename.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { level: 1, name: 'Soil pH' }).waitFor();
    const renamed = await call<{ title: string; components: unknown[] }>(server, 'GET', `/dashboards/${id}`, {
      token: nina.access_token,
    });
    expect(renamed.body.title).toBe('Soil pH');
    expect(renamed.body.components).toHaveLength(1);

    // Share with Omar as a viewer: he can read it afterwards, and could not before.
    expect((await call(server, 'GET', `/dashboards/${id}`, { token: omar.access_token })).status).toBe(404);
    await menuItem(page, 'Share…');
    const share = page.getByRole('dialog', { name: 'Share the dashboard' });
    await share.getByRole('textbox', { name: 'Add a person by email' }).fill(omar.user.email);
    await share.getByRole('button', { name: 'Add', exact: true }).click();
    await saveScreenshot(page, 'dashboard-share');
    await expectAccessibleInBothThemes(page, 'share dialog');
    await share.getByRole('button', { name: 'Save sharing' }).click();
    await share.getByRole('status').getByText('Sharing saved.').waitFor();
    expect((await call(server, 'GET', `/dashboards/${id}`, { token: omar.access_token })).status).toBe(200);
    await share.getByRole('button', { name: 'Close' }).click();
    await share.waitFor({ state: 'detached' });

    // Download the YAML: a file named after the title, holding the content.
    const [download] = await Promise.all([page.waitForEvent('download'), menuItem(page, 'Download YAML')]);
    expect((download as Download).suggestedFilename()).toBe('soil-ph.dashboard.yaml');
    const yaml = readFileSync(await download.path(), 'utf8');
    expect(yaml).toContain('title: Soil pH');
    expect(yaml).toContain('Soil **pH** by site');

    // Duplicate: the copy opens, owned by Nina.
    await menuItem(page, 'Duplicate');
    await page.getByRole('heading', { level: 1, name: /^Soil pH \(copy\)/ }).waitFor();
    const copyId = new URL(page.url()).pathname.split('/').pop() ?? '';
    expect(copyId).not.toBe(id);

    // Delete the copy after the confirmation: back on the project page, and gone from the server.
    await menuItem(page, 'Delete…');
    const confirm = page.getByRole('dialog', { name: 'Delete the dashboard?' });
    await confirm.getByText(/are deleted for everyone it is shared with/).waitFor();
    await expectAccessibleInBothThemes(page, 'delete dialog');
    await saveScreenshot(page, 'dashboard-delete');
    await confirm.getByRole('button', { name: 'Delete dashboard' }).click();
    await page.waitForURL((url) => url.pathname === `/projects/${project.projectId}`);
    expect((await call(server, 'GET', `/dashboards/${copyId}`, { token: nina.access_token })).status).toBe(404);
    const list = page.getByRole('region', { name: 'Dashboards' });
    await list.getByRole('link', { name: 'Soil pH', exact: true }).waitFor();
    expect(await list.getByRole('link', { name: /copy/ }).count()).toBe(0);

    // Upload the downloaded YAML as a new dashboard of the project.
    await page.getByRole('button', { name: 'New dashboard' }).click();
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.getByRole('menuitem', { name: 'Upload a dashboard.yaml…' }).click(),
    ]);
    await chooser.setFiles({ name: 'soil.dashboard.yaml', mimeType: 'application/yaml', buffer: Buffer.from(yaml) });
    await page.waitForURL((url) => /^\/dashboards\/[0-9a-f-]{36}$/.test(url.pathname) && !url.pathname.endsWith(id));
    await page.getByRole('heading', { level: 1, name: 'Soil pH' }).waitFor();
    await page.getByText('Soil').locator('strong', { hasText: 'pH' }).waitFor();
    await context.close();
  }, 120_000);

  it('shows a viewer the menu without the owner’s items, and the server’s refusal of a broken upload', async () => {
    const { access_token: admin } = await login(server, ADMIN.email, ADMIN.password);
    const owner = await createUser(server, admin, 'owner-menu@example.org');
    const viewer = await createUser(server, admin, 'viewer-menu@example.org');
    const project = await createProjectWithUpload(server, owner.access_token, 'Menu rights');
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: owner.access_token,
      json: { project_id: project.projectId, title: 'Owned by someone else' },
    });
    const shared = await call(server, 'PUT', `/dashboards/${created.body.dashboard_id}/permissions`, {
      token: owner.access_token,
      json: { owners: [owner.user.email], viewers: [viewer.user.email], is_public: false },
    });
    expect(shared.status, shared.text).toBe(200);

    const { context, page } = await openPage(
      browser,
      server,
      `/auth/sign-in?next=/dashboards/${created.body.dashboard_id}`,
    );
    await submitPasswordSignIn(page, viewer.user.email, 'viewer-menu@example.org-password');
    await page.getByRole('heading', { level: 1, name: 'Owned by someone else' }).waitFor();
    await page.getByRole('button', { name: 'Dashboard ▾' }).click();
    await page.getByRole('menuitem', { name: 'Download YAML' }).waitFor();
    const items = await page.getByRole('menuitem').allTextContents();
    expect(items).toEqual(['Duplicate', 'Download YAML']);
    await page.keyboard.press('Escape');

    // The owner's project page: a YAML with a problem is refused with the server's words.
    await context.close();
    const ownerPage = await openPage(browser, server, `/auth/sign-in?next=/projects/${project.projectId}`);
    await submitPasswordSignIn(ownerPage.page, owner.user.email, 'owner-menu@example.org-password');
    await ownerPage.page.getByRole('button', { name: 'New dashboard' }).click();
    const [chooser] = await Promise.all([
      ownerPage.page.waitForEvent('filechooser'),
      ownerPage.page.getByRole('menuitem', { name: 'Upload a dashboard.yaml…' }).click(),
    ]);
    await chooser.setFiles({
      name: 'bad.yaml',
      mimeType: 'application/yaml',
      buffer: Buffer.from('title: [unclosed\n'),
    });
    await ownerPage.page.getByRole('alert').waitFor();
    expect(new URL(ownerPage.page.url()).pathname).toBe(`/projects/${project.projectId}`);
    await ownerPage.context.close();
  }, 120_000);
  it('remembers the session: a new tab and a restarted browser open a dashboard link without signing in', async () => {
    const { access_token: admin } = await login(server, ADMIN.email, ADMIN.password);
    const rita = await createUser(server, admin, 'rita-remember@example.org');
    const project = await createProjectWithUpload(server, rita.access_token, 'Remembered');
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: rita.access_token,
      json: { project_id: project.projectId, title: 'Remembered dashboard' },
    });
    const path = `/dashboards/${created.body.dashboard_id}`;
    const first = await openPage(browser, server, `/auth/sign-in?next=${encodeURIComponent(path)}`);
    await submitPasswordSignIn(first.page, rita.user.email, 'rita-remember@example.org-password');
    await first.page.getByRole('heading', { level: 1, name: 'Remembered dashboard' }).waitFor();

    // A link opened in a new tab.
    const tab = await first.context.newPage();
    await tab.goto(`${server.url}${path}`);
    await tab.getByRole('heading', { level: 1, name: 'Remembered dashboard' }).waitFor();
    expect(new URL(tab.url()).pathname).toBe(path);

    // The browser restarted: a new context with what the browser kept on disk.
    const kept = await first.context.storageState();
    const restarted = await browser.newContext({ storageState: kept });
    const later = await restarted.newPage();
    await later.goto(`${server.url}${path}`);
    await later.getByRole('heading', { level: 1, name: 'Remembered dashboard' }).waitFor();

    // An expired access token is refreshed with the kept refresh token, without asking to sign in.
    const STORED = `JSON.parse(localStorage.getItem('service.session'))`;
    const before = (await later.evaluate(STORED)) as { refresh_token: string };
    await later.evaluate(
      `localStorage.setItem('service.session', JSON.stringify({ ...${STORED}, access_token: 'expired' }))`,
    );
    await later.reload();
    await later.getByRole('heading', { level: 1, name: 'Remembered dashboard' }).waitFor();
    const after = (await later.evaluate(STORED)) as { access_token: string; refresh_token: string };
    expect(after.access_token).not.toBe('expired');
    expect(after.refresh_token).not.toBe(before.refresh_token);
    await restarted.close();

    // Signing out forgets it: the kept copy no longer signs anyone in.
    await first.page.getByRole('button', { name: /^Account menu for/ }).click();
    await first.page.getByRole('menuitem', { name: 'Sign out' }).click();
    await first.page.waitForURL(/\/auth\/sign-in/);
    expect(await first.page.evaluate(`localStorage.getItem('service.session')`)).toBeNull();
    const stale = await browser.newContext({ storageState: kept });
    const again = await stale.newPage();
    await again.goto(`${server.url}${path}`);
    await again.waitForURL(/\/auth\/sign-in\?next=/);
    await stale.close();
    await first.context.close();
  }, 120_000);
  it('deletes a collection, then its project, each after a summary of what goes with it', async () => {
    const { access_token: admin } = await login(server, ADMIN.email, ADMIN.password);
    const dora = await createUser(server, admin, 'dora-delete@example.org');
    const project = await createProjectWithUpload(server, dora.access_token, 'Short-lived survey');
    const shown = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: dora.access_token,
      json: {
        project_id: project.projectId,
        title: 'Rows of t',
        components: [{ component_id: 'rows', type: 'table', data_collection_id: project.collectionId }],
      },
    });
    expect(shown.status, shown.text).toBe(201);
    const path = `/projects/${project.projectId}?dc=${project.collectionId}`;
    const { context, page } = await openPage(browser, server, `/auth/sign-in?next=${encodeURIComponent(path)}`);
    await submitPasswordSignIn(page, dora.user.email, 'dora-delete@example.org-password');

    await page.getByRole('button', { name: 'Delete collection…' }).click();
    const collectionDialog = page.getByRole('dialog', { name: 'Delete the data collection?' });
    await collectionDialog
      .getByRole('list', { name: 'Dashboards that show the collection' })
      .getByText('Rows of t')
      .waitFor();
    await collectionDialog.getByText(/Its 1 file stay with the runs/).waitFor();
    await expectAccessibleInBothThemes(page, 'delete collection dialog');
    await saveScreenshot(page, 'delete-collection');
    await collectionDialog.getByRole('button', { name: 'Delete collection' }).click();
    await page.waitForURL((url) => url.pathname === `/projects/${project.projectId}` && !url.searchParams.has('dc'));
    await page.getByText('No data collections.').waitFor();
    const gone = await call(server, 'GET', `/datacollections/${project.collectionId}`, { token: dora.access_token });
    expect(gone.status).toBe(404);

    await page.getByRole('button', { name: 'Delete project…' }).click();
    const projectDialog = page.getByRole('dialog', { name: 'Delete the project?' });
    const goes = projectDialog.getByRole('list', { name: 'What goes with the project' });
    await goes.getByText('1 workflow', { exact: true }).waitFor();
    await goes.getByText('0 data collections and their tables, every version').waitFor();
    await goes.getByText('1 dashboard, also for the people they are shared with').waitFor();
    await expectAccessibleInBothThemes(page, 'delete project dialog');
    await saveScreenshot(page, 'delete-project');
    await projectDialog.getByRole('button', { name: 'Delete project' }).click();
    await page.waitForURL((url) => url.pathname === '/projects');
    expect((await call(server, 'GET', `/projects/${project.projectId}`, { token: dora.access_token })).status).toBe(
      404,
    );
    const dashboard = await call(server, 'GET', `/dashboards/${shown.body.dashboard_id}`, { token: dora.access_token });
    expect(dashboard.status).toBe(404);
    await context.close();
  }, 120_000);
});
