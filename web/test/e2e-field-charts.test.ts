import { expect, it } from 'vitest';
import { describeBrowser, expectAccessible, openPage, saveScreenshot } from '../../test/support/browser.js';
import {
  ampliseqCsv,
  brushAcross,
  counted,
  createDashboard,
  described,
  figure,
  filterOf,
  projectWithTable,
  renderedFigure,
  useBrowserSuite,
} from './support/e2e-dashboards.js';

/**
 * Issue 28: a volcano plot of the ampliseq ANCOM-BC results (lfc × q_val) in a real browser, and a
 * brush along its fold change narrowing a count card to the rows in the brushed range.
 */
const ANCOMBC = ampliseqCsv('ancombc_results.tsv');

/** The fold changes of the table, to count the rows a brushed range holds. */
const FOLD_CHANGES = ANCOMBC.trim()
  .split('\n')
  .slice(1)
  .map((line) => Number(line.split(',')[2]));

describeBrowser('the field charts in a real browser', () => {
  const suite = useBrowserSuite();

  it('draws the ampliseq volcano, and a brush on it narrows a card', async () => {
    const { projectId, collectionId: dc } = await projectWithTable(suite, 'ampliseq', ANCOMBC);
    const dashboardId = await createDashboard(
      suite,
      projectId,
      'Differential abundance',
      [
        { component_id: 'n', type: 'card', title: 'Features', data_collection_id: dc, agg: 'count' },
        figure('volcano', 'Volcano', dc, { chart: 'volcano', x: 'lfc', y: 'q_val', label: 'Phylum' }),
      ],
      [
        { component_id: 'n', x: 0, y: 0, w: 4, h: 3 },
        { component_id: 'volcano', x: 0, y: 3, w: 12, h: 8 },
      ],
    );
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${dashboardId}`, {
      height: 1200,
      timeout: 20_000,
    });
    await page.getByRole('heading', { level: 1, name: 'Differential abundance' }).waitFor();
    // The first page of a freshly started server can be slow on a loaded machine.
    await counted(page, 'Features', 96, 30_000);
    const volcano = await renderedFigure(page, 'Volcano');
    expect(await volcano.getAttribute('data-total-rows')).toBe('96');
    // The classes under the title, as the server counted them (31 up, 26 down of the 96).
    expect(await described(volcano)).toMatch(/31 points up/);

    await brushAcross(page, volcano, 0.25, 0.5);
    const [low, high] = (await filterOf(page, 'volcano')) as [number, number];
    const inRange = FOLD_CHANGES.filter((fold) => fold >= low && fold <= high).length;
    expect(inRange).toBeGreaterThan(0);
    expect(inRange).toBeLessThan(96);
    await counted(page, 'Features', inRange);
    await page
      .getByRole('region', { name: 'Active filters' })
      .getByText(/^Volcano: /)
      .waitFor();
    await page.mouse.move(0, 0);
    await saveScreenshot(page, 'dashboard-volcano');
    await expectAccessible(page, 'volcano dashboard');
    await context.close();
  }, 120_000);
});
