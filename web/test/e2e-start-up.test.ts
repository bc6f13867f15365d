import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, startWebServer, watchPolicyViolations } from '../../test/support/browser.js';
import { ADMIN, call, createProjectWithUpload, login, type TestServer } from '../../test/support/test-server.js';

/**
 * Start-up with a stored session: the boot script inlined into index.html sends the first screen's
 * GETs before the app's code has arrived, and the app adopts their answers (docs/performance.md,
 * `web`). These tests watch the requests the browser really sends, and who sent them.
 */

const TIMEOUT = 20_000;
const API = '/service/api/v1/';

interface SentRequest {
  method: string;
  /** Path and query under the API prefix. */
  path: string;
  /** The script that called fetch: the page itself (the inline boot script) or a bundle. */
  initiator: 'boot script' | 'app bundle' | 'other';
  /** A POST's body. */
  body?: string;
}

let browser: Browser;

// Run in the page, as text: the tests are compiled without the DOM's types.
const STORED_SESSION = `JSON.parse(localStorage.getItem('service.session') ?? 'null')`;
/** Keeps every Content-Security-Policy violation of the page in `window.__violations`. */
const RECORD_POLICY_VIOLATIONS = `window.__violations = [];
  document.addEventListener('securitypolicyviolation', (event) => {
    window.__violations.push(event.effectiveDirective + ' ' + (event.blockedURI || 'inline'));
  });`;
/** Adds a script element to the page, as an injection would; whether it ran. */
const INJECT_SCRIPT = `(() => {
  const script = document.createElement('script');
  script.textContent = 'window.__injected = true';
  document.body.append(script);
  return window.__injected === true;
})()`;
/** The app's scripts this page loaded, with their sizes from Resource Timing. */
const SCRIPTS_LOADED = `performance.getEntriesByType('resource')
  .filter((entry) => new URL(entry.name).pathname.startsWith('/assets/') && entry.name.endsWith('.js'))
  .map((entry) => ({ name: new URL(entry.name).pathname, transferred: entry.transferSize, encoded: entry.encodedBodySize, decoded: entry.decodedBodySize }))`;
interface LoadedScript {
  name: string;
  transferred: number;
  encoded: number;
  decoded: number;
}

/**
 * A fresh browser context holding `session` where the app keeps it, and the API requests of a page
 * opened at `path`. A policy violation there fails the test unless `violationsExpected`.
 */
async function openSignedIn(
  server: TestServer,
  path: string,
  session: { access_token: string; refresh_token: string; user: unknown },
  { violationsExpected = false } = {},
): Promise<{ context: BrowserContext; page: Page; sent: SentRequest[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  if (!violationsExpected) watchPolicyViolations(context);
  const stored = JSON.stringify(session);
  await context.addInitScript(`localStorage.setItem('service.session', ${JSON.stringify(stored)})`);
  await context.addInitScript(RECORD_POLICY_VIOLATIONS);
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const sent: SentRequest[] = [];
  const cdp = await context.newCDPSession(page);
  cdp.on('Network.requestWillBeSent', ({ request, initiator }) => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith(API)) return;
    const caller = initiator.stack?.callFrames[0]?.url ?? '';
    sent.push({
      method: request.method,
      path: `${url.pathname.slice(API.length - 1)}${url.search}`,
      initiator: caller.includes('/assets/') ? 'app bundle' : caller.startsWith(server.url) ? 'boot script' : 'other',
      ...(request.method === 'POST' && request.postData !== undefined ? { body: request.postData } : {}),
    });
  });
  await cdp.send('Network.enable');
  await page.goto(`${server.url}${path}`);
  return { context, page, sent };
}

describeBrowser('start-up with a stored session', () => {
  let server: TestServer;
  let session: Awaited<ReturnType<typeof login>>;
  let ids: Awaited<ReturnType<typeof createProjectWithUpload>>;
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer();
    session = await login(server, ADMIN.email, ADMIN.password);
    ids = await createProjectWithUpload(server, session.access_token, 'Start-up project', 'a,b\n1,2\n3,4\n');
    const upsert = await call(server, 'POST', '/deltatables/upsert', {
      token: session.access_token,
      json: { data_collection_id: ids.collectionId },
    });
    expect(upsert.status).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("opens a deep link to a collection's rows with the first GETs sent once, by the boot script", async () => {
    const { context, page, sent } = await openSignedIn(
      server,
      `/projects/${ids.projectId}?dc=${ids.collectionId}`,
      session,
    );
    await page.getByRole('table', { name: 'Preview of t' }).getByRole('cell', { name: '3', exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Start-up project' }).waitFor();
    await page.getByRole('button', { name: /^t/ }).waitFor();

    const gets = sent.filter((request) => request.method === 'GET');
    const byBoot = gets.filter((request) => request.initiator === 'boot script').map((request) => request.path);
    expect(byBoot).toEqual(
      expect.arrayContaining([
        '/utils/capabilities',
        '/auth/me',
        `/projects/${ids.projectId}`,
        `/projects/${ids.projectId}/workflows?limit=200`,
        `/datacollections/${ids.collectionId}`,
        `/datacollections/${ids.collectionId}/preview?limit=25&skip=0`,
      ]),
    );
    // Nothing asked twice: the app adopted the boot script's answers instead of sending its own.
    const paths = gets.map((request) => request.path);
    expect(paths.length).toBeGreaterThan(byBoot.length);
    const askedTwice = paths.filter((path, index) => paths.indexOf(path) !== index);
    expect(askedTwice).toEqual([]);
    await context.close();
  });

  it("opens a dashboard's link with its definition and its open tab's data asked for once, by the boot script", async () => {
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: session.access_token,
      json: {
        project_id: ids.projectId,
        title: 'Start-up dashboard',
        tabs: [
          { tab_id: 'intro', title: 'Intro' },
          { tab_id: 'numbers', title: 'Numbers' },
        ],
        components: [
          { component_id: 'hello', type: 'text', tab_id: 'intro', markdown: 'Hello' },
          {
            component_id: 'rows',
            type: 'card',
            tab_id: 'numbers',
            title: 'Rows',
            data_collection_id: ids.collectionId,
            agg: 'count',
          },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.dashboard_id;
    const { context, page, sent } = await openSignedIn(server, `/dashboards/${id}?tab=numbers`, session);
    await page.getByRole('heading', { level: 1, name: 'Start-up dashboard' }).waitFor();
    await page.locator('[data-component-id="rows"][data-state="ready"]').getByText('2', { exact: true }).waitFor();
    const gets = sent.filter((request) => request.method === 'GET');
    const byBoot = gets.filter((request) => request.initiator === 'boot script').map((request) => request.path);
    expect(byBoot).toEqual(['/utils/capabilities', '/auth/me', `/dashboards/${id}`]);
    const paths = gets.map((request) => request.path);
    expect(paths.filter((path, index) => paths.indexOf(path) !== index)).toEqual([]);
    // The open tab's data: sent by the boot script once the definition was in, adopted by the app.
    const posts = sent.filter((request) => request.method === 'POST');
    expect(posts).toEqual([
      {
        method: 'POST',
        path: `/dashboards/${id}/data`,
        initiator: 'boot script',
        body: '{"filters":[],"tab_id":"numbers"}',
      },
    ]);
    await context.close();

    // With filters in the address the boot script plans nothing: the app asks, once.
    const filters = encodeURIComponent(JSON.stringify([{ component_id: 'rows', value: 'x' }]));
    const filtered = await openSignedIn(server, `/dashboards/${id}?tab=numbers&filters=${filters}`, session);
    await filtered.page.locator('[data-component-id="rows"][data-state]:not([data-state="loading"])').waitFor();
    expect(filtered.sent.filter((request) => request.method === 'POST').map((request) => request.initiator)).toEqual([
      'app bundle',
    ]);
    await filtered.context.close();
  });

  it("runs under the pages' Content-Security-Policy: the boot script admitted by its hash, an injected one refused", async () => {
    const { context, page, sent } = await openSignedIn(
      server,
      `/projects/${ids.projectId}?dc=${ids.collectionId}`,
      session,
      { violationsExpected: true },
    );
    await page.getByRole('table', { name: 'Preview of t' }).getByRole('cell', { name: '3', exact: true }).waitFor();
    expect(await page.evaluate('window.__violations')).toEqual([]);
    // The inline boot script ran (it sent the first GETs), so the header's hash is the built script's.
    expect(sent.some((request) => request.initiator === 'boot script')).toBe(true);

    expect(await page.evaluate(INJECT_SCRIPT)).toBe(false);
    expect(await page.evaluate('window.__violations')).toEqual(['script-src-elem inline']);
    await context.close();
  });

  it('gets the scripts compressed, then on a second visit from the browser cache without asking', async () => {
    const path = `/projects/${ids.projectId}?dc=${ids.collectionId}`;
    const { context, page } = await openSignedIn(server, path, session);
    await page.getByRole('table', { name: 'Preview of t' }).getByRole('cell', { name: '3', exact: true }).waitFor();
    const first = (await page.evaluate(SCRIPTS_LOADED)) as LoadedScript[];
    expect(first.length).toBeGreaterThan(1);
    // The build's Brotli copies (of every script over 1 kB): far fewer bytes on the wire than the scripts hold.
    for (const script of first.filter((loaded) => loaded.decoded >= 1024)) {
      expect(script.encoded, script.name).toBeLessThan(script.decoded * 0.6);
    }

    const again = await context.newPage();
    again.setDefaultTimeout(TIMEOUT);
    await again.goto(`${server.url}${path}`);
    await again.getByRole('table', { name: 'Preview of t' }).getByRole('cell', { name: '3', exact: true }).waitFor();
    const second = (await again.evaluate(SCRIPTS_LOADED)) as LoadedScript[];
    expect(second.map((script) => script.name).sort()).toEqual(first.map((script) => script.name).sort());
    // Hashed names, cached for good: not even a revalidation goes out.
    for (const script of second) expect(script.transferred, script.name).toBe(0);
    await context.close();
  });

  it('ends on the sign-in page when the server refuses the stored session', async () => {
    const refused = { access_token: 'not-a-token', refresh_token: 'not-a-refresh-token', user: session.user };
    const { context, page, sent } = await openSignedIn(server, `/projects/${ids.projectId}`, refused);
    await page.waitForURL(/\/auth\/sign-in\?next=/);
    await page.getByRole('textbox', { name: 'Email' }).waitFor();
    expect(sent.filter((request) => request.path === '/auth/refresh')).toHaveLength(1);
    expect(await page.evaluate(STORED_SESSION)).toBeNull();
    await context.close();
  });

  it('refreshes an access token refused at start-up once, then opens the page', async () => {
    const fresh = await login(server, ADMIN.email, ADMIN.password);
    const expired = { access_token: 'expired-access-token', refresh_token: fresh.refresh_token, user: fresh.user };
    const { context, page, sent } = await openSignedIn(server, `/projects/${ids.projectId}`, expired);
    await page.getByRole('heading', { name: 'Start-up project' }).waitFor();
    expect(sent.filter((request) => request.path === '/auth/refresh')).toHaveLength(1);
    const stored = (await page.evaluate(STORED_SESSION)) as { refresh_token: string } | null;
    expect(stored?.refresh_token).not.toBe(fresh.refresh_token);
    await context.close();
  });
});
