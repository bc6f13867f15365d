import { expect, it } from 'vitest';
import { describeBrowser, openPage, saveScreenshot } from '../../test/support/browser.js';
import {
  ampliseqCsv,
  chartTargets,
  clickTarget,
  counted,
  createDashboard,
  described,
  drawn,
  drawnItems,
  expectAccessibleLightAndDark,
  figure,
  filterOf,
  projectWithTable,
  renderedFigure,
  useBrowserSuite,
} from './support/e2e-dashboards.js';

/**
 * Issue 28: the ampliseq taxonomy (two samples of sunburst_canonical.tsv) drawn as a sunburst, a
 * treemap and a sankey, and the ampliseq UpSet matrix as an UpSet plot, in a real browser; a click
 * on a sunburst node narrows a count card to the rows on its path.
 */
const TAXONOMY = ampliseqCsv('sunburst_canonical.tsv');
const UPSET = ampliseqCsv('upset_canonical.tsv');

/** Rows per kingdom, counted from the file, to check the card after a click. */
const ROWS_BY_KINGDOM = new Map<string, number>();
for (const line of TAXONOMY.trim().split('\n').slice(1)) {
  const kingdom = line.split(',')[2] ?? '';
  ROWS_BY_KINGDOM.set(kingdom, (ROWS_BY_KINGDOM.get(kingdom) ?? 0) + 1);
}
const TOTAL_ROWS = [...ROWS_BY_KINGDOM.values()].reduce((sum, n) => sum + n, 0);

describeBrowser('sunburst, treemap, sankey and UpSet plots in a real browser', () => {
  const suite = useBrowserSuite();

  it('draws each kind from the ampliseq data, and a click on a sunburst node narrows a card', async () => {
    const taxonomy = await projectWithTable(suite, 'ampliseq taxonomy', TAXONOMY);
    const upset = await projectWithTable(suite, 'ampliseq upset', UPSET);
    const dc = taxonomy.collectionId;
    const levels = ['Kingdom', 'Phylum', 'Class'];
    const dashboardId = await createDashboard(
      suite,
      taxonomy.projectId,
      'Community composition',
      [
        { component_id: 'n', type: 'card', title: 'Taxa rows', data_collection_id: dc, agg: 'count' },
        figure('sunburst', 'Taxonomy', dc, { chart: 'sunburst', levels, value: 'abundance' }),
        figure('treemap', 'Phyla', dc, { chart: 'treemap', levels: ['Phylum', 'Class'], value: 'abundance' }),
        figure('sankey', 'Habitat to phylum', dc, { chart: 'sankey', levels: ['Habitat', 'Kingdom', 'Phylum'] }),
      ],
      [
        { component_id: 'n', x: 0, y: 0, w: 4, h: 3 },
        { component_id: 'sunburst', x: 0, y: 3, w: 6, h: 8 },
        { component_id: 'treemap', x: 6, y: 3, w: 6, h: 8 },
        { component_id: 'sankey', x: 0, y: 11, w: 12, h: 8 },
      ],
    );
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${dashboardId}`, {
      height: 1600,
      timeout: 20_000,
    });
    await page.getByRole('heading', { level: 1, name: 'Community composition' }).waitFor();
    // The first page of a freshly started server can be slow on a loaded machine.
    await counted(page, 'Taxa rows', TOTAL_ROWS.toLocaleString('en-US'), 30_000);
    for (const name of ['Taxonomy', 'Phyla', 'Habitat to phylum']) {
      expect(await drawnItems(await renderedFigure(page, name))).toBeGreaterThan(0);
    }
    const sunburst = await renderedFigure(page, 'Taxonomy');
    expect(await described(sunburst)).toMatch(/Sunburst of Kingdom → Phylum → Class \(3 levels\): 2 top-level nodes/);

    // Click the innermost ring's largest node (a kingdom): the card counts that kingdom's rows.
    const [target] = await chartTargets(sunburst);
    if (target === undefined) throw new Error('the sunburst has no targets');
    await clickTarget(sunburst, target.label);
    await filterOf(page, 'sunburst');
    const expected = ROWS_BY_KINGDOM.get(target.label);
    expect(expected).toBeDefined();
    expect(expected).toBeLessThan(TOTAL_ROWS);
    await counted(page, 'Taxa rows', (expected ?? 0).toLocaleString('en-US'));
    await page
      .getByRole('region', { name: 'Active filters' })
      .getByText(`Kingdom = ${target.label}`, { exact: true })
      .waitFor();
    await drawn(page);
    await page.mouse.move(0, 0);
    await saveScreenshot(page, 'dashboard-sunburst');
    await expectAccessibleLightAndDark(page, 'sunburst dashboard');
    await context.close();

    // The UpSet plot of the taxa shared across habitats.
    const sets = ['Groundwater', 'Sediment', 'Riverwater', 'Soil'];
    const upsetId = await createDashboard(
      suite,
      upset.projectId,
      'Shared taxa',
      [figure('upset', 'Taxa shared across habitats', upset.collectionId, { chart: 'upset', sets })],
      [{ component_id: 'upset', x: 0, y: 0, w: 12, h: 9 }],
    );
    const second = await openPage(suite.browser, suite.server, `/dashboards/${upsetId}`, {
      height: 900,
      timeout: 20_000,
    });
    const plot = await renderedFigure(second.page, 'Taxa shared across habitats');
    expect(await described(plot)).toMatch(
      /UpSet plot of 4 sets \(Groundwater, Sediment, Riverwater, Soil\): \d+ intersections, the largest/,
    );
    await drawn(second.page);
    await second.page.mouse.move(0, 0);
    await saveScreenshot(second.page, 'dashboard-upset');
    await expectAccessibleLightAndDark(second.page, 'UpSet dashboard');
    await second.context.close();
  }, 180_000);
});
