import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeBrowser, openPage } from '../../test/support/browser.js';
import {
  counted,
  createDashboard,
  figure,
  filterOf,
  projectWithTable,
  renderedFigure,
  useBrowserSuite,
} from './support/e2e-dashboards.js';

/**
 * Issue 28 in a real browser: a brush across a Manhattan plot sets a genomic interval (its chip
 * "chr1:… – chr3:…") and a rectangle over an embedding of given coordinates that rectangle; each
 * narrows a count card to the rows the test counts from the filter the address bar holds.
 */

/** 300 variants on chromosomes 1–3, each also a sample at (a, b) on a 20 × 15 grid. */
const ROWS = Array.from({ length: 300 }, (_, i) => ({
  chrom: (i % 3) + 1,
  pos: ((i * 37) % 1000) + 1,
  p: (((i * 7919) % 1000) + 1) / 1001,
  id: `s${i}`,
  a: i % 20,
  b: Math.floor(i / 20),
}));
const CSV = ['chrom,pos,p,id,a,b', ...ROWS.map((row) => Object.values(row).join(',')), ''].join('\n');

/** Drags over a chart's canvas from one point to another (fractions of its width and height). */
async function drag(page: Page, figure: Locator, from: [number, number], to: [number, number]): Promise<void> {
  const box = await figure.locator('canvas').first().boundingBox();
  if (box === null) throw new Error('the figure has no canvas');
  const at = ([x, y]: [number, number]) => [box.x + box.width * x, box.y + box.height * y] as const;
  await page.mouse.move(...at(from));
  await page.mouse.down();
  await page.mouse.move(...at([(from[0] + to[0]) / 2, (from[1] + to[1]) / 2]), { steps: 4 });
  await page.mouse.move(...at(to), { steps: 4 });
  await page.mouse.up();
}

describeBrowser('brushes along a genome and over an embedding', () => {
  const suite = useBrowserSuite();

  it('narrows a card to a brushed genomic interval, then to a brushed rectangle', async () => {
    const { projectId, collectionId: dc } = await projectWithTable(suite, 'gwas', CSV);
    const dashboardId = await createDashboard(
      suite,
      projectId,
      'Association',
      [
        { component_id: 'n', type: 'card', title: 'Rows', data_collection_id: dc, agg: 'count' },
        figure('gwas', 'GWAS', dc, { chart: 'manhattan', chromosome: 'chrom', position: 'pos', y: 'p' }),
        figure('samples', 'Samples', dc, { chart: 'embedding', x: 'a', y: 'b', label: 'id' }),
      ],
      [
        { component_id: 'n', x: 0, y: 0, w: 4, h: 3 },
        { component_id: 'gwas', x: 0, y: 3, w: 12, h: 8 },
        { component_id: 'samples', x: 0, y: 11, w: 8, h: 8 },
      ],
    );
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${dashboardId}`, {
      height: 1600,
      timeout: 20_000,
    });
    await counted(page, 'Rows', 300, 30_000);
    const gwas = await renderedFigure(page, 'GWAS');
    const samples = await renderedFigure(page, 'Samples');

    await drag(page, gwas, [0.3, 0.5], [0.7, 0.5]);
    const interval = (await filterOf(page, 'gwas')) as [string, number, string, number];
    expect(interval).toHaveLength(4);
    const [fromChrom, fromPos, toChrom, toPos] = interval;
    const key = (chrom: number, pos: number) => chrom * 1e6 + pos;
    const inside = ROWS.filter(
      (row) =>
        key(row.chrom, row.pos) >= key(Number(fromChrom), fromPos) &&
        key(row.chrom, row.pos) <= key(Number(toChrom), toPos),
    ).length;
    expect(inside).toBeGreaterThan(0);
    expect(inside).toBeLessThan(300);
    await counted(page, 'Rows', inside);
    const chips = page.getByRole('region', { name: 'Active filters' });
    await chips.getByText(/^chr[123]:[\d,]+ – chr[123]:[\d,]+$/).waitFor();

    // Clear it, then brush a rectangle over the embedding: its rows are those inside it.
    await page.getByRole('button', { name: /^Remove filter chr/ }).click();
    await counted(page, 'Rows', 300);
    await drag(page, samples, [0.3, 0.3], [0.6, 0.6]);
    const box = (await filterOf(page, 'samples')) as [number, number, number, number];
    expect(box).toHaveLength(4);
    const [aLow, aHigh, bLow, bHigh] = box;
    const boxed = ROWS.filter((row) => row.a >= aLow && row.a <= aHigh && row.b >= bLow && row.b <= bHigh).length;
    expect(boxed).toBeGreaterThan(0);
    expect(boxed).toBeLessThan(300);
    await counted(page, 'Rows', boxed);
    await chips.getByText(/^a [\d.]+–[\d.]+, b [\d.]+–[\d.]+$/).waitFor();
    await context.close();
  }, 150_000);
});
