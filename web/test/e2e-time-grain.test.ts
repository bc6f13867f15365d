import { expect, it } from 'vitest';
import { describeBrowser, expectAccessible, openPage } from '../../test/support/browser.js';
import { ADMIN, login } from '../../test/support/test-server.js';
import { createDashboard, figure, projectWithTable, useBrowserSuite } from './support/e2e-dashboards.js';

/** A reading a day from 2023-01-01 (a Sunday) to 2024-12-30: 730 days, 106 ISO weeks, 24 months, 2 years. */
function daily(): string {
  const start = Date.UTC(2023, 0, 1);
  const rows = Array.from({ length: 730 }, (_, i) => {
    const day = new Date(start + i * 86_400_000).toISOString().slice(0, 10);
    return `${day},${i % 7}`;
  });
  return `${['read_on,level', ...rows].join('\n')}\n`;
}

/**
 * The time grain of a line chart over dates (issue 26, item 5): drawn by weeks by default (two
 * years of days would be 730 points), and the builder's "Time grain" redraws the axis by months,
 * then by years, as the chart's description and its number of points say.
 */
describeBrowser('the time grain of a date axis in the chart builder', () => {
  const suite = useBrowserSuite();

  it('draws two years of days by week, then by month and by year as the builder chooses', async () => {
    const { projectId, collectionId } = await projectWithTable(suite, 'Readings', daily());
    const id = await createDashboard(
      suite,
      projectId,
      'Readings',
      [figure('levels', 'Levels over time', collectionId, { chart: 'line', x: 'read_on', y: 'level', agg: 'mean' })],
      [{ component_id: 'levels', x: 0, y: 0, w: 12, h: 6 }],
    );
    const session = await login(suite.server, ADMIN.email, ADMIN.password);
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${id}?edit=1`, {
      timeout: 20_000,
      session,
    });
    await page.getByRole('button', { name: 'Edit Levels over time' }).click();
    const panel = page.getByRole('complementary', { name: 'Edit chart' });
    const preview = panel.getByRole('region', { name: 'Preview' }).locator('[role="img"][data-chart-items]');
    const drawn = async () => ({
      items: Number(await preview.getAttribute('data-chart-items')),
      label: (await preview.getAttribute('aria-label')) ?? '',
    });
    await preview.and(page.locator('[data-chart-state="rendered"]')).waitFor();
    await expect.poll(drawn).toMatchObject({ items: 106, label: expect.stringContaining('read_on (by week)') });

    const grain = panel.getByLabel('Time grain');
    expect(await grain.locator('option').allTextContents()).toEqual([
      'automatic (from the span)',
      'day',
      'week',
      'month',
      'quarter',
      'year',
    ]);
    await expectAccessible(page, 'the chart builder with a time grain');
    await grain.selectOption('month');
    await expect.poll(drawn).toMatchObject({ items: 24, label: expect.stringContaining('read_on (by month)') });
    await grain.selectOption('year');
    await expect.poll(drawn).toMatchObject({ items: 2, label: expect.stringContaining('read_on (by year)') });
    await context.close();
  }, 120_000);
});
