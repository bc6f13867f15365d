import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
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
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createUser,
  login,
  type TestServer,
} from '../../test/support/test-server.js';
import { CHART_SETTLED } from './support/e2e-dashboards.js';

/** 30 penguins: species in turn Adelie, Gentoo, Chinstrap (10 each); mass 3,000 g, 3,100 g, … */
function penguins(): string {
  const species = ['Adelie', 'Gentoo', 'Chinstrap'];
  const rows = Array.from({ length: 30 }, (_, i) => `P${i + 1},${species[i % 3]},${3000 + i * 100}`);
  return `${['sample,species,mass', ...rows].join('\n')}\n`;
}

/** A port free right now: the server's public URL (in embed tokens' addresses) must name it. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((done) => probe.close(() => done()));
  return port;
}

/** Another website (another origin): serves `page` at `/`, set by the test. */
async function otherSite(): Promise<{ url: string; setPage(html: string): void; close(): Promise<void> }> {
  let page = '';
  const server: Server = createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    setPage: (html) => {
      page = html;
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

const OWNER = 'owner@example.org';
let browser: Browser;
let server: TestServer;
let dashboardId: string;

/** Every cell drawn and every chart finished (polled through evaluate: the app's CSP refuses waitForFunction's strings). */
const DRAWN = `(() => {
  const cells = [...document.querySelectorAll('[data-component-id]')];
  return cells.length > 0 && cells.every((cell) => cell.getAttribute('data-state') === 'ready') &&
    [...document.querySelectorAll('[data-chart-state]')].every(${CHART_SETTLED}) &&
    document.querySelector('.mantine-Loader-root') === null;
})()`;

/** Picks `item` in the menu of the cell named `cell`. */
async function menuItem(page: Page, cell: string, item: string): Promise<void> {
  await page.getByRole('button', { name: `Menu of ${cell}` }).click();
  await page
    .getByRole('menu', { name: `Menu of ${cell}` })
    .getByRole('menuitem', { name: item })
    .click();
}

/** The file a menu item downloads: its suggested name and its bytes. */
async function downloaded(page: Page, cell: string, item: string): Promise<{ name: string; bytes: Buffer }> {
  const [download] = await Promise.all([page.waitForEvent('download'), menuItem(page, cell, item)]);
  return { name: (download as Download).suggestedFilename(), bytes: readFileSync(await download.path()) };
}

async function clipboard(page: Page): Promise<string> {
  return page.evaluate('navigator.clipboard.readText()') as Promise<string>;
}

describeBrowser('exporting and embedding a dashboard component in a real browser', () => {
  let site: Awaited<ReturnType<typeof otherSite>>;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    browser = await launchBrowser();
    const port = await freePort();
    server = await startWebServer({ SERVICE_PORT: String(port), SERVICE_PUBLIC_URL: `http://127.0.0.1:${port}` });
    site = await otherSite();
    const admin = await login(server, ADMIN.email, ADMIN.password);
    const owner = await createUser(server, admin.access_token, OWNER);
    const project = await createProjectWithUpload(server, owner.access_token, 'Penguin export', penguins());
    const upsert = await call(server, 'POST', '/deltatables/upsert', {
      token: owner.access_token,
      json: { data_collection_id: project.collectionId },
    });
    expect(upsert.status, upsert.text).toBe(200);
    const dc = project.collectionId;
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: owner.access_token,
      json: {
        project_id: project.projectId,
        title: 'Penguin export',
        components: [
          {
            component_id: 'bars',
            type: 'figure',
            title: 'By species',
            data_collection_id: dc,
            chart: 'bar',
            x: 'species',
          },
          { component_id: 'count', type: 'card', title: 'Penguins counted', data_collection_id: dc, agg: 'count' },
          { component_id: 'rows', type: 'table', title: 'Rows', data_collection_id: dc, columns: ['sample', 'mass'] },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;

    ({ context, page } = await openPage(browser, server, '/auth/sign-in', { height: 900, timeout: 20_000 }));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await submitPasswordSignIn(page, OWNER, `${OWNER}-password`);
    await page.getByRole('button', { name: `Account menu for ${OWNER}` }).waitFor();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await server?.stop();
  });

  async function openDashboard(query = ''): Promise<void> {
    await page.goto(`${server.url}/dashboards/${dashboardId}${query}`);
    await page.getByRole('heading', { level: 1, name: 'Penguin export' }).waitFor();
    await expect.poll(() => page.evaluate(DRAWN), { timeout: 15_000 }).toBe(true);
  }

  it('downloads a figure as PNG, SVG and CSV, a table as CSV under the filters, and copies the spec', async () => {
    await openDashboard();
    const chart = page.getByRole('region', { name: 'By species', exact: true }).locator('[data-chart-state]');
    const size = await chart.evaluate((element) => ({ width: element.clientWidth, height: element.clientHeight }));

    const png = await downloaded(page, 'By species', 'Download PNG');
    expect(png.name).toBe('By_species.png');
    expect(png.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    // Twice the size on screen (IHDR: width and height, big-endian, at bytes 16 and 20).
    expect([png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)]).toEqual([size.width * 2, size.height * 2]);

    const svg = await downloaded(page, 'By species', 'Download SVG');
    expect(svg.name).toBe('By_species.svg');
    const svgText = svg.bytes.toString('utf8');
    expect(svgText).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svgText).toContain(`width="${size.width}"`);
    for (const text of ['By species', 'Adelie', 'Gentoo', 'Chinstrap']) expect(svgText).toContain(text);
    // One bar per species: ECharts draws each as a path with the series' fill.
    expect(svgText.match(/<path d="M[^"]*"[^>]*fill="#[0-9a-f]{6}"/gi)?.length).toBeGreaterThanOrEqual(3);

    const figureCsv = await downloaded(page, 'By species', 'Download CSV');
    expect(figureCsv.name).toBe('By_species.csv');
    expect(figureCsv.bytes.toString('utf8').split('\r\n').slice(0, 1)).toEqual(['species,count,other']);
    expect(figureCsv.bytes.toString('utf8')).toMatch(/\r\nAdelie,10,false\r\n/);

    const cardCsv = await downloaded(page, 'Penguins counted', 'Download CSV');
    expect(cardCsv.bytes.toString('utf8')).toBe('label,value,unfiltered_value\r\nrows,30,30\r\n');

    // Filtered by a click on the Gentoo bar (through the address bar here): the table's CSV has its rows only.
    await openDashboard(
      `?filters=${encodeURIComponent(JSON.stringify([{ component_id: 'bars', value: ['Gentoo'] }]))}`,
    );
    const tableCsv = await downloaded(page, 'Rows', 'Download CSV');
    expect(tableCsv.name).toBe('Rows.csv');
    const lines = tableCsv.bytes.toString('utf8').trim().split(/\r?\n/);
    expect(lines[0]).toBe('sample,mass');
    expect(lines.slice(1)).toEqual(Array.from({ length: 10 }, (_, i) => `P${3 * i + 2},${3100 + 300 * i}`));

    await menuItem(page, 'By species', 'Copy spec JSON');
    await page.getByText('Spec JSON copied').waitFor();
    const spec = JSON.parse(await clipboard(page)) as { type: string; spec: { dataset: { source: unknown[] } } };
    expect(spec).toMatchObject({ dashboard_id: dashboardId, component_id: 'bars', type: 'figure' });
    // Filtered as shown: the Gentoo bar alone carries rows (the cross-filter never filters its own figure).
    expect(JSON.stringify(spec.spec.dataset)).toContain('Gentoo');

    // Changed in the page (a new history entry, as a click makes): the menu reads the filters shown now.
    const adelie = JSON.stringify(JSON.stringify([{ component_id: 'bars', value: ['Adelie'] }]));
    await page.evaluate(`(() => {
      const url = new URL(location.href);
      url.searchParams.set('filters', ${adelie});
      history.pushState(history.state, '', url);
      dispatchEvent(new PopStateEvent('popstate', { state: history.state }));
    })()`);
    const shown = `document.querySelector('[data-view-key]')?.getAttribute('data-view-key')?.includes('Adelie') && ${DRAWN}`;
    await expect.poll(() => page.evaluate(shown), { timeout: 15_000 }).toBe(true);
    const adelieCsv = await downloaded(page, 'Rows', 'Download CSV');
    expect(adelieCsv.bytes.toString('utf8').trim().split(/\r?\n/).slice(1)).toEqual(
      Array.from({ length: 10 }, (_, i) => `P${3 * i + 1},${3000 + 300 * i}`),
    );
  }, 60_000);

  it('creates an embed token, copies its iframe, frames it on another site, and revokes it: the frame then says 401', async () => {
    await openDashboard();
    await menuItem(page, 'By species', 'Embed…');
    const dialog = page.getByRole('dialog', { name: 'Embed By species' });
    await dialog.getByText('No embed tokens yet.').waitFor();
    await expectAccessible(page, 'the embed dialog');

    await dialog.getByRole('combobox', { name: 'Expires in' }).selectOption({ label: '7 days' });
    await dialog.getByRole('button', { name: 'Create embed token' }).click();
    const snippetField = dialog.getByRole('textbox', { name: 'Embed snippet' });
    await snippetField.waitFor();
    const snippet = await snippetField.inputValue();
    const pageUrl = await dialog.getByRole('textbox', { name: 'Page URL' }).inputValue();
    expect(pageUrl).toMatch(
      new RegExp(`^${server.url}/service/api/v1/export/components/${dashboardId}/bars\\?format=html&token=emb_`),
    );
    expect(snippet).toBe(
      `<iframe src="${pageUrl.replace(/&/g, '&amp;')}" title="By species" width="100%" height="400" ` +
        'style="border:0" loading="lazy" referrerpolicy="no-referrer"></iframe>',
    );
    await dialog.getByRole('button', { name: 'Copy the embed snippet' }).click();
    await dialog.getByRole('button', { name: 'Copied the embed snippet' }).waitFor();
    expect(await clipboard(page)).toBe(snippet);

    // Listed (never with its secret), expiring in a week.
    const row = dialog.getByRole('table', { name: 'Embed tokens' }).locator('tbody tr');
    await expect.poll(() => row.count()).toBe(1);
    await row.getByText('active').waitFor();
    expect(await row.textContent()).toContain('By species');
    expect(await dialog.getByRole('table', { name: 'Embed tokens' }).textContent()).not.toContain('emb_');
    const expires = (await row.locator('td').nth(2).textContent()) ?? '';
    const week = Date.now() + 7 * 24 * 3600 * 1000;
    expect(Math.abs(Date.parse(expires.replace(' ', 'T')) - week)).toBeLessThan(24 * 3600 * 1000);
    await expectAccessible(page, 'the embed dialog with a new token');
    await saveScreenshot(dialog, 'embed-dialog');

    // The snippet, pasted into another site, shows the chart.
    site.setPage(`<!doctype html><html lang="en"><title>Blog</title><body><h1>My post</h1>${snippet}</body></html>`);
    const host = await context.newPage();
    await host.goto(site.url);
    const frame = host.frameLocator('iframe[title="By species"]');
    await frame.locator('canvas, svg').first().waitFor();
    // Its use is recorded.
    await dialog.getByRole('button', { name: /^Revoke the token/ }).waitFor();
    await page.reload();
    await expect.poll(() => page.evaluate(DRAWN), { timeout: 15_000 }).toBe(true);
    await menuItem(page, 'By species', 'Embed…');
    const reopened = page.getByRole('dialog', { name: 'Embed By species' });
    const listed = reopened.getByRole('table', { name: 'Embed tokens' }).locator('tbody tr');
    await expect.poll(async () => (await listed.locator('td').nth(3).textContent()) ?? '').not.toBe('never');

    await reopened.getByRole('button', { name: /^Revoke the token for By species/ }).click();
    await listed.getByText('revoked').waitFor();
    expect(await reopened.getByRole('button', { name: /^Revoke the token/ }).count()).toBe(0);

    // Framed again, the page answers 401 and says why inside the frame.
    const statuses: number[] = [];
    host.on('response', (response) => {
      if (response.url() === pageUrl) statuses.push(response.status());
    });
    await host.reload();
    await frame.getByText('Invalid Token').waitFor();
    expect(statuses).toEqual([401]);
    expect(await frame.locator('canvas').count()).toBe(0);
    await host.close();
  }, 90_000);

  it('offers Export but not Embed to a viewer', async () => {
    const admin = await login(server, ADMIN.email, ADMIN.password);
    const viewer = await createUser(server, admin.access_token, 'viewer@example.org');
    const owner = await login(server, OWNER, `${OWNER}-password`);
    const shared = await call(server, 'PUT', `/dashboards/${dashboardId}/permissions`, {
      token: owner.access_token,
      json: { owners: [OWNER], viewers: ['viewer@example.org'], is_public: false },
    });
    expect(shared.status, shared.text).toBe(200);
    expect(viewer.user.email).toBe('viewer@example.org');
    const { context: viewing, page: viewerPage } = await openPage(browser, server, '/auth/sign-in', {
      timeout: 20_000,
    });
    await submitPasswordSignIn(viewerPage, 'viewer@example.org', 'viewer@example.org-password');
    await viewerPage.getByRole('button', { name: 'Account menu for viewer@example.org' }).waitFor();
    await viewerPage.goto(`${server.url}/dashboards/${dashboardId}`);
    await viewerPage.getByRole('button', { name: 'Menu of By species' }).click();
    await viewerPage.getByRole('menuitem', { name: 'Download PNG' }).waitFor();
    expect(await viewerPage.getByRole('menuitem', { name: 'Embed…' }).count()).toBe(0);
    await viewing.close();
  }, 60_000);
});
