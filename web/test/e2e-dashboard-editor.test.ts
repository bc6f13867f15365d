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
    await context.addInitScript(`localStorage.setItem('service.session', ${JSON.stringify(stored)})`);
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

/** The access token the signed-in page holds. */
async function tokenOf(page: Page): Promise<string> {
  return page.evaluate(`JSON.parse(localStorage.getItem('service.session')).access_token`);
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
    await expectAccessible(page, 'the chart builder');
    await saveScreenshot(page, 'dashboard-builder');
    await panel.getByRole('button', { name: 'Add to dashboard' }).click();
    await page.getByRole('region', { name: 'Penguins per species' }).waitFor();

    // A range filter on the mass.
    panel = await addComponent(page, 'Filter');
    await panel.getByLabel('Widget').selectOption('range');
    expect(await panel.getByLabel('Column').locator('option').allTextContents()).not.toContain('species (string)');
    await panel.getByLabel('Column').selectOption('mass');
    await panel.getByLabel('Title', { exact: true }).fill('Body mass');
    await panel.getByRole('button', { name: 'Add to dashboard' }).click();
    // It takes the first free slot, beside the chart rather than below it, and is highlighted.
    const filterCell = page.getByRole('region', { name: 'Body mass' });
    await page.locator('[data-added]', { hasText: 'Body mass' }).waitFor();
    const chartCell = await page.getByRole('region', { name: 'Penguins per species' }).boundingBox();
    const filterCellBox = await filterCell.boundingBox();
    expect(filterCellBox?.y).toBeCloseTo(chartCell?.y ?? -1, 0);
    expect(filterCellBox?.x ?? 0).toBeGreaterThan((chartCell?.x ?? 0) + (chartCell?.width ?? 0));

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

    // The card went under the filter (the first free slot); drag it by its handle under the chart.
    const handle = card.locator('.dashboard-drag-handle');
    const from = await handle.boundingBox();
    const chartBox = await page.getByRole('region', { name: 'Penguins per species' }).boundingBox();
    if (from === null || chartBox === null) throw new Error('no card or chart to drag');
    await page.mouse.move(from.x + 10, from.y + from.height / 2);
    await page.mouse.down();
    const targetX = chartBox.x + 20;
    const targetY = chartBox.y + chartBox.height + 30;
    for (let step = 1; step <= 10; step += 1) {
      await page.mouse.move(
        from.x + 10 + ((targetX - from.x - 10) * step) / 10,
        from.y + from.height / 2 + ((targetY - from.y - from.height / 2) * step) / 10,
      );
    }
    await page.mouse.up();
    await expectAccessible(page, 'edit mode');
    await saveScreenshot(page, 'dashboard-editor');

    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Edit', exact: true }).waitFor();
    expect(new URL(page.url()).search).toBe('');
    const saved = await dashboardOf(dashboardId);
    expect(saved.title).toBe('Built in the browser');
    expect(saved.components.map((component) => component.type).sort()).toEqual(['card', 'figure', 'interactive']);
    const place = (id: string) => saved.layout.find((item) => item.component_id === id);
    const cardId = saved.components.find((component) => component.type === 'card')?.component_id ?? '';
    const chartId = saved.components.find((component) => component.type === 'figure')?.component_id ?? '';
    const filterId = saved.components.find((component) => component.type === 'interactive')?.component_id ?? '';
    expect(place(filterId)).toMatchObject({ x: 6, y: 0 });
    expect(place(cardId)?.x).toBe(0);
    expect(place(cardId)?.y).toBe((place(chartId)?.y ?? 0) + (place(chartId)?.h ?? 0));

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

  it('makes an overview dashboard from the project page, opened in edit mode', async () => {
    const { projectId } = await project('Overview survey');
    const { context, page } = await open(`/projects/${projectId}`, { session: admin });
    await page.getByRole('button', { name: 'New dashboard' }).click();
    await page.getByRole('menuitem', { name: 'Overview of the project’s data' }).click();
    await page.waitForURL(/\/dashboards\/[0-9a-f-]{36}\?edit=1$/);
    // The server generated it: a row count per collection, a histogram of mass, a bar of species.
    await page.getByRole('region', { name: 't: rows' }).locator('[data-card-value]', { hasText: '30' }).waitFor();
    await page.getByRole('region', { name: 't: mass' }).waitFor();
    await page.getByRole('region', { name: 't: species' }).waitFor();
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.getByRole('button', { name: 'Edit', exact: true }).waitFor();
    await context.close();
  }, 60_000);

  it('shows a component whose collection is gone with its error, and lets it be removed', async () => {
    const { projectId, collectionId } = await project('Broken survey');
    const created = await call<DashboardAnswer>(server, 'POST', '/dashboards', {
      token: admin.access_token,
      json: {
        project_id: projectId,
        title: 'Half broken',
        components: [
          { component_id: 'count', type: 'card', title: 'Rows', data_collection_id: collectionId, agg: 'count' },
          { component_id: 'intro', type: 'text', markdown: 'Still here' },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const deleted = await call(server, 'DELETE', `/datacollections/${collectionId}`, { token: admin.access_token });
    expect(deleted.status, deleted.text).toBe(204);
    const id = created.body.dashboard_id;
    const { context, page } = await open(`/dashboards/${id}?edit=1`, { session: admin });
    const broken = page.getByRole('region', { name: 'Rows', exact: true });
    await broken
      .getByRole('alert')
      .getByText(/no longer exists/)
      .waitFor();
    await broken.getByRole('button', { name: 'Edit Rows' }).click();
    await page.getByRole('complementary', { name: 'Edit card' }).getByRole('button', { name: 'Close' }).click();
    await broken.getByRole('button', { name: 'Remove Rows' }).click();
    await broken.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Still here').waitFor();
    expect((await dashboardOf(id)).components.map((component) => component.component_id)).toEqual(['intro']);
    await context.close();
  }, 60_000);

  it('tells of a save made in between (412): overwrite keeps mine, reload shows theirs; leaving unsaved asks first', async () => {
    const { projectId } = await project('Conflict survey');
    const intro = [{ component_id: 'intro', type: 'text', markdown: 'Hello' }];
    const created = await call<DashboardAnswer>(server, 'POST', '/dashboards', {
      token: admin.access_token,
      json: { project_id: projectId, title: 'Shared plan', components: intro },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.dashboard_id;
    const theirs = async (title: string) => {
      const saved = await call(server, 'PUT', `/dashboards/${id}`, {
        token: admin.access_token,
        json: { title, components: intro, layout: [] },
      });
      expect(saved.status, saved.text).toBe(200);
    };
    const { context, page } = await open(`/dashboards/${id}?edit=1`, { session: admin });
    const title = page.getByRole('toolbar', { name: 'Dashboard editor' }).getByLabel('Title', { exact: true });
    await title.fill('Mine');
    await theirs('Theirs');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    let conflict = page.getByRole('dialog', { name: 'Someone else saved this dashboard' });
    await conflict.getByRole('button', { name: 'Overwrite with mine' }).click();
    await page.getByRole('heading', { level: 1, name: 'Mine' }).waitFor();
    expect((await dashboardOf(id)).title).toBe('Mine');

    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await title.fill('Mine again');
    await theirs('Theirs again');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    conflict = page.getByRole('dialog', { name: 'Someone else saved this dashboard' });
    await conflict.getByRole('button', { name: 'Reload (drop my changes)' }).click();
    await conflict.waitFor({ state: 'detached' });
    await expect.poll(() => title.inputValue()).toBe('Theirs again');
    expect((await dashboardOf(id)).title).toBe('Theirs again');

    // Unsaved changes: leaving through the app asks; Stay keeps editing; Cancel asks too.
    await title.fill('Not saved');
    await page.getByRole('link', { name: 'Projects', exact: true }).click();
    const leave = page.getByRole('dialog', { name: 'Leave without saving?' });
    await leave.getByRole('button', { name: 'Stay and keep editing' }).click();
    await leave.waitFor({ state: 'detached' });
    expect(new URL(page.url()).search).toBe('?edit=1');
    expect(await title.inputValue()).toBe('Not saved');
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page
      .getByRole('dialog', { name: 'Drop your changes?' })
      .getByRole('button', { name: 'Drop changes' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Theirs again' }).waitFor();
    expect((await dashboardOf(id)).title).toBe('Theirs again');
    await context.close();
  }, 90_000);

  it('lets a temporary user duplicate a public dashboard and edit the copy', async () => {
    const { projectId, collectionId } = await project('Demo survey');
    const shared = await call(server, 'PUT', `/projects/${projectId}/permissions`, {
      token: admin.access_token,
      json: { owners: [ADMIN.email], editors: [], viewers: [], is_public: true },
    });
    expect(shared.status, shared.text).toBe(200);
    const created = await call<DashboardAnswer>(server, 'POST', '/dashboards', {
      token: admin.access_token,
      json: {
        project_id: projectId,
        title: 'Penguin facts',
        is_public: true,
        components: [
          {
            component_id: 'count',
            type: 'card',
            title: 'Penguins counted',
            data_collection_id: collectionId,
            agg: 'count',
          },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.dashboard_id;

    const { context, page } = await open(`/dashboards/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Penguin facts' }).waitFor();
    expect(await page.getByRole('button', { name: 'Edit', exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Duplicate to edit' }).click();
    const signIn = page.getByRole('dialog', { name: 'Sign in', exact: true });
    await signIn.getByRole('button', { name: 'Continue with a temporary account' }).click();
    await page.getByRole('button', { name: /^Account menu for Temporary user/ }).waitFor();
    await page.getByRole('button', { name: 'Duplicate to edit' }).click();
    await page.waitForURL((url) => url.search === '?edit=1' && !url.pathname.endsWith(id));
    await page.getByRole('heading', { level: 1, name: 'Editing “Penguin facts (copy)”' }).waitFor();

    await page.getByRole('button', { name: 'Edit Penguins counted' }).click();
    const panel = page.getByRole('complementary', { name: 'Edit card' });
    await panel.getByLabel('Title', { exact: true }).fill('Heaviest penguin');
    await panel.getByLabel('Aggregation').selectOption('max');
    await panel.getByLabel('Column').selectOption('mass');
    await panel.getByRole('button', { name: 'Apply' }).click();
    await page
      .getByRole('region', { name: 'Heaviest penguin' })
      .locator('[data-card-value]', { hasText: '5,900' })
      .waitFor();
    // From the keyboard: Shift+← narrows the card (full width: it had no layout entry) by one column.
    const copyId = new URL(page.url()).pathname.split('/').pop() ?? '';
    await page.getByRole('button', { name: 'Heaviest penguin Card', exact: true }).focus();
    await page.keyboard.press('Shift+ArrowLeft');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Penguin facts (copy)' }).waitFor();
    const after = (await dashboardOf(copyId, await tokenOf(page))).layout[0];
    expect(after).toMatchObject({ x: 0, w: 11 });
    await page
      .getByRole('region', { name: 'Heaviest penguin' })
      .locator('[data-card-value]', { hasText: '5,900' })
      .waitFor();
    // The original is as it was.
    const original = await dashboardOf(id);
    expect(original.components).toMatchObject([{ title: 'Penguins counted' }]);
    await context.close();
  }, 90_000);

  it("walks the demo tour's five steps in order, stays closed after a reload, and reopens from Tour", async () => {
    // A public dashboard for the Duplicate to Edit step to open.
    const { projectId } = await project('Tour survey');
    const created = await call(server, 'POST', '/dashboards', {
      token: admin.access_token,
      json: {
        project_id: projectId,
        title: 'Tour stop',
        is_public: true,
        components: [{ component_id: 'intro', type: 'text', markdown: 'Welcome aboard' }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const { context, page } = await open('/projects', { tour: true });
    const active = () =>
      page.evaluate(`document.querySelector('[data-tour-active]')?.getAttribute('data-tour') ?? null`);
    const step = async (name: string, target: string) => {
      const card = page.getByRole('dialog', { name, exact: true });
      await card.waitFor();
      await expect.poll(active).toBe(target);
      return card;
    };
    let card = await step('Welcome', 'welcome');
    await card.getByText(/temporary sessions last 24 h/).waitFor();
    await expectAccessible(page, 'the demo tour');
    await saveScreenshot(page, 'demo-tour');
    // Not a focus trap: Shift+Tab from the card goes back into the page.
    expect(await page.evaluate(`document.activeElement.closest('.demo-tour') !== null`)).toBe(true);
    await page.keyboard.press('Shift+Tab');
    expect(
      await page.evaluate(
        `document.activeElement !== document.body && document.activeElement.closest('.demo-tour') === null`,
      ),
    ).toBe(true);
    await card.getByRole('button', { name: 'Next' }).click();
    card = await step('Explore Dashboards', 'dashboards');
    await card.getByRole('button', { name: 'Next' }).click();
    card = await step('Sign In', 'sign-in');

    // The sign-in modal opens above the tour, never under it.
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    const signIn = page.getByRole('dialog', { name: 'Sign in', exact: true });
    await signIn.waitFor();
    await expect
      .poll(() =>
        page.evaluate(`(() => {
          const box = document.querySelector('.demo-tour').getBoundingClientRect();
          return document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2).closest('.demo-tour') === null;
        })()`),
      )
      .toBe(true);
    await page.keyboard.press('Escape');
    await signIn.waitFor({ state: 'detached' });

    await card.getByRole('button', { name: 'Next' }).click();
    card = await step('Duplicate to Edit', 'duplicate');
    await page.waitForURL(/\/dashboards\/[0-9a-f-]{36}$/);
    await card.getByRole('button', { name: 'Back' }).click();
    card = await step('Sign In', 'sign-in');
    await card.getByRole('button', { name: 'Next' }).click();
    card = await step('Duplicate to Edit', 'duplicate');
    await card.getByRole('button', { name: 'Next' }).click();
    card = await step('Explore Projects', 'projects');
    await card.getByRole('button', { name: 'Finish' }).click();
    await card.waitFor({ state: 'detached' });
    expect(await page.evaluate(`localStorage.getItem('service.demo-tour')`)).toBe('done');

    await page.reload();
    await page.getByRole('button', { name: 'Duplicate to edit' }).waitFor();
    await page.getByRole('button', { name: 'Tour', exact: true }).waitFor();
    expect(await page.locator('.demo-tour').count()).toBe(0);
    await page.getByRole('button', { name: 'Tour', exact: true }).click();
    card = await step('Welcome', 'welcome');
    await card.getByRole('button', { name: 'Skip tour' }).click();
    await card.waitFor({ state: 'detached' });
    expect(await page.evaluate(`localStorage.getItem('service.demo-tour')`)).toBe('skipped');
    await context.close();
  }, 90_000);
});
