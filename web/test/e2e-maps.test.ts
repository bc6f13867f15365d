import type { Locator, Page } from 'playwright-core';
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
  figure,
  filterOf,
  newWorkflow,
  renderedFigure,
  useBrowserSuite,
} from './support/e2e-dashboards.js';
import { MAP_SITES } from './support/map-sites.js';

/**
 * Issue 29, maps: a choropleth of country codes (mixed alpha-3, alpha-2 and names) and a point map
 * of latitude and longitude in a real browser; a click on France narrows a card and the point map
 * to France's rows; axe-core in light and dark. Both maps zoom (the wheel) and move, and draw the
 * whole world again on "Reset view"; a rectangle brushed on a zoomed point map filters in degrees.
 * A point map over its budget draws the server's density grid as a heatmap, and is brushed the same.
 */

/** The sites of `csv` inside a brushed box `[west, east, south, north]`. */
function inside(csv: string, [west = 0, east = 0, south = 0, north = 0]: number[]): number {
  const [head = '', ...lines] = csv.trim().split('\n');
  const names = head.split(',');
  const at = (name: string) => names.indexOf(name);
  return lines
    .map((line) => line.split(',').map(Number))
    .filter((row) => {
      const [lat = Number.NaN, lon = Number.NaN] = [row[at('lat')], row[at('lon')]];
      return lon >= west && lon <= east && lat >= south && lat <= north;
    }).length;
}

/** Drags over the figure's canvas from one point to another (fractions of its width and height). */
async function dragOver(page: Page, figure: Locator, from: [number, number], to: [number, number]) {
  const box = await figure.locator('canvas').first().boundingBox();
  if (box === null) throw new Error('the figure has no canvas');
  const at = ([x, y]: [number, number]) => [box.x + box.width * x, box.y + box.height * y] as const;
  const [x0, y0] = at(from);
  const [x1, y1] = at(to);
  await page.mouse.move(x0, y0);
  await page.mouse.down();
  await page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, { steps: 4 });
  await page.mouse.move(x1, y1, { steps: 4 });
  await page.mouse.up();
}

/** How far the figure's map is zoomed in (`data-map-zoom`). */
async function zoomOf(figure: Locator): Promise<number> {
  return Number(await figure.locator('[data-map-zoom]').getAttribute('data-map-zoom'));
}

/** Turns the mouse wheel over the middle of the figure's canvas until its map is zoomed in. */
async function zoomIn(page: Page, figure: Locator): Promise<number> {
  const box = await figure.locator('canvas').first().boundingBox();
  if (box === null) throw new Error('the figure has no canvas');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await expect
    .poll(
      async () => {
        await page.mouse.wheel(0, -200);
        return zoomOf(figure);
      },
      { timeout: 15_000 },
    )
    .toBeGreaterThan(1.5);
  return zoomOf(figure);
}

describeBrowser('maps in a real browser', () => {
  const suite = useBrowserSuite();

  it('draws a choropleth and a point map; a click on a country narrows the others', async () => {
    const { projectId, workflowId } = await newWorkflow(suite, 'Field sites');
    const sites = await addTable(suite, workflowId, 'sites', MAP_SITES);
    const dashboardId = await createDashboard(
      suite,
      projectId,
      'Sites of the world',
      [
        { component_id: 'n', type: 'card', title: 'Sites', data_collection_id: sites, agg: 'count' },
        figure('m', 'Reads by country', sites, { chart: 'choropleth', region: 'country', agg: 'sum', y: 'reads' }),
        figure('p', 'Where the sites are', sites, {
          chart: 'point_map',
          latitude: 'lat',
          longitude: 'lon',
          color: 'country',
        }),
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
    const inside = MAP_SITES.split('\n')
      .slice(1, -1)
      .map((line) => line.split(',').map(Number))
      .filter(([, , , lat = 0, lon = 0]) => lon >= west && lon <= east && lat >= south && lat <= north).length;
    expect(inside).toBeGreaterThan(0);
    await counted(page, 'Sites', inside);
    await context.close();
  }, 180_000);
  it('zooms and moves both maps, resets their view; a brush on a zoomed point map filters in degrees', async () => {
    const { projectId, workflowId } = await newWorkflow(suite, 'Zoomed sites');
    const sites = await addTable(suite, workflowId, 'sites', MAP_SITES);
    const dashboardId = await createDashboard(
      suite,
      projectId,
      'Zoomed sites',
      [
        { component_id: 'n', type: 'card', title: 'Sites', data_collection_id: sites, agg: 'count' },
        figure('m', 'Sites by country', sites, { chart: 'choropleth', region: 'country' }),
        figure('p', 'Site places', sites, { chart: 'point_map', latitude: 'lat', longitude: 'lon' }),
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
    await counted(page, 'Sites', 9, 30_000);
    const points = await renderedFigure(page, 'Site places');
    expect(await zoomOf(points)).toBe(1);

    // A rectangle over the middle of the map zoomed in, then the same pixels once the view is reset.
    const [from, to] = [[0.35, 0.4] as [number, number], [0.65, 0.7] as [number, number]];
    const zoom = await zoomIn(page, points);
    await dragOver(page, points, from, to);
    const zoomed = (await filterOf(page, 'p')) as number[];
    await counted(page, 'Sites', inside(MAP_SITES, zoomed));
    // Reset: the whole world again; the filter stays.
    await points.getByRole('button', { name: 'Reset view of Site places' }).click();
    await expect.poll(() => zoomOf(points)).toBe(1);
    expect(await filterOf(page, 'p')).toEqual(zoomed);
    await dragOver(page, points, from, to);
    await expect.poll(async () => JSON.stringify(await filterOf(page, 'p'))).not.toBe(JSON.stringify(zoomed));
    const whole = (await filterOf(page, 'p')) as number[];
    const span = (box: number[], at: number) => (box[at + 1] ?? 0) - (box[at] ?? 0);
    // The same pixels spanned `zoom` times fewer degrees, both ways.
    expect(span(zoomed, 0)).toBeCloseTo(span(whole, 0) / zoom, 0);
    expect(span(zoomed, 2)).toBeCloseTo(span(whole, 2) / zoom, 0);
    await counted(page, 'Sites', inside(MAP_SITES, whole));

    // "Move": a drag (above the rectangle) moves the map and sets no filter; once the filter is
    // cleared, the same pixels show places further west.
    await points.getByText('Move', { exact: true }).click();
    await dragOver(page, points, [0.2, 0.2], [0.5, 0.2]);
    expect(await filterOf(page, 'p')).toEqual(whole);
    expect(await zoomOf(points)).toBe(1);
    await points.getByText('Select area', { exact: true }).click();
    // The filter cleared (its rectangle with it): the map stays where it was moved.
    await page.getByRole('button', { name: 'Clear all' }).click();
    await counted(page, 'Sites', 9);
    await drawn(page);
    await dragOver(page, points, from, to);
    const moved = (await filterOf(page, 'p')) as number[];
    expect(moved[0] ?? 0).toBeLessThan((whole[0] ?? 0) - 20);
    expect(span(moved, 0)).toBeCloseTo(span(whole, 0), 0);
    await counted(page, 'Sites', inside(MAP_SITES, moved));

    // The choropleth zooms, moves with a drag and resets too.
    const map = await renderedFigure(page, 'Sites by country');
    const mapZoom = await zoomIn(page, map);
    await dragOver(page, map, [0.3, 0.5], [0.6, 0.5]);
    expect(await zoomOf(map)).toBe(mapZoom);
    await map.getByRole('button', { name: 'Reset view of Sites by country' }).click();
    await expect.poll(() => zoomOf(map)).toBe(1);
    await context.close();
  }, 180_000);

  it('draws a point map over its budget as the server’s density grid, brushed as points are', async () => {
    // 100 sites in Paris, 50 in New York: over a budget of 100, two cells of 5°.
    const csv = [
      'lat,lon',
      ...Array.from({ length: 100 }, () => '48.85,2.35'),
      ...Array.from({ length: 50 }, () => '40.71,-74.01'),
      '',
    ].join('\n');
    const { projectId, workflowId } = await newWorkflow(suite, 'Dense sites');
    const sites = await addTable(suite, workflowId, 'dense', csv);
    const dashboardId = await createDashboard(
      suite,
      projectId,
      'Dense sites',
      [
        { component_id: 'n', type: 'card', title: 'Sites', data_collection_id: sites, agg: 'count' },
        figure('p', 'Site density', sites, { chart: 'point_map', latitude: 'lat', longitude: 'lon', max_points: 100 }),
      ],
      [
        { component_id: 'n', x: 0, y: 0, w: 3, h: 3 },
        { component_id: 'p', x: 0, y: 3, w: 8, h: 8 },
      ],
    );
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${dashboardId}`, {
      height: 1100,
      timeout: 20_000,
    });
    await counted(page, 'Sites', 150, 30_000);
    const dense = await renderedFigure(page, 'Site density');
    expect(await described(dense)).toMatch(/World map of 150 points at lat and lon, counted in 2 cells of 5°/);
    expect(await described(dense)).toMatch(/Density: 150 points in 2 cells of 5°/);
    expect(await dense.locator('[data-chart-items]').getAttribute('data-chart-items')).toBe('2');
    await dragOver(page, dense, [0.1, 0.2], [0.6, 0.7]);
    const box = (await filterOf(page, 'p')) as number[];
    expect(box).toHaveLength(4);
    await counted(page, 'Sites', inside(csv, box));
    await context.close();
  }, 180_000);
});
