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
import { CHART_SETTLED } from './support/e2e-dashboards.js';

/**
 * One colour per value (issue 26, item 4) and charts on a phone (item 7), in Chromium: three
 * charts coloured by species, read from the options ECharts draws (`data-chart-colors`, and the
 * exported page's option), before and after a filter, after a reload and in the export.
 * Species by island: Torgersen has Gentoo only, so a filter on it leaves one species, not the first.
 */
const CSV = `${[
  'sample,island,species,mass',
  ...Array.from({ length: 30 }, (_, i) => {
    const island = ['Biscoe', 'Dream', 'Torgersen'][i % 3];
    const species = island === 'Torgersen' ? 'Gentoo' : ['Adelie', 'Chinstrap', 'Gentoo'][(i % 5) % 3];
    return `P${i + 1},${island},${species},${3000 + i * 100}`;
  }),
].join('\n')}\n`;

/** The part of a pie's ECharts option that says each slice's colour. */
interface PieOption {
  series: { data: { name: string; itemStyle?: { color?: string } }[] }[];
}

let browser: Browser;
let server: TestServer;
let path: string;

const CHARTS = ['Species per island', 'Species share', 'Mass by sample'] as const;

/** Every chart has drawn the view in the address bar (no loader, all `rendered`). */
const DRAWN = `(() => {
  const key = document.querySelector('[data-view-key]')?.getAttribute('data-view-key');
  const cells = [...document.querySelectorAll('[data-component-id]')];
  return key != null && cells.length > 0 && cells.every((cell) => cell.getAttribute('data-drawn-key') === key) &&
    [...document.querySelectorAll('[data-chart-state]')].every(${CHART_SETTLED}) &&
    document.querySelector('.mantine-Loader-root') === null;
})()`;
async function drawn(page: Page): Promise<void> {
  await expect.poll(() => page.evaluate(DRAWN), { timeout: 20_000 }).toBe(true);
}

/** The colour each chart draws each value in: {chart: {value: colour}}. */
async function colors(page: Page): Promise<Record<string, Record<string, string>>> {
  await drawn(page);
  const entries = await Promise.all(
    CHARTS.map(async (name) => {
      const text = await page
        .getByRole('region', { name, exact: true })
        .locator('[data-chart-colors]')
        .getAttribute('data-chart-colors');
      return [name, JSON.parse(text ?? '{}') as Record<string, string>] as const;
    }),
  );
  return Object.fromEntries(entries);
}

describeBrowser('dashboard colours and narrow screens in a real browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer({ SERVICE_AUTH_PUBLIC_MODE: 'true' });
    const { access_token: token } = await login(server, ADMIN.email, ADMIN.password);
    const project = await createProjectWithUpload(server, token, 'Colour survey', CSV);
    const upsert = await call(server, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: project.collectionId },
    });
    expect(upsert.status, upsert.text).toBe(200);
    const figure = { type: 'figure', data_collection_id: project.collectionId } as const;
    const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: project.projectId,
        title: 'Colours',
        is_public: true,
        components: [
          { ...figure, component_id: 'bars', title: CHARTS[0], chart: 'bar', x: 'island', color: 'species' },
          { ...figure, component_id: 'pie', title: CHARTS[1], chart: 'pie', color: 'species' },
          {
            ...figure,
            component_id: 'dots',
            title: CHARTS[2],
            chart: 'scatter',
            x: 'mass',
            y: 'mass',
            color: 'species',
          },
        ],
        layout: [
          { component_id: 'bars', x: 0, y: 0, w: 4, h: 5 },
          { component_id: 'pie', x: 4, y: 0, w: 4, h: 5 },
          { component_id: 'dots', x: 8, y: 0, w: 4, h: 5 },
        ],
      },
    });
    expect(dashboard.status, dashboard.text).toBe(201);
    path = `/dashboards/${dashboard.body.dashboard_id}`;
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('draws each species in one colour in three charts, before and after a filter opened from a link and removed', async () => {
    const { context, page } = await openPage(browser, server, path, { height: 1000, timeout: 20_000 });
    const before = await colors(page);
    const species = ['Adelie', 'Chinstrap', 'Gentoo'];
    for (const name of CHARTS) expect(Object.keys(before[name] ?? {}).sort()).toEqual(species);
    for (const value of species) {
      const seen = new Set(CHARTS.map((name) => before[name]?.[value]));
      expect(seen.size, `${value}: ${[...seen].join(', ')}`).toBe(1);
    }
    expect(new Set(species.map((value) => before[CHARTS[0]]?.[value])).size).toBe(3);

    // A filter opened from a link (the address bar): the Torgersen bar leaves the others Gentoo only,
    // which keeps its colour instead of taking the palette's first (the charts' own order would).
    const gentoo = before[CHARTS[0]]?.Gentoo;
    expect(gentoo).not.toBe('#228be6');
    const filters = JSON.stringify([{ component_id: 'bars', value: ['Torgersen'] }]);
    await page.goto(`${server.url}${path}?filters=${encodeURIComponent(filters)}`);
    const after = await colors(page);
    expect(after[CHARTS[1]]).toEqual({ Gentoo: gentoo });
    expect(after[CHARTS[2]]).toEqual({ Gentoo: gentoo });
    // Removing the filter gives back the first view's colours.
    await page.getByRole('button', { name: /^Remove filter/ }).click();
    await expect.poll(() => colors(page), { timeout: 20_000 }).toEqual(before);
    await context.close();

    // Stored with the dashboard: a reload in another browser draws the same, as does the exported
    // page (its drawn ECharts option), unfiltered and under the filter.
    const again = await openPage(browser, server, path, { height: 1000, timeout: 20_000 });
    expect(await colors(again.page)).toEqual(before);
    const stored = await again.page.evaluate(
      async (url) => (await fetch(url)).json(),
      `${server.url}/service/api/v1${path}`,
    );
    expect([...(stored as { colors: string[] }).colors].sort()).toEqual(species);
    for (const query of ['', `&filters=${encodeURIComponent(filters)}`]) {
      await again.page.goto(
        `${server.url}/service/api/v1/export/components${path.replace('/dashboards', '')}/pie?format=html${query}`,
      );
      await again.page.waitForSelector('html[data-drawn="true"]');
      const option = JSON.parse((await again.page.locator('#export-spec').textContent()) ?? '{}') as PieOption;
      const exported = Object.fromEntries(
        option.series[0]?.data.map((slice) => [slice.name, slice.itemStyle?.color]) ?? [],
      );
      expect(exported).toEqual(query === '' ? before[CHARTS[1]] : { Gentoo: gentoo });
    }
    await again.context.close();
  }, 120_000);

  it('keeps every chart taller than 150 px in one column on a 390 px screen, light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: scheme });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(`${server.url}${path}`);
      await drawn(page);
      const boxes = await Promise.all(
        CHARTS.map((name) =>
          page.getByRole('region', { name, exact: true }).locator('[data-chart-state]').boundingBox(),
        ),
      );
      for (const box of boxes) {
        expect(box?.height ?? 0).toBeGreaterThan(150);
        expect(box?.width ?? 0).toBeGreaterThan(300);
      }
      // One column: each chart below the one before.
      const tops = boxes.map((box) => box?.y ?? 0);
      expect(tops).toEqual([...tops].sort((a, b) => a - b));
      expect(new Set(tops).size).toBe(3);
      await expectAccessible(page, `dashboard colours at 390 px (${scheme})`);
      await saveScreenshot(page, `dashboard-narrow-${scheme}`);
      await context.close();
    }
  }, 120_000);
});
