import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeBrowser,
  expectAccessible,
  launchBrowser,
  openPage,
  saveScreenshot,
  startWebServer,
} from '../../test/support/browser.js';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  login,
  type TestServer,
  uploadFile,
} from '../../test/support/test-server.js';

/**
 * Issue 28: a volcano plot of the ampliseq ANCOM-BC results (lfc × q_val) in a real browser, and a
 * brush along its fold change narrowing a count card to the rows in the brushed range.
 */
const ANCOMBC = readFileSync(
  new URL('../../server/test/fixtures/ampliseq/ancombc_results.tsv', import.meta.url),
  'utf8',
).replaceAll('\t', ',');

/** The fold changes of the table, to count the rows a brushed range holds. */
const FOLD_CHANGES = ANCOMBC.trim()
  .split('\n')
  .slice(1)
  .map((line) => Number(line.split(',')[2]));

let browser: Browser;
let server: TestServer;
let token: string;

async function cardValue(page: Page): Promise<string | null> {
  const value = page.getByRole('region', { name: 'Features', exact: true }).locator('[data-card-value]');
  return (await value.count()) === 0 ? null : value.textContent();
}

/** Drags across the volcano's canvas from `from` to `to` (fractions of its width), at mid height. */
async function brushAcross(page: Page, from: number, to: number): Promise<void> {
  const canvas = page.locator('section[aria-label="Volcano"] canvas').first();
  const box = await canvas.boundingBox();
  if (box === null) throw new Error('the volcano has no canvas');
  const y = box.y + box.height * 0.55;
  await page.mouse.move(box.x + box.width * from, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * ((from + to) / 2), y, { steps: 4 });
  await page.mouse.move(box.x + box.width * to, y, { steps: 4 });
  await page.mouse.up();
}

describeBrowser('the field charts in a real browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer({ SERVICE_AUTH_PUBLIC_MODE: 'true' });
    ({ access_token: token } = await login(server, ADMIN.email, ADMIN.password));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('draws the ampliseq volcano, and a brush on it narrows a card', async () => {
    const project = await createProjectWithUpload(server, token, 'ampliseq', ANCOMBC);
    expect(await uploadFile(server, token, project.collectionId, { path: 't.csv', content: ANCOMBC })).toBe(201);
    const upserted = await call(server, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: project.collectionId },
    });
    expect(upserted.status, upserted.text).toBe(200);
    const dc = project.collectionId;
    const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: project.projectId,
        title: 'Differential abundance',
        is_public: true,
        components: [
          { component_id: 'n', type: 'card', title: 'Features', data_collection_id: dc, agg: 'count' },
          {
            component_id: 'volcano',
            type: 'figure',
            title: 'Volcano',
            data_collection_id: dc,
            chart: 'volcano',
            x: 'lfc',
            y: 'q_val',
            label: 'Phylum',
          },
        ],
        layout: [
          { component_id: 'n', x: 0, y: 0, w: 4, h: 3 },
          { component_id: 'volcano', x: 0, y: 3, w: 12, h: 8 },
        ],
      },
    });
    expect(dashboard.status, dashboard.text).toBe(201);
    const { context, page } = await openPage(browser, server, `/dashboards/${dashboard.body.dashboard_id}`, {
      height: 1200,
      timeout: 20_000,
    });
    await page.getByRole('heading', { level: 1, name: 'Differential abundance' }).waitFor();
    // The first page of a freshly started server can be slow on a loaded machine.
    await expect.poll(() => cardValue(page), { timeout: 30_000 }).toBe('96');
    const volcano = page.getByRole('region', { name: 'Volcano', exact: true });
    await volcano.locator('[data-chart-state="rendered"]').waitFor();
    expect(await volcano.getAttribute('data-total-rows')).toBe('96');
    // The classes under the title, as the server counted them (31 up, 26 down of the 96).
    await expect.poll(() => volcano.locator('[role="img"]').first().getAttribute('aria-label')).toMatch(/31 points up/);

    await brushAcross(page, 0.25, 0.5);
    await expect
      .poll(() => new URL(page.url()).searchParams.get('filters'), { timeout: 15_000 })
      .toMatch(/"component_id":"volcano"/);
    const [filter] = JSON.parse(new URL(page.url()).searchParams.get('filters') ?? '[]') as {
      value: [number, number];
    }[];
    const [low, high] = filter?.value ?? [0, 0];
    const inRange = FOLD_CHANGES.filter((fold) => fold >= low && fold <= high).length;
    expect(inRange).toBeGreaterThan(0);
    expect(inRange).toBeLessThan(96);
    await expect.poll(() => cardValue(page), { timeout: 15_000 }).toBe(String(inRange));
    await page
      .getByRole('region', { name: 'Active filters' })
      .getByText(/^Volcano: /)
      .waitFor();
    await page.mouse.move(0, 0);
    await saveScreenshot(page, 'dashboard-volcano');
    await expectAccessible(page, 'volcano dashboard');
    await context.close();
  }, 120_000);
});
