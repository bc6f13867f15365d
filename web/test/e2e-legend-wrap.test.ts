import { expect, it } from 'vitest';
import { describeBrowser, openPage } from '../../test/support/browser.js';
import { createDashboard, figure, projectWithTable, useBrowserSuite } from './support/e2e-dashboards.js';

/** Five sites, two readings each. */
const CSV = `site,day,level\n${['Site A', 'Site B', 'Site C', 'Site D', 'Site E']
  .flatMap((site, i) => [`${site},1,${i}`, `${site},2,${i + 1}`])
  .join('\n')}\n`;

/**
 * What the page lays out (a string: this package's types know no DOM): the lines the legend was
 * given, the lines its names take in this browser's 12 px font (ECharts' legend: a 25 px mark,
 * 5 px to the name, 10 px to the next entry, 5 px of padding each side), and the chart's height.
 */
const LAID_OUT = `(() => {
  const chart = document.querySelector('[data-legend-rows]');
  const names = ['Site A', 'Site B', 'Site C', 'Site D', 'Site E'];
  const context = document.createElement('canvas').getContext('2d');
  context.font = '12px sans-serif';
  const room = chart.clientWidth - 10;
  let lines = 1;
  let used = 0;
  for (const name of names) {
    const entry = 25 + 5 + context.measureText(name).width + 10;
    if (used > 0 && used + entry > room) { lines += 1; used = 0; }
    used += entry;
  }
  return { given: Number(chart.dataset.legendRows), needed: lines, height: chart.getBoundingClientRect().height };
})()`;

/**
 * Legends wrap instead of paging when there is room (issue 26, item 5): a line chart of five sites
 * keeps its legend on one line in a wide cell; at 390 px the legend wraps onto the lines its names
 * need in the browser's own font, the plot moved below them, and the chart stays readable.
 */
describeBrowser('legends that wrap in a real browser', () => {
  const suite = useBrowserSuite();

  it('gives the legend the lines its names need, wide and at 390 px', async () => {
    const { projectId, collectionId } = await projectWithTable(suite, 'Sites', CSV);
    const id = await createDashboard(
      suite,
      projectId,
      'Sites',
      [
        figure('levels', 'Levels per site', collectionId, {
          chart: 'line',
          x: 'day',
          y: 'level',
          agg: 'mean',
          color: 'site',
        }),
      ],
      [{ component_id: 'levels', x: 0, y: 0, w: 12, h: 6 }],
    );
    for (const width of [1280, 390]) {
      const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${id}`, { width });
      await page.locator('[data-legend-rows][data-chart-state="rendered"]').waitFor();
      const laid = await page.evaluate<{ given: number; needed: number; height: number }>(LAID_OUT);
      expect(laid.given, `at ${width} px`).toBeGreaterThanOrEqual(laid.needed);
      expect(laid.given, `at ${width} px`).toBe(width === 1280 ? 1 : 2);
      expect(laid.height).toBeGreaterThan(150);
      await context.close();
    }
  }, 120_000);
});
