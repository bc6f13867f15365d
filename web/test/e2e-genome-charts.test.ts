import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { describeBrowser, openPage } from '../../test/support/browser.js';
import {
  addTable,
  ampliseqCsv,
  brushAcross,
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
  newWorkflow,
  renderedFigure,
  useBrowserSuite,
} from './support/e2e-dashboards.js';

/**
 * Issue 28, the genome tracks in a real browser: read depth along a generated locus (ampliseq has
 * no coverage table) as a coverage track, with a brush along it narrowing a card to the positions
 * brushed; and the ampliseq ASV tree (2,683 tips) with its tips coloured by dominant habitat, where
 * a click on a clade narrows a card to the clade's ASVs.
 */
const TREE = readFileSync(new URL('../../server/test/fixtures/ampliseq/tree.nwk', import.meta.url), 'utf8');
const TIPS = ampliseqCsv('tree_metadata.tsv');
const POSITIONS = 1000;
const SAMPLES = ['S1', 'S2', 'S3'];
/** Depth along 1…1,000 per sample: a slow wave, a dropout to 0 at 400–404 in S2, a peak of 300 at 700 in S3. */
function depth(sample: number, position: number): number {
  if (sample === 1 && position >= 400 && position < 405) return 0;
  if (sample === 2 && position === 700) return 300;
  return Math.round(40 + 10 * sample + 15 * Math.sin(position / 60));
}
const COVERAGE = [
  'sample,position,depth',
  ...SAMPLES.flatMap((name, sample) =>
    Array.from({ length: POSITIONS }, (_, i) => `${name},${i + 1},${depth(sample, i + 1)}`),
  ),
  '',
].join('\n');

describeBrowser('the genome tracks in a real browser', () => {
  const suite = useBrowserSuite();

  it('draws a coverage track, and a brush along it narrows a card', async () => {
    const { projectId, workflowId } = await newWorkflow(suite, 'locus');
    const coverage = await addTable(suite, workflowId, 'coverage', COVERAGE);
    const dashboardId = await createDashboard(
      suite,
      projectId,
      'Read depth',
      [
        { component_id: 'n', type: 'card', title: 'Positions', data_collection_id: coverage, agg: 'count' },
        figure('c', 'Depth along the locus', coverage, {
          chart: 'coverage',
          position: 'position',
          y: 'depth',
          color: 'sample',
          buckets: 100,
        }),
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
    await counted(page, 'Positions', (POSITIONS * SAMPLES.length).toLocaleString('en-US'), 30_000);
    const track = await renderedFigure(page, 'Depth along the locus');
    // 1,000 positions in 100 buckets for each of the three samples.
    expect(await drawnItems(track)).toBe(300);
    expect(await described(track)).toMatch(/Coverage of .* along .*, 3 tracks, 300 buckets drawn\./);

    await brushAcross(page, track, 0.3, 0.6);
    const [low, high] = (await filterOf(page, 'c')) as [number, number];
    const inRange = Array.from({ length: POSITIONS }, (_, i) => i + 1).filter((at) => at >= low && at <= high);
    expect(inRange.length).toBeGreaterThan(0);
    expect(inRange.length).toBeLessThan(POSITIONS);
    await counted(page, 'Positions', (inRange.length * SAMPLES.length).toLocaleString('en-US'));
    await page
      .getByRole('region', { name: 'Active filters' })
      .getByText(/^Depth along the locus: /)
      .waitFor();
    await drawn(page);
    await expectAccessibleLightAndDark(page, 'coverage dashboard');
    await context.close();
  }, 180_000);

  it('draws the ampliseq tree, and a click on a clade narrows a card to its ASVs', async () => {
    const { projectId, workflowId } = await newWorkflow(suite, 'ampliseq phylogeny');
    const tips = await addTable(suite, workflowId, 'asvs', TIPS, { 'tree.nwk': TREE });
    const dashboardId = await createDashboard(
      suite,
      projectId,
      'Phylogeny',
      [
        { component_id: 'n', type: 'card', title: 'ASVs', data_collection_id: tips, agg: 'count' },
        figure('t', 'ASV tree', tips, { chart: 'tree', tip: 'taxon', color: 'dominant_habitat' }),
      ],
      [
        { component_id: 'n', x: 0, y: 0, w: 3, h: 3 },
        { component_id: 't', x: 0, y: 3, w: 12, h: 14 },
      ],
    );
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${dashboardId}`, {
      height: 1400,
      timeout: 20_000,
    });
    await counted(page, 'ASVs', '2,683', 30_000);
    const tree = await renderedFigure(page, 'ASV tree');
    expect(await described(tree)).toMatch(
      /^ASV tree\. Rectangular tree of 2,683 tips, tips coloured by dominant_habitat\.$/,
    );

    // The largest clade a filter can take (the targets come largest first).
    const [target] = await chartTargets(tree);
    const clade = Number(/^(\d+) tips/.exec(target?.label ?? '')?.[1]);
    expect(clade).toBeGreaterThan(1);
    await clickTarget(tree, target?.label ?? '');
    const names = (await filterOf(page, 't')) as string[];
    expect(names).toHaveLength(clade);
    expect(names.every((name) => TIPS.includes(`\n${name},`))).toBe(true);
    await counted(page, 'ASVs', clade.toLocaleString('en-US'));
    await page
      .getByRole('region', { name: 'Active filters' })
      .getByText(/^taxon = /)
      .waitFor();
    await drawn(page);
    await page.mouse.move(0, 0);
    await expectAccessibleLightAndDark(page, 'tree dashboard');
    await context.close();
  }, 240_000);
});
