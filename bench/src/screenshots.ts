/**
 * `npm run screenshots` (after `npm run build`): the example project's dashboard in Chromium, light
 * and dark, saved as `docs/screenshots/dashboard-example.png` and `dashboard-example-dark.png` for
 * the README and docs/dashboards.md. The real server runs in a child process with the example
 * data loaded (as `service serve --example-data` does) in a throw-away folder; the dashboard opens
 * with one filter set, so its chip and the narrowed charts show. Then the Embed dialog of its first
 * figure with a token just created, as `docs/screenshots/embed-dialog.png` for docs/export.md.
 * Then the example's second dashboard, "The field's charts", in groups of kinds
 * (screenshots-field.ts) for docs/dashboards.md.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { BENCH_ADMIN_EMAIL, BENCH_ADMIN_PASSWORD } from './benchmarks/api-fixture.js';
import { field } from './benchmarks/collection-fixture.js';
import { CHARTS_RENDERED, CHROMIUM, whenDrawn } from './benchmarks/dashboard-browser.js';
import type { DashboardTargetMessage } from './benchmarks/dashboard-target.js';
import { closeConnections, requestJson } from './benchmarks/ingest-http.js';
import { startWorker } from './lib/child-worker.js';
import { FIELD_TITLE, fieldScreenshots } from './screenshots-field.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const TARGET_SCRIPT = join(HERE, 'benchmarks', 'dashboard-target.js');
const WEB_DIST = resolve(HERE, '../../web/dist');
const SCREENSHOTS = resolve(HERE, '../../docs/screenshots');
const API_PREFIX = '/service/api/v1';
const EXAMPLE_TITLE = 'Penguins at a glance';
const FILTERS = [{ component_id: 'species', value: ['Adelie', 'Gentoo'] }];
/**
 * Resolves once every figure's chart says it has finished drawing and none has started again for
 * 45 frames (the chart code loads lazily, and a chart may draw twice while the page settles).
 */
const QUIET_CHARTS = `new Promise((resolve) => {
  let quietFrames = 0;
  const observer = new MutationObserver(() => { quietFrames = 0; });
  observer.observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-chart-state'] });
  const frame = () => {
    quietFrames = ${CHARTS_RENDERED} ? quietFrames + 1 : 0;
    if (quietFrames >= 45) { observer.disconnect(); resolve(null); }
    else requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})`;

/** Resolves once no CSS transition runs (evaluated as text: the app's CSP refuses waitForFunction's). */
const TRANSITIONS_OVER = `new Promise((resolve) => {
  const check = () => document.getAnimations().some((animation) =>
    animation instanceof CSSTransition && animation.playState === 'running') ? requestAnimationFrame(check) : resolve(null);
  check();
})`;

/**
 * Waits until the page has drawn what is in sight, then grows the window to the whole page and
 * waits again: the app asks for and draws components out of sight only once scrolled to, and a
 * full-page image shows them all.
 */
async function wholePageDrawn(page: Page): Promise<void> {
  await page.evaluate(whenDrawn('\u0000', '0'));
  const viewport = page.viewportSize() ?? { width: 1440, height: 1000 };
  const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
  await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, height) });
  await page.evaluate(whenDrawn('\u0000', '0'));
}

/** The Embed dialog of the dashboard's first figure, with a token just created and listed. */
async function embedDialog(page: Page): Promise<void> {
  await page.locator('[data-component-id]:has([data-chart-state]) button[aria-label^="Menu of"]').first().click();
  await page.getByRole('menuitem', { name: 'Embed…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Create embed token' }).click();
  await dialog.getByRole('textbox', { name: 'Embed snippet' }).waitFor();
  await dialog.getByRole('table', { name: 'Embed tokens' }).getByText('active').first().waitFor();
  // The dialog's opening transition over (Mantine's is 200 ms).
  await page.evaluate(TRANSITIONS_OVER);
  const path = join(SCREENSHOTS, 'embed-dialog.png');
  await dialog.screenshot({ path });
  process.stdout.write(`wrote ${path}\n`);
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'service-screenshots-'));
  const server = await startWorker<DashboardTargetMessage>(TARGET_SCRIPT, ['example', dataDir, WEB_DIST]);
  try {
    const api = `${server.url}${API_PREFIX}`;
    const session = (await requestJson('POST', `${api}/auth/login`, {
      body: { email: BENCH_ADMIN_EMAIL, password: BENCH_ADMIN_PASSWORD },
    })) as Record<string, unknown>;
    const token = field<string>(session, 'access_token', 'POST /auth/login');
    const list = await requestJson('GET', `${api}/dashboards?limit=100`, { token });
    const dashboards = field<{ dashboard_id: string; title: string }[]>(list, 'items', 'GET /dashboards');
    const example = dashboards.find((dashboard) => dashboard.title === EXAMPLE_TITLE);
    if (example === undefined) throw new Error(`the example project has no dashboard "${EXAMPLE_TITLE}"`);
    const fieldCharts = dashboards.find((dashboard) => dashboard.title === FIELD_TITLE);
    if (fieldCharts === undefined) throw new Error(`the example project has no dashboard "${FIELD_TITLE}"`);
    closeConnections();

    const stored = JSON.stringify({
      access_token: session.access_token,
      refresh_token: session.refresh_token,
      user: session.user,
    });
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    await mkdir(SCREENSHOTS, { recursive: true });
    try {
      for (const scheme of ['light', 'dark'] as const) {
        const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, colorScheme: scheme });
        await context.addInitScript(`sessionStorage.setItem('service.session', ${JSON.stringify(stored)})`);
        const page = await context.newPage();
        const filters = encodeURIComponent(JSON.stringify(FILTERS));
        await page.goto(`${server.url}/dashboards/${example.dashboard_id}?filters=${filters}`);
        // Every cell drawn, then every chart finished and quiet.
        await wholePageDrawn(page);
        await page.evaluate(QUIET_CHARTS);
        const path = join(SCREENSHOTS, `dashboard-example${scheme === 'dark' ? '-dark' : ''}.png`);
        await page.screenshot({ path, fullPage: true });
        process.stdout.write(`wrote ${path}\n`);
        if (scheme === 'light') await embedDialog(page);
        await context.close();
      }
      const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, colorScheme: 'light' });
      await context.addInitScript(`sessionStorage.setItem('service.session', ${JSON.stringify(stored)})`);
      const page = await context.newPage();
      await page.goto(`${server.url}/dashboards/${fieldCharts.dashboard_id}`);
      await wholePageDrawn(page);
      await fieldScreenshots(page, SCREENSHOTS, () => page.evaluate(QUIET_CHARTS).then(() => undefined));
      await context.close();
    } finally {
      await browser.close();
    }
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
