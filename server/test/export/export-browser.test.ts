import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chartOption, type FigureComponent, type FigureData } from '@service/common';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, watchPolicyViolations } from '../../../test/support/browser.js';
import { call } from '../../../test/support/test-server.js';
import { API_PREFIX } from '../../src/http/prefix.js';
import {
  coverageDashboard,
  createToken,
  type ExportWorld,
  exportComponents,
  exportPath,
  exportWorld,
} from './export-fixture.js';

/**
 * Exported components in Chromium: the self-contained page draws its chart with every other
 * request blocked (and there are none), also saved to disk; the `format=spec` option drawn by
 * plain ECharts in a blank page is the dashboard's chart.
 */

/** Light theme, first series colour (common/src/charts/palette.ts). */
const BAR_COLOR = [0x22, 0x8b, 0xe6];
const CANVAS_WIDTH = "document.querySelector('#chart canvas')?.clientWidth ?? 0";

/** The most separate runs of the bar colour along any row of the page's canvas: the bars side by side. */
async function barsDrawn(page: Page): Promise<number> {
  // A string: the test program has no DOM types, the page has the DOM.
  return page.evaluate(`(() => {
    const color = ${JSON.stringify(BAR_COLOR)};
    const canvas = document.querySelector('#chart canvas');
    const context = canvas && canvas.getContext('2d');
    if (!context) return -1;
    const { data, width, height } = context.getImageData(0, 0, canvas.width, canvas.height);
    let most = 0;
    for (let y = 0; y < height; y++) {
      let runs = 0;
      let inside = false;
      for (let x = 0; x < width; x++) {
        const at = (y * width + x) * 4;
        const hit = [0, 1, 2].every((channel) => Math.abs(data[at + channel] - color[channel]) <= 8);
        if (hit && !inside) runs += 1;
        inside = hit;
      }
      most = Math.max(most, runs);
    }
    return most;
  })()`);
}

describeBrowser('exported components in Chromium', () => {
  let world: ExportWorld;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [world, browser] = await Promise.all([exportWorld('sqlite'), launchBrowser()]);
  }, 120_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await world?.server.stop();
    await world?.server.database.drop();
  });

  /** A page whose every request but `allowed` is aborted; `requests` lists them all. */
  async function isolatedPage(allowed: string | null) {
    const context = await browser.newContext({ viewport: { width: 640, height: 400 } });
    contexts.push(context);
    watchPolicyViolations(context);
    const requests: string[] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      requests.push(url);
      return url === allowed ? route.continue() : route.abort();
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    return { page, requests, errors };
  }

  it('draws the bar chart of the self-contained page with no request but the page itself', async () => {
    const token = await createToken(world, { component_id: 'bars' });
    const url = `${world.server.url}${API_PREFIX}${exportPath(world.dashboardId, 'bars', { format: 'html', token: token.token })}`;
    const { page, requests, errors } = await isolatedPage(url);
    await page.goto(url);
    await page.locator('html[data-drawn="true"]').waitFor();
    expect(await barsDrawn(page)).toBe(3);
    expect(requests).toEqual([url]);
    expect(errors).toEqual([]);
    // It follows its frame: a narrower window, a narrower canvas.
    const wide = await page.evaluate<number>(CANVAS_WIDTH);
    await page.setViewportSize({ width: 360, height: 400 });
    await expect.poll(() => page.evaluate<number>(CANVAS_WIDTH)).toBeLessThan(wide);
    expect(requests).toEqual([url]);
  });

  it('still draws when saved to disk and opened with the network gone', async () => {
    const answer = await call(
      world.server,
      'GET',
      exportPath(world.dashboardId, 'bars', { format: 'html', theme: 'dark' }),
      {
        token: world.carol.access_token,
      },
    );
    const folder = await mkdtemp(join(tmpdir(), 'export-page-'));
    try {
      const file = join(folder, 'bars.html');
      await writeFile(file, answer.text);
      const url = pathToFileURL(file).href;
      const { page, requests, errors } = await isolatedPage(url);
      await page.goto(url);
      await page.locator('html[data-drawn="true"]').waitFor();
      expect(requests).toEqual([url]);
      expect(errors).toEqual([]);
      expect(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor')).toBe('rgb(36, 36, 36)');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("shows a table's page as its reader had it: filtered, ordered, only the columns shown", async () => {
    const token = await createToken(world, { component_id: 'rows' });
    const view = {
      format: 'html',
      token: token.token,
      column_filters: JSON.stringify([{ column: 'species', op: 'in', value: ['Gentoo'] }]),
      sort: 'mass:desc',
      columns: JSON.stringify(['mass', 'sample']),
    };
    const url = `${world.server.url}${API_PREFIX}${exportPath(world.dashboardId, 'rows', view)}`;
    const { page, requests, errors } = await isolatedPage(url);
    await page.goto(url);
    await page.locator('table tbody tr').first().waitFor();
    expect(await page.locator('thead th').allTextContents()).toEqual(['mass', 'sample']);
    const rows = page.locator('tbody tr');
    const cells: string[][] = [];
    for (let index = 0; index < (await rows.count()); index++)
      cells.push(await rows.nth(index).locator('td').allTextContents());
    // The heaviest Gentoos (i < 100, mass 3000 + 10·i), five a page.
    expect(cells).toEqual([99, 98, 97, 96, 95].map((i) => [String(3000 + 10 * i), `S0${i}`]));
    expect(requests).toEqual([url]);
    expect(errors).toEqual([]);
  });

  it('draws a coverage track at the contig its reader picked, from an embed URL that carries it', async () => {
    const dashboardId = await coverageDashboard(world);
    const token = await createToken(world, { component_id: 'c' }, dashboardId);
    const embed = new URL(token.html_url);
    embed.searchParams.set('contig', 'chr2');
    const url = `${world.server.url}${embed.pathname}${embed.search}`;
    const { page, requests, errors } = await isolatedPage(url);
    await page.goto(url);
    await page.locator('html[data-drawn="true"]').waitFor();
    expect(await page.locator('#chart').getAttribute('aria-label')).toMatch(/along pos on 2, 1 track, 2 buckets drawn/);
    const option = JSON.parse((await page.locator('#export-spec').textContent()) ?? '{}') as {
      xAxis: { name: string }[] | { name: string };
    };
    expect([option.xAxis].flat()[0]?.name).toBe('pos on 2');
    expect(await page.locator('#chart canvas').count()).toBe(1);
    expect(requests).toEqual([url]);
    expect(errors).toEqual([]);
  });

  it('draws the format=spec option with plain ECharts in a blank page, as the dashboard draws it', async () => {
    const spec = await call<{ spec: Record<string, unknown> }>(
      world.server,
      'GET',
      exportPath(world.dashboardId, 'hist'),
      {
        token: world.carol.access_token,
      },
    );
    const data = await call<{ components: Record<string, FigureData> }>(
      world.server,
      'POST',
      `/dashboards/${world.dashboardId}/data`,
      {
        token: world.carol.access_token,
        json: { components: ['hist'] },
      },
    );
    const component = exportComponents(world.collectionId).find(
      (candidate) => candidate.component_id === 'hist',
    ) as FigureComponent;
    const dashboards = chartOption(component, data.body.components.hist as FigureData, { theme: 'light' });
    expect(spec.body.spec).toEqual(JSON.parse(JSON.stringify(dashboards)));

    const echarts = await readFile(createRequire(import.meta.url).resolve('echarts/dist/echarts.min.js'), 'utf8');
    const { page, requests } = await isolatedPage(null);
    await page.setContent(
      '<!doctype html><html><body><div id="plot" style="width:600px;height:360px"></div></body></html>',
    );
    await page.addScriptTag({ content: echarts });
    const drawn = await page.evaluate<{ series: string[]; source: unknown[]; canvases: number }>(`(() => {
      const plot = echarts.init(document.getElementById('plot'));
      plot.setOption(${JSON.stringify(spec.body.spec)});
      const shown = plot.getOption();
      return {
        series: shown.series.map((series) => series.type),
        source: shown.dataset.map((dataset) => dataset.source),
        canvases: document.querySelectorAll('#plot canvas').length,
      };
    })()`);
    const expected = [dashboards.dataset].flat().map((dataset) => (dataset as { source: unknown[] }).source);
    expect(drawn.source).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(drawn.series).toEqual([dashboards.series].flat().map((series) => (series as { type: string }).type));
    expect(drawn.canvases).toBe(1);
    // Twelve bins of mass, each a bar.
    expect((expected[0] as unknown[]).length).toBeGreaterThanOrEqual(12);
    expect(requests).toEqual([]);
  });
});
