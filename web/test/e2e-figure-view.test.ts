import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chartDescription, type FigureComponent, type FigureData } from '../../common/src/index.js';
import * as fixture from '../../common/test/charts/fixtures.js';
import { describeBrowser, launchBrowser } from '../../test/support/browser.js';

/**
 * FigureView in Chromium with the real ECharts: what it draws, and the cross-filter values a click
 * or a brush gives. The page is web/test/support/figure-harness.tsx, built by Vite into one script.
 */
interface Harness {
  mount(props: unknown): void;
  unmount(): void;
  filters: unknown[];
  pixelOf(value: [unknown, unknown]): [number, number];
  textColor(): unknown;
  drawnPoints(): number;
}
declare const harness: Harness;

async function buildHarness(): Promise<string> {
  const { build } = await import('vite');
  const react = (await import('@vitejs/plugin-react')).default;
  const output = await build({
    configFile: false,
    // Not the test run's mode: React and its JSX runtime both in their production builds.
    mode: 'production',
    logLevel: 'error',
    root: join(import.meta.dirname, '..'),
    plugins: [react()],
    resolve: { conditions: ['source', 'module', 'browser', 'development|production'] },
    define: { 'process.env.NODE_ENV': '"production"' },
    esbuild: { jsxDev: false },
    build: {
      write: false,
      minify: false,
      lib: { entry: join(import.meta.dirname, 'support/figure-harness.tsx'), formats: ['iife'], name: 'figureHarness' },
    },
  });
  const results = Array.isArray(output) ? output : [output];
  for (const result of results) {
    if ('output' in result) {
      const chunk = result.output.find((file) => file.type === 'chunk');
      if (chunk && chunk.type === 'chunk') return chunk.code;
    }
  }
  throw new Error('the harness did not build');
}

describeBrowser('FigureView in Chromium', () => {
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const [script, launched] = await Promise.all([buildHarness(), launchBrowser()]);
    browser = launched;
    page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.setContent('<!doctype html><html lang="en"><body><div id="root"></div></body></html>');
    await page.addScriptTag({ content: script });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
  });

  async function mount(props: object): Promise<void> {
    await page.evaluate(() => harness.unmount());
    await page.evaluate((value) => harness.mount(value), props);
    await page.locator('[data-chart-state="rendered"]').waitFor();
  }
  const filters = () => page.evaluate(() => harness.filters.splice(0));

  it('draws every chart type with the charts and components it registers', async () => {
    const sized: FigureData = {
      ...fixture.scatterData,
      columns: [...fixture.scatterData.columns, { name: 'size', type: 'long', column: 'flipper_length_mm' }],
      rows: fixture.scatterData.rows.map((row, index) => [...row, 180 + index * 10]),
    };
    const figures = [
      [fixture.scatterFigure, fixture.scatterData],
      [{ ...fixture.scatterFigure, size: 'flipper_length_mm', log_x: true }, sized],
      [fixture.lineFigure, fixture.lineData],
      [{ ...fixture.lineFigure, chart: 'area' }, fixture.lineData],
      [fixture.histogramFigure, fixture.histogramData],
      [fixture.boxFigure, fixture.boxData],
      [fixture.violinFigure, fixture.violinData],
      [fixture.heatmapFigure, fixture.heatmapData],
    ] as [FigureComponent, FigureData][];
    for (const [component, data] of figures) {
      await mount({ component, data, scheme: 'dark' });
      const figure = page.getByRole('img');
      expect(await figure.getAttribute('aria-label')).toBe(chartDescription(component, data));
      expect(await figure.getAttribute('data-chart-items')).toBe(String(data.rows.length));
    }
    expect(pageErrors).toEqual([]);
  });

  it('a chart out of sight waits, drawn once scrolled to; data that came meanwhile is drawn then', async () => {
    const chart = page.locator('[data-chart-state]');
    const state = () => chart.getAttribute('data-chart-state');
    await page.evaluate(() => harness.unmount());
    await page.evaluate('scrollTo(0, 0)');
    await page.evaluate((value) => harness.mount(value), {
      component: fixture.scatterFigure,
      data: fixture.scatterData,
      below: 3000,
    });
    await expect.poll(state).toBe('waiting');
    expect(await page.evaluate(() => harness.drawnPoints())).toBe(0);
    await chart.scrollIntoViewIfNeeded();
    await expect.poll(state).toBe('rendered');
    expect(await page.evaluate(() => harness.drawnPoints())).toBe(fixture.scatterData.rows.length);

    // New data while scrolled away: the chart keeps its drawing until it is in sight again.
    const fewer = { ...fixture.scatterData, rows: fixture.scatterData.rows.slice(0, 2) };
    await page.evaluate('scrollTo(0, 0)');
    await expect.poll(() => chart.getAttribute('data-in-sight')).toBe('false');
    await page.evaluate((value) => harness.mount(value), {
      component: fixture.scatterFigure,
      data: fewer,
      below: 3000,
    });
    await expect.poll(state).toBe('waiting');
    expect(await page.evaluate(() => harness.drawnPoints())).toBe(fixture.scatterData.rows.length);
    await chart.scrollIntoViewIfNeeded();
    await expect.poll(state).toBe('rendered');
    expect(await page.evaluate(() => harness.drawnPoints())).toBe(2);
    await page.evaluate('scrollTo(0, 0)');
  });

  it('draws a bar chart named by its description; a click filters by the bar’s category, "Other" by none', async () => {
    await mount({ component: fixture.barFigure, data: fixture.barData });
    const figure = page.getByRole('img', { name: /^Penguins per island\. Bar chart of count by island/ });
    expect(await figure.getAttribute('data-chart-items')).toBe('6');
    const targets = JSON.parse((await figure.getAttribute('data-chart-targets')) ?? '[]') as { label: string }[];
    expect(targets.map((target) => target.label)).toEqual(['Biscoe', 'Dream', 'Other']);
    const [x, y] = await page.evaluate(() => harness.pixelOf(['Dream', 20]));
    await page.mouse.click(x, y);
    const [otherX, otherY] = await page.evaluate(() => harness.pixelOf(['Other', 10]));
    await page.mouse.click(otherX, otherY);
    await expect.poll(filters).toEqual([['Dream']]);
  });

  it('a click on a selected category takes it out of the filter', async () => {
    await mount({ component: fixture.barFigure, data: fixture.barData, filterValue: ['Biscoe', 'Dream'] });
    const [x, y] = await page.evaluate(() => harness.pixelOf(['Biscoe', 20]));
    await page.mouse.click(x, y);
    await expect.poll(filters).toEqual([['Dream']]);
  });

  it('brushing a histogram along x filters by [low, high]; a click clears it', async () => {
    await mount({ component: fixture.histogramFigure, data: fixture.histogramData, scheme: 'dark' });
    const [fromX, y] = await page.evaluate(() => harness.pixelOf([3000, 10]));
    const [toX] = await page.evaluate(() => harness.pixelOf([5000, 10]));
    await page.mouse.move(fromX, y);
    await page.mouse.down();
    await page.mouse.move((fromX + toX) / 2, y, { steps: 4 });
    await page.mouse.move(toX, y, { steps: 4 });
    await page.mouse.up();
    await expect.poll(async () => (await page.evaluate(() => harness.filters)).length).toBe(1);
    const [range] = (await filters()) as [number, number][];
    expect(range?.[0]).toBeGreaterThan(2950);
    expect(range?.[0]).toBeLessThan(3050);
    expect(range?.[1]).toBeGreaterThan(4950);
    expect(range?.[1]).toBeLessThan(5050);
    await page.mouse.click(fromX - 20, y);
    await expect.poll(filters).toEqual([null]);
  });

  it('says where each pie slice is; clicking one there filters by its color, "Other" by none', async () => {
    await mount({ component: fixture.pieFigure, data: fixture.pieData, filterValue: ['Adelie'] });
    const figure = page.locator('[data-chart-targets]');
    expect(await figure.getAttribute('data-chart-rows')).toBe('344');
    const targets = JSON.parse((await figure.getAttribute('data-chart-targets')) ?? '[]') as {
      label: string;
      x: number;
      y: number;
    }[];
    expect(targets.map((target) => target.label)).toEqual(['Adelie', 'Gentoo', 'Other']);
    for (const label of ['Other', 'Gentoo']) {
      const target = targets.find((each) => each.label === label);
      await figure.click({ position: { x: target?.x ?? 0, y: target?.y ?? 0 } });
    }
    await expect.poll(filters).toEqual([['Adelie', 'Gentoo']]);
  });

  it('follows the browser’s dark preference as the app does (colour scheme "auto")', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await mount({ component: fixture.barFigure, data: fixture.barData, scheme: 'auto' });
      await expect.poll(() => page.evaluate(() => harness.textColor())).toBe('#c9c9c9');
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });

  it('resizes with its cell, and lets ECharts go on unmount', async () => {
    await mount({ component: fixture.pieFigure, data: fixture.pieData });
    const canvas = page.locator('[data-chart-items] canvas');
    await expect.poll(() => canvas.evaluate((element) => (element as { clientWidth: number }).clientWidth)).toBe(480);
    await page.locator('#cell').evaluate((cell) => {
      (cell as { style: { width: string } }).style.width = '640px';
    });
    await expect.poll(() => canvas.evaluate((element) => (element as { clientWidth: number }).clientWidth)).toBe(640);
    await page.evaluate(() => harness.unmount());
    expect(await page.locator('canvas').count()).toBe(0);
  });
});
