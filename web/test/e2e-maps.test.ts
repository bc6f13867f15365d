import { expect, it } from 'vitest';
import { describeBrowser, openPage, saveScreenshot } from '../../test/support/browser.js';
import {
  addTable,
  chartTargets,
  clickTarget,
  counted,
  createDashboard,
  described,
  drawn,
  expectAccessibleLightAndDark,
  filterOf,
  newWorkflow,
  renderedFigure,
  useBrowserSuite,
} from './support/e2e-dashboards.js';

/**
 * Issue 29, maps: a choropleth of country codes (mixed alpha-3, alpha-2 and names) and a point map
 * of latitude and longitude in a real browser; a click on France narrows a card and the point map
 * to France's rows; axe-core in light and dark.
 */

/** Nine sites: France three ways (3 rows), the USA two ways, Brazil, Japan, an unknown code. */
const SITES = [
  'site,country,reads,lat,lon',
  'a,FRA,10,48.8,2.3',
  'b,fr,20,45.7,4.8',
  'c,France,30,43.3,5.4',
  'd,USA,5,40.7,-74.0',
  'e,US,7,34.0,-118.2',
  'f,BR,1,-23.5,-46.6',
  'g,JPN,4,35.7,139.7',
  'h,XX,2,-33.9,151.2',
  'i,USA,3,41.9,-87.6',
  '',
].join('\n');

describeBrowser('maps in a real browser', () => {
  const suite = useBrowserSuite();

  it('draws a choropleth and a point map; a click on a country narrows the others', async () => {
    const { projectId, workflowId } = await newWorkflow(suite, 'Field sites');
    const sites = await addTable(suite, workflowId, 'sites', SITES);
    const figure = (id: string, title: string, fields: Record<string, unknown>) => ({
      component_id: id,
      type: 'figure',
      title,
      data_collection_id: sites,
      ...fields,
    });
    const dashboardId = await createDashboard(
      suite,
      projectId,
      'Sites of the world',
      [
        { component_id: 'n', type: 'card', title: 'Sites', data_collection_id: sites, agg: 'count' },
        figure('m', 'Reads by country', { chart: 'choropleth', region: 'country', agg: 'sum', y: 'reads' }),
        figure('p', 'Where the sites are', { chart: 'point_map', latitude: 'lat', longitude: 'lon', color: 'country' }),
      ],
      [
        { component_id: 'n', x: 0, y: 0, w: 3, h: 3 },
        { component_id: 'm', x: 0, y: 3, w: 6, h: 7 },
        { component_id: 'p', x: 6, y: 3, w: 6, h: 7 },
      ],
    );
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${dashboardId}`, {
      height: 1100,
      timeout: 20_000,
    });
    await page.getByRole('heading', { level: 1, name: 'Sites of the world' }).waitFor();
    await counted(page, 'Sites', 9, 30_000);
    const map = await renderedFigure(page, 'Reads by country');
    const points = await renderedFigure(page, 'Where the sites are');
    expect(await described(map)).toMatch(
      /World map of sum reads by country: 4 countries coloured\. 1 row with codes not on the map \(XX\)/,
    );
    expect(await described(points)).toMatch(/World map of 9 points at lat and lon, coloured by country/);
    // Every country with rows can be clicked where it is drawn.
    const targets = await chartTargets(map);
    expect(targets.map((target) => target.label).sort()).toEqual([
      'Brazil',
      'France',
      'Japan',
      'United States of America',
    ]);

    await clickTarget(map, 'France');
    expect(await filterOf(page, 'm')).toEqual(['FRA', 'France', 'fr']);
    await counted(page, 'Sites', 3);
    await expect
      .poll(() => points.locator('[data-chart-rows]').getAttribute('data-chart-rows'), { timeout: 15_000 })
      .toBe('3');
    await page.getByText('country = FRA, France or fr').first().waitFor();
    await drawn(page);
    await page.mouse.move(0, 0);
    await saveScreenshot(page, 'dashboard-maps');
    await expectAccessibleLightAndDark(page, 'maps');

    // A second click on France clears the filter.
    await clickTarget(await renderedFigure(page, 'Reads by country'), 'France');
    await counted(page, 'Sites', 9);

    // A rectangle brushed over the point map: the sites inside its longitudes and latitudes.
    const canvas = await (await renderedFigure(page, 'Where the sites are')).locator('canvas').first().boundingBox();
    if (canvas === null) throw new Error('the point map has no canvas');
    await page.mouse.move(canvas.x + canvas.width * 0.1, canvas.y + canvas.height * 0.3);
    await page.mouse.down();
    await page.mouse.move(canvas.x + canvas.width * 0.35, canvas.y + canvas.height * 0.5, { steps: 4 });
    await page.mouse.move(canvas.x + canvas.width * 0.6, canvas.y + canvas.height * 0.75, { steps: 4 });
    await page.mouse.up();
    const box = (await filterOf(page, 'p')) as number[];
    expect(box).toHaveLength(4);
    const [west = 0, east = 0, south = 0, north = 0] = box;
    expect(west).toBeLessThan(east);
    expect(south).toBeLessThan(north);
    const inside = SITES.split('\n')
      .slice(1, -1)
      .map((line) => line.split(',').map(Number))
      .filter(([, , , lat = 0, lon = 0]) => lon >= west && lon <= east && lat >= south && lat <= north).length;
    expect(inside).toBeGreaterThan(0);
    await counted(page, 'Sites', inside);
    await context.close();
  }, 180_000);
});
