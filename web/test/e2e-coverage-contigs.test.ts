import { expect, it } from 'vitest';
import { describeBrowser, openPage } from '../../test/support/browser.js';
import {
  counted,
  createDashboard,
  described,
  drawn,
  drawnItems,
  expectAccessibleLightAndDark,
  figure,
  projectWithTable,
  renderedFigure,
  useBrowserSuite,
} from './support/e2e-dashboards.js';

/**
 * Issue 28, a reader's contig in a real browser: a coverage track of three contigs draws the first;
 * its reader picks another, which the address bar keeps (a reload draws it again); picking the
 * track's own contig takes it out again; a link naming a contig the table lacks draws the track's own.
 */
const LENGTHS: Record<string, number> = { chr1: 40, chr2: 25, chrM: 6 };
const CSV = [
  'contig,pos,depth',
  ...Object.entries(LENGTHS).flatMap(([contig, length]) =>
    Array.from({ length }, (_, i) => `${contig},${i + 1},${10 + ((i * 7) % 13)}`),
  ),
  '',
].join('\n');
const ROWS = Object.values(LENGTHS).reduce((sum, length) => sum + length, 0);

/** The address bar's `?contigs=`, parsed. */
const contigsOf = (url: string) => JSON.parse(new URL(url).searchParams.get('contigs') ?? '{}') as object;

describeBrowser('a reader’s contig of a coverage track', () => {
  const suite = useBrowserSuite();

  it('draws the contig a reader picks, keeps it in the address bar, and forgets one the table lacks', async () => {
    const { projectId, collectionId: dc } = await projectWithTable(suite, 'contigs', CSV);
    const dashboardId = await createDashboard(
      suite,
      projectId,
      'Depth per contig',
      [
        { component_id: 'n', type: 'card', title: 'Positions', data_collection_id: dc, agg: 'count' },
        figure('c', 'Depth', dc, { chart: 'coverage', chromosome: 'contig', position: 'pos', y: 'depth' }),
      ],
      [
        { component_id: 'n', x: 0, y: 0, w: 3, h: 3 },
        { component_id: 'c', x: 0, y: 3, w: 12, h: 8 },
      ],
    );
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${dashboardId}`, {
      height: 1100,
      timeout: 20_000,
    });
    await counted(page, 'Positions', ROWS, 60_000);
    const track = await renderedFigure(page, 'Depth');
    // Fewer positions than buckets: a row per position of chr1, the first contig.
    expect(await drawnItems(track)).toBe(LENGTHS.chr1);
    expect(await described(track)).toMatch(/along pos on 1, .*ontig 1 of 3/);
    const picker = page.getByLabel('Contig of Depth', { exact: true });
    expect(await picker.inputValue()).toBe('1');

    await picker.click();
    await page.getByRole('option', { name: '2', exact: true }).click();
    await expect.poll(() => contigsOf(page.url()), { timeout: 15_000 }).toEqual({ c: '2' });
    await drawn(page);
    await expect.poll(() => drawnItems(track), { timeout: 15_000 }).toBe(LENGTHS.chr2);
    expect(await described(track)).toMatch(/along pos on 2, .*ontig 2 of 3/);
    // A contig is no filter: the card still counts every position.
    await counted(page, 'Positions', ROWS);
    await expectAccessibleLightAndDark(page, 'coverage track of contigs');

    // A reload draws the reader's contig again.
    await page.reload();
    const reloaded = await renderedFigure(page, 'Depth');
    await expect.poll(() => drawnItems(reloaded), { timeout: 30_000 }).toBe(LENGTHS.chr2);
    expect(await page.getByLabel('Contig of Depth', { exact: true }).inputValue()).toBe('2');

    // The track's own contig again: the choice leaves the address bar.
    await page.getByLabel('Contig of Depth', { exact: true }).click();
    await page.getByRole('option', { name: '1', exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.has('contigs'), { timeout: 15_000 }).toBe(false);
    await expect.poll(() => drawnItems(reloaded), { timeout: 15_000 }).toBe(LENGTHS.chr1);
    await context.close();

    // A link naming a contig the table lacks draws the track's own, and drops it from the address.
    const stale = encodeURIComponent(JSON.stringify({ c: 'chr9' }));
    const second = await openPage(suite.browser, suite.server, `/dashboards/${dashboardId}?contigs=${stale}`, {
      height: 1100,
      timeout: 20_000,
    });
    await expect.poll(() => new URL(second.page.url()).searchParams.has('contigs'), { timeout: 30_000 }).toBe(false);
    const fallback = await renderedFigure(second.page, 'Depth');
    await expect.poll(() => drawnItems(fallback), { timeout: 15_000 }).toBe(LENGTHS.chr1);
    await second.context.close();
  }, 240_000);
});
