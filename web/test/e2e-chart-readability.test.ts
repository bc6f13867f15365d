import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, openPage, startWebServer } from '../../test/support/browser.js';
import { ADMIN, call, createProjectWithUpload, login, type TestServer } from '../../test/support/test-server.js';

let browser: Browser;
let server: TestServer;

/** Twelve sampling sites with long names, a few penguins each. */
const SITES = Array.from({ length: 12 }, (_, i) => `Sampling site number ${i + 1}`);
const CSV = `site,mass\n${SITES.flatMap((site, i) => Array.from({ length: 1 + (i % 3) }, () => `${site},${3000 + i}`)).join('\n')}\n`;

interface AxisOption {
  data?: string[];
  minInterval?: number;
  nameGap?: number;
  axisLabel?: { interval?: number; rotate?: number; overflow?: string; hideOverlap?: boolean };
}
interface DrawnOption {
  animationDuration?: number;
  animationDurationUpdate?: number;
  xAxis: AxisOption;
  yAxis: AxisOption;
}

/**
 * Readable charts (issue 26, item 5), read from the ECharts option a browser draws (the exported
 * page's, which the web app's cells draw the same way): every category label shown, turned when
 * there are many; counts tick whole numbers; animations short.
 */
describeBrowser('readable charts in a real browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer({ SERVICE_AUTH_PUBLIC_MODE: 'true' });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('draws every one of twelve long category labels, turned, over whole-number count ticks', async () => {
    const { access_token: token } = await login(server, ADMIN.email, ADMIN.password);
    const project = await createProjectWithUpload(server, token, 'Sites', CSV);
    const upsert = await call(server, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: project.collectionId },
    });
    expect(upsert.status, upsert.text).toBe(200);
    const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: project.projectId,
        title: 'Sites',
        is_public: true,
        components: [
          {
            component_id: 'sites',
            type: 'figure',
            title: 'Penguins per site',
            data_collection_id: project.collectionId,
            chart: 'bar',
            x: 'site',
            max_categories: 20,
          },
          {
            component_id: 'share',
            type: 'figure',
            title: 'Share per site',
            data_collection_id: project.collectionId,
            chart: 'pie',
            color: 'site',
            max_categories: 20,
          },
        ],
      },
    });
    expect(dashboard.status, dashboard.text).toBe(201);
    const { context, page } = await openPage(
      browser,
      server,
      `/service/api/v1/export/components/${dashboard.body.dashboard_id}/sites?format=html`,
      { timeout: 20_000 },
    );
    await page.waitForSelector('html[data-drawn="true"]');
    const option = JSON.parse((await page.locator('#export-spec').textContent()) ?? '{}') as DrawnOption;
    expect([...(option.xAxis.data ?? [])].sort()).toEqual([...SITES].sort());
    expect(option.xAxis.axisLabel).toMatchObject({ interval: 0, rotate: 40, overflow: 'truncate' });
    expect(option.xAxis.nameGap).toBeGreaterThan(28);
    // Counts of 1 to 3: no tick at 0.5.
    expect(option.yAxis.minInterval).toBe(1);
    expect(option.animationDuration).toBeLessThanOrEqual(300);
    expect(option.animationDurationUpdate).toBeLessThanOrEqual(300);

    // The pie names every slice outside, on its leader line, none hidden for crowding.
    await page.goto(`${server.url}/service/api/v1/export/components/${dashboard.body.dashboard_id}/share?format=html`);
    await page.waitForSelector('html[data-drawn="true"]');
    const pie = JSON.parse((await page.locator('#export-spec').textContent()) ?? '{}') as {
      series: { data: unknown[]; label?: Record<string, unknown>; labelLayout?: Record<string, unknown> }[];
    };
    expect(pie.series[0]?.data).toHaveLength(12);
    expect(pie.series[0]?.label).toMatchObject({ position: 'outside', overflow: 'break' });
    expect(pie.series[0]?.labelLayout).toEqual({ hideOverlap: false });
    await context.close();
  }, 120_000);
});
