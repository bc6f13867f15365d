import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeBrowser,
  expectAccessible,
  launchBrowser,
  saveScreenshot,
  startWebServer,
  watchPolicyViolations,
} from '../../test/support/browser.js';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  login,
  type Session,
  type TestServer,
} from '../../test/support/test-server.js';

/** `count` penguins: species in turn Adelie, Gentoo, Chinstrap; body mass 3,000 g, 3,100 g, … */
function penguins(count: number): string {
  const species = ['Adelie', 'Gentoo', 'Chinstrap'];
  const rows = Array.from({ length: count }, (_, i) => `P${i + 1},${species[i % 3]},${3000 + i * 100}`);
  return `${['sample,species,mass', ...rows].join('\n')}\n`;
}

interface Layout {
  component_id: string;
  x: number;
  y: number;
  w: number;
  h: number;
}
interface DashboardAnswer {
  dashboard_id: string;
  title: string;
  components: { component_id: string; type: string; title?: string }[];
  layout: Layout[];
}

let browser: Browser;
let server: TestServer;
let admin: Session;

/**
 * A fresh browser context at `path`; `session` is put where the app keeps it (signed in), and the
 * demo tour is marked as seen unless `tour` (it would otherwise open on every first visit).
 */
async function open(
  path: string,
  options: { session?: Session; tour?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  watchPolicyViolations(context);
  if (options.session) {
    const { access_token, refresh_token, user } = options.session;
    const stored = JSON.stringify({ access_token, refresh_token, user });
    await context.addInitScript(`sessionStorage.setItem('service.session', ${JSON.stringify(stored)})`);
  }
  if (!options.tour) await context.addInitScript(`localStorage.setItem('service.demo-tour', 'skipped')`);
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${server.url}${path}`);
  return { context, page };
}

async function dashboardOf(id: string, token = admin.access_token): Promise<DashboardAnswer> {
  const answer = await call<DashboardAnswer>(server, 'GET', `/dashboards/${id}`, { token });
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

async function project(name: string) {
  const created = await createProjectWithUpload(server, admin.access_token, name, penguins(30));
  const upsert = await call(server, 'POST', '/deltatables/upsert', {
    token: admin.access_token,
    json: { data_collection_id: created.collectionId },
  });
  expect(upsert.status, upsert.text).toBe(200);
  return created;
}

/** Opens "Add component" → `kind` and waits for its side panel. */
async function addComponent(page: Page, kind: string) {
  await page.getByRole('button', { name: 'Add component' }).click();
  await page.getByRole('menuitem', { name: kind, exact: true }).click();
  return page.getByRole('complementary', { name: `New ${kind.toLowerCase()}` });
}

describeBrowser('the dashboard editor in a real browser (demo mode)', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer({ SERVICE_AUTH_PUBLIC_MODE: 'true', SERVICE_AUTH_DEMO_MODE: 'true' });
    admin = await login(server, ADMIN.email, ADMIN.password);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('builds a dashboard from an empty one: a bar chart, a range filter and a card, one dragged; saved and there after a reload', async () => {
    const { projectId } = await project('Builder survey');
    const { context, page } = await open(`/projects/${projectId}`, { session: admin });
    await page.getByRole('button', { name: 'New dashboard' }).click();
    await page.getByRole('menuitem', { name: 'Empty dashboard' }).click();
    await page.waitForURL(/\/dashboards\/[0-9a-f-]{36}\?edit=1$/);
    const dashboardId = new URL(page.url()).pathname.split('/').pop() ?? '';
    await page.getByRole('toolbar', { name: 'Dashboard editor' }).waitFor();
    await page.getByLabel('Title', { exact: true }).first().fill('Built in the browser');

    // A bar chart of the species: only columns whose type fits are offered.
    let panel = await addComponent(page, 'Chart');
    await panel.getByLabel('Data collection').selectOption({ label: 'wf / t' });
    await panel.getByLabel('Chart type').selectOption('bar');
    const xOptions = await panel.getByLabel('X axis').locator('option').allTextContents();
    expect(xOptions).toEqual(expect.arrayContaining(['sample (string)', 'species (string)', 'mass (long)']));
    await panel.getByLabel('Chart type').selectOption('histogram');
    expect(await panel.getByLabel('X axis').locator('option').allTextContents()).not.toContain('species (string)');
    await panel.getByLabel('Chart type').selectOption('bar');
    await panel.getByLabel('X axis').selectOption('species');
    await panel.getByLabel('Title', { exact: true }).fill('Penguins per species');
    // The live preview draws the chart before it is on the dashboard.
    await panel.getByRole('region', { name: 'Preview' }).locator('[data-chart-state="rendered"]').waitFor();
    await saveScreenshot(page, 'dashboard-builder');
    await expectAccessible(page, 'the chart builder');
    await panel.getByRole('button', { name: 'Add to dashboard' }).click();
    await page.getByRole('region', { name: 'Penguins per species' }).waitFor();

    // A range filter on the mass.
    panel = await addComponent(page, 'Filter');
    await panel.getByLabel('Widget').selectOption('range');
    expect(await panel.getByLabel('Column').locator('option').allTextContents()).not.toContain('species (string)');
    await panel.getByLabel('Column').selectOption('mass');
    await panel.getByLabel('Title', { exact: true }).fill('Body mass');
    await panel.getByRole('button', { name: 'Add to dashboard' }).click();

    // A card: the mean mass.
    panel = await addComponent(page, 'Card');
    await panel.getByLabel('Aggregation').selectOption('mean');
    await panel.getByLabel('Column').selectOption('mass');
    await panel.getByLabel('Title', { exact: true }).fill('Mean mass');
    await panel.getByRole('button', { name: 'Add to dashboard' }).click();
    const card = page.getByRole('region', { name: 'Mean mass' });
    await card.locator('[data-card-value]', { hasText: '4,450' }).waitFor();

    // Undo takes the card away, redo brings it back.
    await page.getByRole('button', { name: 'Undo' }).click();
    await card.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Redo' }).click();
    await card.waitFor();

    // Drag the card by its handle to the right of the filter.
    const handle = card.locator('.dashboard-drag-handle');
    const from = await handle.boundingBox();
    const filterBox = await page.getByRole('region', { name: 'Body mass' }).boundingBox();
    if (from === null || filterBox === null) throw new Error('no card or filter to drag');
    await page.mouse.move(from.x + 10, from.y + from.height / 2);
    await page.mouse.down();
    const targetX = filterBox.x + filterBox.width + 60;
    const targetY = filterBox.y + 12;
    for (let step = 1; step <= 10; step += 1) {
      await page.mouse.move(
        from.x + 10 + ((targetX - from.x - 10) * step) / 10,
        from.y + from.height / 2 + ((targetY - from.y - from.height / 2) * step) / 10,
      );
    }
    await page.mouse.up();
    await saveScreenshot(page, 'dashboard-editor');
    await expectAccessible(page, 'edit mode');

    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Edit', exact: true }).waitFor();
    expect(new URL(page.url()).search).toBe('');
    const saved = await dashboardOf(dashboardId);
    expect(saved.title).toBe('Built in the browser');
    expect(saved.components.map((component) => component.type).sort()).toEqual(['card', 'figure', 'interactive']);
    const place = (id: string) => saved.layout.find((item) => item.component_id === id);
    const cardId = saved.components.find((component) => component.type === 'card')?.component_id ?? '';
    const filterId = saved.components.find((component) => component.type === 'interactive')?.component_id ?? '';
    expect(place(cardId)?.x).toBeGreaterThan(0);
    expect(place(cardId)?.y).toBe(place(filterId)?.y);

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Built in the browser' }).waitFor();
    await page.getByRole('region', { name: 'Mean mass' }).locator('[data-card-value]', { hasText: '4,450' }).waitFor();
    await page.getByRole('slider', { name: 'Body mass from' }).waitFor();
    await page
      .getByRole('region', { name: 'Penguins per species', exact: true })
      .locator('[data-chart-state="rendered"]')
      .waitFor();
    await context.close();
  }, 120_000);
});
