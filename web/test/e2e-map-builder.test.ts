import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeBrowser, openPage } from '../../test/support/browser.js';
import { ADMIN, login } from '../../test/support/test-server.js';
import {
  chartTargets,
  createDashboard,
  described,
  projectWithTable,
  renderedFigure,
  useBrowserSuite,
} from './support/e2e-dashboards.js';
import { MAP_SITES } from './support/map-sites.js';

/**
 * Issue 29, maps in the chart builder: a choropleth and a point map made from a table's columns in
 * the dashboard editor (each field offering only the columns of a type it takes), drawn in the
 * live preview, saved, and drawn on the dashboard.
 */

/** Opens "Add component" → "Chart" on the table's collection and waits for its side panel. */
async function newChart(page: Page, chart: string) {
  await page.getByRole('button', { name: 'Add component' }).click();
  await page.getByRole('menuitem', { name: 'Chart', exact: true }).click();
  const panel = page.getByRole('complementary', { name: 'New chart' });
  await panel.getByLabel('Data collection').selectOption({ label: 'wf / t' });
  await panel.getByLabel('Chart type').selectOption(chart);
  return panel;
}

/** The columns a field of the panel offers ("name (type)"), once the table's columns are loaded. */
async function optionsOf(panel: ReturnType<Page['getByRole']>, label: string): Promise<string[]> {
  const options = panel.getByLabel(label).locator('option');
  const columns = async () => (await options.allTextContents()).filter((text) => text.includes(' ('));
  await expect.poll(async () => (await columns()).length, { timeout: 15_000 }).toBeGreaterThan(0);
  return columns();
}

describeBrowser('maps made in the chart builder', () => {
  const suite = useBrowserSuite();

  it('makes a choropleth and a point map from a table’s columns, previews, saves and draws them', async () => {
    const admin = await login(suite.server, ADMIN.email, ADMIN.password);
    const { projectId } = await projectWithTable(suite, 'Map builder', MAP_SITES);
    const dashboardId = await createDashboard(suite, projectId, 'Maps built', [], []);
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${dashboardId}?edit=1`, {
      session: admin,
      width: 1400,
      height: 1100,
      timeout: 20_000,
    });
    await page.getByRole('toolbar', { name: 'Dashboard editor' }).waitFor();

    // A choropleth: the country takes text or numbers; its value, once summed, numbers only.
    let panel = await newChart(page, 'choropleth');
    expect(await optionsOf(panel, 'Country (ISO code or English name)')).toEqual([
      'site (string)',
      'country (string)',
      'reads (long)',
      'lat (double)',
      'lon (double)',
      '_run_id (string)',
      '_file_id (string)',
    ]);
    await panel.getByLabel('Country (ISO code or English name)').selectOption('country');
    await panel.getByLabel('Aggregation').selectOption('sum');
    expect(await optionsOf(panel, 'Value (aggregated per country)')).toEqual([
      'reads (long)',
      'lat (double)',
      'lon (double)',
    ]);
    await panel.getByLabel('Value (aggregated per country)').selectOption('reads');
    await panel.getByLabel('Title', { exact: true }).fill('Reads by country');
    const choroplethPreview = panel.getByRole('region', { name: 'Preview' });
    await choroplethPreview.locator('[data-chart-state="rendered"]').waitFor();
    expect(await described(choroplethPreview)).toMatch(/World map of sum reads by country: 4 countries coloured/);
    await panel.getByRole('button', { name: 'Add to dashboard' }).click();
    await page.getByRole('region', { name: 'Reads by country' }).waitFor();

    // A point map: latitude, longitude and size take numbers only; its colour any plain column.
    panel = await newChart(page, 'point_map');
    const numbers = ['reads (long)', 'lat (double)', 'lon (double)'];
    expect(await optionsOf(panel, 'Latitude (degrees)')).toEqual(numbers);
    expect(await optionsOf(panel, 'Longitude (degrees)')).toEqual(numbers);
    expect(await optionsOf(panel, 'Size')).toEqual(numbers);
    await panel.getByLabel('Latitude (degrees)').selectOption('lat');
    await panel.getByLabel('Longitude (degrees)').selectOption('lon');
    await panel.getByLabel('Color (groups)').selectOption('country');
    await panel.getByLabel('Title', { exact: true }).fill('Where the sites are');
    const pointsPreview = panel.getByRole('region', { name: 'Preview' });
    await pointsPreview.locator('[data-chart-state="rendered"]').waitFor();
    expect(await described(pointsPreview)).toMatch(/World map of 9 points at lat and lon, coloured by country/);
    await panel.getByRole('button', { name: 'Add to dashboard' }).click();
    await page.getByRole('region', { name: 'Where the sites are' }).waitFor();

    // Saved, then drawn on the dashboard as any reader sees it.
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Edit', exact: true }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Maps built' }).waitFor();
    const map = await renderedFigure(page, 'Reads by country');
    expect(await described(map)).toMatch(/World map of sum reads by country: 4 countries coloured/);
    expect((await chartTargets(map)).map((target) => target.label).sort()).toEqual([
      'Brazil',
      'France',
      'Japan',
      'United States of America',
    ]);
    const points = await renderedFigure(page, 'Where the sites are');
    expect(await points.locator('[data-chart-items]').getAttribute('data-chart-items')).toBe('9');
    await context.close();
  }, 180_000);
});
