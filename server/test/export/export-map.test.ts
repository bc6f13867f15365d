import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, watchPolicyViolations } from '../../../test/support/browser.js';
import { call, type TestServer } from '../../../test/support/test-server.js';
import { API_PREFIX } from '../../src/http/prefix.js';
import { projectWithTable, serverWithPeople } from '../dashboards/analytics-table.js';
import { exportPath } from './export-fixture.js';

/**
 * Exported maps (docs/dashboards.md "Maps"): the page of a choropleth or a point map carries the
 * world's countries inline beside its option, and draws them in Chromium with no request but the
 * page itself; other figures' pages do not carry them.
 */

const SITES_CSV = [
  'site,country,lat,lon',
  'a,FRA,48.8,2.3',
  'b,fr,45.7,4.8',
  'c,USA,40.7,-74.0',
  'd,BR,-23.5,-46.6',
  '',
].join('\n');

/** Light theme: the darkest of the sequential colours, the choropleth's highest value (common/src/charts/palette.ts). */
const HIGHEST = [0x18, 0x64, 0xab];

describeBrowser('exported maps in Chromium', () => {
  let server: TestServer;
  let token: string;
  let dashboardId: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const people = await serverWithPeople('sqlite');
    server = people.server;
    token = (await people.session('ada@example.org')).access_token;
    const table = await projectWithTable(server, token, 'Sites', SITES_CSV);
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: table.projectId,
        title: 'Sites',
        components: [
          {
            component_id: 'm',
            type: 'figure',
            data_collection_id: table.collectionId,
            chart: 'choropleth',
            region: 'country',
          },
          {
            component_id: 'p',
            type: 'figure',
            data_collection_id: table.collectionId,
            chart: 'point_map',
            latitude: 'lat',
            longitude: 'lon',
          },
          { component_id: 'b', type: 'figure', data_collection_id: table.collectionId, chart: 'bar', x: 'country' },
        ],
      },
    });
    if (created.status !== 201) throw new Error(created.text);
    dashboardId = created.body.dashboard_id;
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.stop();
    await server?.database.drop();
  });

  it('carries the countries in a map’s page only', async () => {
    const map = await call(server, 'GET', exportPath(dashboardId, 'm', { format: 'html' }), { token });
    expect(map.status, map.text).toBe(200);
    const geo = /<script type="application\/json" id="export-geo">([\s\S]*?)<\/script>/.exec(map.text)?.[1] ?? '';
    expect(
      (JSON.parse(geo) as { objects: { countries: { geometries: unknown[] } } }).objects.countries.geometries,
    ).toHaveLength(177);
    const bars = await call(server, 'GET', exportPath(dashboardId, 'b', { format: 'html' }), { token });
    expect(bars.text).not.toContain('id="export-geo"');
    const spec = await call<{ spec: { series: { type: string; map?: string }[] } }>(
      server,
      'GET',
      exportPath(dashboardId, 'm'),
      {
        token,
      },
    );
    expect(spec.body.spec.series[0]).toMatchObject({ type: 'map', map: 'world' });
  });

  it('draws a choropleth and a point map with no request but the page itself', async () => {
    for (const component of ['m', 'p']) {
      const context = await browser.newContext({ viewport: { width: 640, height: 400 } });
      contexts.push(context);
      watchPolicyViolations(context);
      const answer = await call(server, 'GET', exportPath(dashboardId, component, { format: 'html' }), { token });
      const url = `${server.url}${API_PREFIX}/export-test/${component}`;
      const requests: string[] = [];
      await context.route('**/*', (route) => {
        requests.push(route.request().url());
        return route.request().url() === url
          ? route.fulfill({
              body: answer.text,
              contentType: 'text/html',
              headers: { 'content-security-policy': answer.headers.get('content-security-policy') ?? '' },
            })
          : route.abort();
      });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      await page.goto(url);
      await page.locator('html[data-drawn="true"]').waitFor();
      expect(errors).toEqual([]);
      expect(requests).toEqual([url]);
      // The countries are drawn: far more coloured pixels than a title alone; France in the darkest blue.
      const counts = await page.evaluate<{ drawn: number; highest: number }>(`(() => {
        const canvas = document.querySelector('#chart canvas');
        const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
        const highest = ${JSON.stringify(HIGHEST)};
        let drawn = 0;
        let hits = 0;
        for (let at = 0; at < data.length; at += 4) {
          if (data[at + 3] > 0) drawn += 1;
          if ([0, 1, 2].every((channel) => Math.abs(data[at + channel] - highest[channel]) <= 6)) hits += 1;
        }
        return { drawn, highest: hits };
      })()`);
      expect(counts.drawn).toBeGreaterThan(20_000);
      if (component === 'm') expect(counts.highest).toBeGreaterThan(50);
    }
  }, 120_000);
});
