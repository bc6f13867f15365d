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
import { ADMIN, call, createProjectWithUpload, login, type TestServer } from '../../test/support/test-server.js';

/**
 * Issue 28: the ampliseq taxonomy (two samples of sunburst_canonical.tsv) drawn as a sunburst, a
 * treemap and a sankey, and the ampliseq UpSet matrix as an UpSet plot, in a real browser; a click
 * on a sunburst node narrows a count card to the rows on its path.
 */
const fixture = (name: string) =>
  readFileSync(new URL(`../../server/test/fixtures/ampliseq/${name}`, import.meta.url), 'utf8').replaceAll('\t', ',');
const TAXONOMY = fixture('sunburst_canonical.tsv');
const UPSET = fixture('upset_canonical.tsv');

/** Rows per kingdom, counted from the file, to check the card after a click. */
const ROWS_BY_KINGDOM = new Map<string, number>();
for (const line of TAXONOMY.trim().split('\n').slice(1)) {
  const kingdom = line.split(',')[2] ?? '';
  ROWS_BY_KINGDOM.set(kingdom, (ROWS_BY_KINGDOM.get(kingdom) ?? 0) + 1);
}
const TOTAL_ROWS = [...ROWS_BY_KINGDOM.values()].reduce((sum, n) => sum + n, 0);

let browser: Browser;
let server: TestServer;
let token: string;

async function tableOf(name: string, csv: string) {
  const project = await createProjectWithUpload(server, token, name, csv);
  const upserted = await call(server, 'POST', '/deltatables/upsert', {
    token,
    json: { data_collection_id: project.collectionId },
  });
  expect(upserted.status, upserted.text).toBe(200);
  return project;
}

async function cardValue(page: Page): Promise<string | null> {
  const value = page.getByRole('region', { name: 'Taxa rows', exact: true }).locator('[data-card-value]');
  return (await value.count()) === 0 ? null : value.textContent();
}

describeBrowser('sunburst, treemap, sankey and UpSet plots in a real browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer({ SERVICE_AUTH_PUBLIC_MODE: 'true' });
    ({ access_token: token } = await login(server, ADMIN.email, ADMIN.password));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('draws each kind from the ampliseq data, and a click on a sunburst node narrows a card', async () => {
    const taxonomy = await tableOf('ampliseq taxonomy', TAXONOMY);
    const upset = await tableOf('ampliseq upset', UPSET);
    const dc = taxonomy.collectionId;
    const levels = ['Kingdom', 'Phylum', 'Class'];
    const figure = (id: string, title: string, chart: Record<string, unknown>) => ({
      component_id: id,
      type: 'figure',
      title,
      data_collection_id: dc,
      ...chart,
    });
    const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: taxonomy.projectId,
        title: 'Community composition',
        is_public: true,
        components: [
          { component_id: 'n', type: 'card', title: 'Taxa rows', data_collection_id: dc, agg: 'count' },
          figure('sunburst', 'Taxonomy', { chart: 'sunburst', levels, value: 'abundance' }),
          figure('treemap', 'Phyla', { chart: 'treemap', levels: ['Phylum', 'Class'], value: 'abundance' }),
          figure('sankey', 'Habitat to phylum', { chart: 'sankey', levels: ['Habitat', 'Kingdom', 'Phylum'] }),
        ],
        layout: [
          { component_id: 'n', x: 0, y: 0, w: 4, h: 3 },
          { component_id: 'sunburst', x: 0, y: 3, w: 6, h: 8 },
          { component_id: 'treemap', x: 6, y: 3, w: 6, h: 8 },
          { component_id: 'sankey', x: 0, y: 11, w: 12, h: 8 },
        ],
      },
    });
    expect(dashboard.status, dashboard.text).toBe(201);
    const { context, page } = await openPage(browser, server, `/dashboards/${dashboard.body.dashboard_id}`, {
      height: 1600,
      timeout: 20_000,
    });
    await page.getByRole('heading', { level: 1, name: 'Community composition' }).waitFor();
    await expect.poll(() => cardValue(page), { timeout: 30_000 }).toBe(String(TOTAL_ROWS));
    for (const name of ['Taxonomy', 'Phyla', 'Habitat to phylum']) {
      const region = page.getByRole('region', { name, exact: true });
      await region.locator('[data-chart-state="rendered"]').waitFor();
      expect(Number(await region.locator('[data-chart-items]').getAttribute('data-chart-items'))).toBeGreaterThan(0);
    }
    const sunburst = page.getByRole('region', { name: 'Taxonomy', exact: true });
    await expect
      .poll(() => sunburst.locator('[role="img"]').first().getAttribute('aria-label'))
      .toMatch(/Sunburst of Kingdom → Phylum → Class \(3 levels\): 2 top-level nodes/);

    // Click the innermost ring's largest node (a kingdom): the card counts that kingdom's rows.
    const chart = sunburst.locator('[data-chart-targets]');
    await chart.waitFor();
    const targets = JSON.parse((await chart.getAttribute('data-chart-targets')) ?? '[]') as {
      label: string;
      x: number;
      y: number;
    }[];
    const [target] = targets;
    if (target === undefined) throw new Error('the sunburst has no targets');
    const box = await chart.boundingBox();
    if (box === null) throw new Error('the sunburst has no box');
    await page.mouse.click(box.x + target.x, box.y + target.y);
    await expect
      .poll(() => new URL(page.url()).searchParams.get('filters'), { timeout: 15_000 })
      .toMatch(/"component_id":"sunburst"/);
    const expected = ROWS_BY_KINGDOM.get(target.label);
    expect(expected).toBeDefined();
    expect(expected).toBeLessThan(TOTAL_ROWS);
    await expect.poll(() => cardValue(page), { timeout: 15_000 }).toBe(String(expected));
    await page
      .getByRole('region', { name: 'Active filters' })
      .getByText(new RegExp(`^Kingdom = ${target.label}$`))
      .waitFor();
    await page.mouse.move(0, 0);
    await saveScreenshot(page, 'dashboard-sunburst');
    await expectAccessible(page, 'sunburst dashboard');
    await context.close();

    // The UpSet plot of the taxa shared across habitats.
    const sets = ['Groundwater', 'Sediment', 'Riverwater', 'Soil'];
    const upsetDashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: upset.projectId,
        title: 'Shared taxa',
        is_public: true,
        components: [
          {
            component_id: 'upset',
            type: 'figure',
            title: 'Taxa shared across habitats',
            data_collection_id: upset.collectionId,
            chart: 'upset',
            sets,
          },
        ],
        layout: [{ component_id: 'upset', x: 0, y: 0, w: 12, h: 9 }],
      },
    });
    expect(upsetDashboard.status, upsetDashboard.text).toBe(201);
    const second = await openPage(browser, server, `/dashboards/${upsetDashboard.body.dashboard_id}`, {
      height: 900,
      timeout: 20_000,
    });
    const region = second.page.getByRole('region', { name: 'Taxa shared across habitats', exact: true });
    await region.locator('[data-chart-state="rendered"]').waitFor();
    await expect
      .poll(() => region.locator('[role="img"]').first().getAttribute('aria-label'))
      .toMatch(/UpSet plot of 4 sets \(Groundwater, Sediment, Riverwater, Soil\): \d+ intersections, the largest/);
    await second.page.mouse.move(0, 0);
    await saveScreenshot(second.page, 'dashboard-upset');
    await expectAccessible(second.page, 'UpSet dashboard');
    await second.context.close();
  }, 180_000);
});
