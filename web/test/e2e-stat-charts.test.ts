import { expect, it } from 'vitest';
import { describeBrowser, openPage } from '../../test/support/browser.js';
import {
  brushAcross,
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
 * Issue 28, the statistics of differences in a real browser: a generated association table (300
 * variants on 1…22, X, Y and MT, written in a scrambled order) drawn as an MA plot, a QQ plot and a
 * Manhattan plot. What each draws is checked against numbers this file works out from the rows: the
 * MA plot's classes, the QQ plot's λ, the Manhattan plot's chromosomes in natural order with its
 * genome-wide line. A brush on the MA plot and one on the Manhattan plot each narrow a card and the
 * QQ plot to the rows in the brushed range.
 */
const CHROMOSOMES = [...Array.from({ length: 22 }, (_, i) => String(i + 1)), 'X', 'Y', 'MT'];
const COUNT = 300;
/** The p value whose χ² (1 degree of freedom) is 1: the middle two p values, so λ = 1 / 0.4549. */
const MIDDLE_P = 0.3173105;

/** The p value of the `rank`-th smallest: 5 below 5e-8, then spread below and above MIDDLE_P. */
function pOfRank(rank: number): number {
  if (rank < 5) return 10 ** (rank - 12);
  if (rank < 149) return (MIDDLE_P * (rank + 1)) / 150;
  if (rank <= 150) return MIDDLE_P;
  return MIDDLE_P + ((1 - MIDDLE_P) * (rank - 150)) / 150;
}

const ROWS = Array.from({ length: COUNT }, (_, i) => ({
  chrom: CHROMOSOMES[(i * 7) % CHROMOSOMES.length] ?? '',
  pos: ((i * 37) % 1000) + 1,
  p: pOfRank((i * 7) % COUNT),
  mean: 10 + i,
  lfc: (((i * 13) % 41) - 20) / 5,
}));
const CSV = ['chrom,pos,p,mean,lfc', ...ROWS.map((row) => Object.values(row).join(',')), ''].join('\n');

/** The MA plot's classes: p below 0.05 and |fold change| at least 1, as docs/dashboards.md defines them. */
function classes(): { up: number; down: number; ns: number } {
  const up = ROWS.filter((row) => row.p < 0.05 && row.lfc >= 1).length;
  const down = ROWS.filter((row) => row.p < 0.05 && row.lfc <= -1).length;
  return { up, down, ns: COUNT - up - down };
}

/** A variant's place along the genome: its chromosome's natural rank, then its position. */
const placeOf = (chrom: string, pos: number) => CHROMOSOMES.indexOf(chrom) * 1e6 + pos;

describeBrowser('MA, QQ and Manhattan plots in a real browser', () => {
  const suite = useBrowserSuite();

  it('draws each from its rows; brushes on the MA and Manhattan plots narrow a card and the QQ plot', async () => {
    const { projectId, collectionId: dc } = await projectWithTable(suite, 'association', CSV);
    const dashboardId = await createDashboard(
      suite,
      projectId,
      'Association',
      [
        { component_id: 'n', type: 'card', title: 'Variants', data_collection_id: dc, agg: 'count' },
        figure('ma', 'Fold change by mean', dc, { chart: 'ma', x: 'mean', y: 'lfc', p: 'p' }),
        figure('qq', 'Observed against expected', dc, { chart: 'qq', y: 'p' }),
        figure('gwas', 'Genome-wide association', dc, {
          chart: 'manhattan',
          chromosome: 'chrom',
          position: 'pos',
          y: 'p',
        }),
      ],
      [
        { component_id: 'n', x: 0, y: 0, w: 3, h: 3 },
        { component_id: 'ma', x: 0, y: 3, w: 6, h: 8 },
        { component_id: 'qq', x: 6, y: 3, w: 6, h: 8 },
        { component_id: 'gwas', x: 0, y: 11, w: 12, h: 8 },
      ],
    );
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${dashboardId}`, {
      height: 1600,
      timeout: 20_000,
    });
    await page.getByRole('heading', { level: 1, name: 'Association' }).waitFor();
    // The first page of a freshly started server can be slow on a loaded machine.
    await counted(page, 'Variants', COUNT, 60_000);

    const ma = await renderedFigure(page, 'Fold change by mean');
    const { up, down, ns } = classes();
    expect(up).toBeGreaterThan(0);
    expect(down).toBeGreaterThan(0);
    expect(await drawnItems(ma)).toBe(COUNT);
    expect(await described(ma)).toContain(
      `MA plot of lfc against mean, 300 points. ${up} points up, ${down} down, ${ns} not significant.`,
    );
    const qq = await renderedFigure(page, 'Observed against expected');
    expect(await drawnItems(qq)).toBe(COUNT);
    // The middle p values are MIDDLE_P: χ² 1, over χ²'s median 0.4549.
    expect((1 / 0.4549).toFixed(3)).toBe('2.198');
    expect(await described(qq)).toContain('QQ plot of observed against expected −log10 p, 300 points, λ = 2.198.');
    const gwas = await renderedFigure(page, 'Genome-wide association');
    expect(await drawnItems(gwas)).toBe(COUNT);
    expect(await described(gwas)).toContain(
      'along 25 chromosomes (1–22, X, Y, MT), 300 points drawn, 5 below the genome-wide line at 5e-8.',
    );

    // A brush along the MA plot's mean: the card and the QQ plot keep the rows in that range.
    await brushAcross(page, ma, 0.3, 0.6);
    const [low, high] = (await filterOf(page, 'ma')) as [number, number];
    const inRange = ROWS.filter((row) => row.mean >= low && row.mean <= high).length;
    expect(inRange).toBeGreaterThan(0);
    expect(inRange).toBeLessThan(COUNT);
    await counted(page, 'Variants', inRange);
    await expect.poll(() => drawnItems(qq), { timeout: 15_000 }).toBe(inRange);
    const chips = page.getByRole('region', { name: 'Active filters' });
    await chips.getByText(/^Fold change by mean: /).waitFor();

    // Cleared, then a brush across the Manhattan plot: a genomic interval in natural order.
    await page.getByRole('button', { name: /^Remove filter / }).click();
    await counted(page, 'Variants', COUNT);
    await drawn(page);
    await brushAcross(page, gwas, 0.3, 0.7);
    const [fromChrom, fromPos, toChrom, toPos] = (await filterOf(page, 'gwas')) as [string, number, string, number];
    const inside = ROWS.filter(
      (row) =>
        placeOf(row.chrom, row.pos) >= placeOf(String(fromChrom), fromPos) &&
        placeOf(row.chrom, row.pos) <= placeOf(String(toChrom), toPos),
    ).length;
    expect(inside).toBeGreaterThan(0);
    expect(inside).toBeLessThan(COUNT);
    await counted(page, 'Variants', inside);
    await expect.poll(() => drawnItems(qq), { timeout: 15_000 }).toBe(inside);
    await chips.getByText(/^chr[\dXYMT]+:[\d,]+ – chr[\dXYMT]+:[\d,]+$/).waitFor();
    await drawn(page);
    await page.mouse.move(0, 0);
    await expectAccessibleLightAndDark(page, 'MA, QQ and Manhattan plots');
    await context.close();
  }, 240_000);
});
