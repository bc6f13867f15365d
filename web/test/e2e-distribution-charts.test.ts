import { expect, it } from 'vitest';
import { describeBrowser, openPage } from '../../test/support/browser.js';
import {
  addTable,
  ampliseqCsv,
  brushAcross,
  counted,
  createDashboard,
  csvRecords,
  described,
  drawn,
  drawnItems,
  expectAccessibleLightAndDark,
  figure,
  filterOf,
  newWorkflow,
  renderedFigure,
  useBrowserSuite,
} from './support/e2e-dashboards.js';

/**
 * Issue 28, the distribution kinds in a real browser: the ampliseq alpha diversity (Shannon per
 * sample) as a strip plot and an ECDF per habitat, and the ANCOM-BC results (W against lfc) as
 * density contours. What each draws is checked against numbers worked out here from the files;
 * a brush along the ECDF narrows a card to the samples in the brushed range.
 */
const ALPHA = ampliseqCsv('alpha_diversity_multi_canonical.tsv');
const ANCOMBC = ampliseqCsv('ancombc_results.tsv');
const BINS = 12;

/** The values of column `name` of a comma-separated table. */
const column = (csv: string, name: string) => csvRecords(csv).map((row) => row[name] ?? '');

/** The non-empty cells of a `bins` × `bins` grid between each axis' lowest and highest value. */
function densityCells(xs: number[], ys: number[], bins: number): number {
  const cell = (values: number[], value: number) => {
    const [low, high] = [Math.min(...values), Math.max(...values)];
    return Math.min(bins - 1, Math.floor(((value - low) / (high - low)) * bins));
  };
  return new Set(xs.map((x, at) => `${cell(xs, x)},${cell(ys, ys[at] ?? 0)}`)).size;
}

describeBrowser('the distribution charts in a real browser', () => {
  const suite = useBrowserSuite();

  it('draws strip, ECDF and density charts from the ampliseq data; a brush on the ECDF narrows a card', async () => {
    const { projectId, workflowId } = await newWorkflow(suite, 'ampliseq distributions');
    const alpha = await addTable(suite, workflowId, 'alpha', ALPHA);
    const ancombc = await addTable(suite, workflowId, 'ancombc', ANCOMBC);
    const dashboardId = await createDashboard(
      suite,
      projectId,
      'Diversity',
      [
        { component_id: 'n', type: 'card', title: 'Samples', data_collection_id: alpha, agg: 'count' },
        figure('s', 'Shannon by habitat', alpha, { chart: 'strip', x: 'shannon', y: 'habitat', color: 'habitat' }),
        figure('e', 'Shannon, cumulative', alpha, { chart: 'ecdf', x: 'shannon', color: 'habitat' }),
        figure('d', 'W against log fold change', ancombc, { chart: 'density_contour', x: 'lfc', y: 'w', bins: BINS }),
      ],
      [
        { component_id: 'n', x: 0, y: 0, w: 3, h: 3 },
        { component_id: 's', x: 0, y: 3, w: 6, h: 8 },
        { component_id: 'e', x: 6, y: 3, w: 6, h: 8 },
        { component_id: 'd', x: 0, y: 11, w: 12, h: 8 },
      ],
    );
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${dashboardId}`, {
      height: 1500,
      timeout: 20_000,
    });
    await page.getByRole('heading', { level: 1, name: 'Diversity' }).waitFor();
    // The first page of a freshly started server can be slow on a loaded machine.
    await counted(page, 'Samples', 12, 30_000);
    const habitats = new Set(column(ALPHA, 'habitat')).size;
    const shannon = column(ALPHA, 'shannon').map(Number);

    const strip = await renderedFigure(page, 'Shannon by habitat');
    expect(await drawnItems(strip)).toBe(12);
    expect(await described(strip)).toContain(`Strip plot of shannon by habitat (${habitats} strips), 12 points.`);
    const ecdf = await renderedFigure(page, 'Shannon, cumulative');
    // One step per distinct value in each habitat: every sample's Shannon differs.
    expect(new Set(shannon).size).toBe(12);
    expect(await drawnItems(ecdf)).toBe(12);
    expect(await described(ecdf)).toContain(`for ${habitats} groups of habitat, 12 steps.`);
    const density = await renderedFigure(page, 'W against log fold change');
    const cells = densityCells(column(ANCOMBC, 'lfc').map(Number), column(ANCOMBC, 'w').map(Number), BINS);
    expect(await drawnItems(density)).toBe(cells);
    expect(await described(density)).toContain(`from 96 rows on a ${BINS} × ${BINS} grid`);

    await brushAcross(page, ecdf, 0.3, 0.7);
    const [low, high] = (await filterOf(page, 'e')) as [number, number];
    const inRange = shannon.filter((value) => value >= low && value <= high).length;
    expect(inRange).toBeGreaterThan(0);
    expect(inRange).toBeLessThan(12);
    await counted(page, 'Samples', inRange);
    await page
      .getByRole('region', { name: 'Active filters' })
      .getByText(/^Shannon, cumulative: /)
      .waitFor();
    await drawn(page);
    await page.mouse.move(0, 0);
    await expectAccessibleLightAndDark(page, 'distribution charts');
    await context.close();
  }, 180_000);
});
