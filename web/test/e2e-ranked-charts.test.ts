import { expect, it } from 'vitest';
import { describeBrowser, openPage } from '../../test/support/browser.js';
import {
  addTable,
  ampliseqCsv,
  chartTargets,
  clickTarget,
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
 * Issue 28, the ranked kinds in a real browser: the ampliseq ANCOM-BC results as a lollipop, a
 * diverging bar chart and a dot plot, its relative abundances as stacked bars per sample, and a
 * generated DADA2 read-tracking table as a funnel (ampliseq's tables hold no such stages). What
 * each chart draws is checked against numbers this file works out from the files itself; a click
 * on a lollipop narrows a card to the rows of its phylum.
 */
const ANCOMBC = ampliseqCsv('ancombc_results.tsv');
const ABUNDANCE = ampliseqCsv('taxonomy_rel_abundance.tsv');
const STAGES = ['input', 'filtered', 'denoised', 'merged', 'nonchim'];
/** Reads per sample and stage: each stage keeps 90 %, 95 %, 97 %, 80 % of the one before, from 10,000 × (1 + sample). */
const TRACKING = [
  'sample,stage,reads',
  ...[0, 1, 2, 3].flatMap((sample) => {
    let reads = 10_000 * (1 + sample);
    return STAGES.map((stage, at) => {
      reads = at === 0 ? reads : Math.round(reads * ([0.9, 0.95, 0.97, 0.8][at - 1] ?? 1));
      return `S${sample},${stage},${reads}`;
    });
  }),
  '',
].join('\n');

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The phyla of largest |mean lfc| over the contrasts, ties by name (the lollipop's categories), with that mean. */
function topEffects(count: number): { phylum: string; effect: number }[] {
  const byPhylum = new Map<string, number[]>();
  for (const row of csvRecords(ANCOMBC)) {
    byPhylum.set(row.Phylum ?? '', [...(byPhylum.get(row.Phylum ?? '') ?? []), Number(row.lfc)]);
  }
  return [...byPhylum]
    .map(([phylum, values]) => ({ phylum, effect: mean(values) }))
    .sort((a, b) => Math.abs(b.effect) - Math.abs(a.effect) || a.phylum.localeCompare(b.phylum))
    .slice(0, count);
}

/** The phyla of largest total relative abundance: the stacked bars' segments, largest first. */
function topTaxa(count: number): string[] {
  const totals = new Map<string, number>();
  for (const row of csvRecords(ABUNDANCE)) {
    totals.set(row.Phylum ?? '', (totals.get(row.Phylum ?? '') ?? 0) + Number(row.rel_abundance));
  }
  return [...totals]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, count)
    .map(([phylum]) => phylum);
}

/** The funnel's stages as its description writes them: the sum of reads per stage, largest first. */
function funnelStages(): string {
  const sums = new Map<string, number>();
  for (const row of csvRecords(TRACKING))
    sums.set(row.stage ?? '', (sums.get(row.stage ?? '') ?? 0) + Number(row.reads));
  return [...sums]
    .sort((a, b) => b[1] - a[1])
    .map(([stage, sum]) => `${stage} ${sum}`)
    .join(', ');
}

describeBrowser('the ranked charts in a real browser', () => {
  const suite = useBrowserSuite();

  it('draws lollipop, diverging bar, dot, stacked bar and funnel charts; a lollipop click narrows a card', async () => {
    const { projectId, workflowId } = await newWorkflow(suite, 'ampliseq ranked');
    const ancombc = await addTable(suite, workflowId, 'ancombc', ANCOMBC);
    const abundance = await addTable(suite, workflowId, 'abundance', ABUNDANCE);
    const tracking = await addTable(suite, workflowId, 'tracking', TRACKING);
    const dashboardId = await createDashboard(
      suite,
      projectId,
      'Ranked effects',
      [
        { component_id: 'n', type: 'card', title: 'Features', data_collection_id: ancombc, agg: 'count' },
        figure('l', 'Largest effects', ancombc, {
          chart: 'lollipop',
          x: 'Phylum',
          y: 'lfc',
          error: 'se',
          max_categories: 12,
        }),
        figure('d', 'Up and down', ancombc, { chart: 'diverging_bar', x: 'Phylum', y: 'lfc', max_categories: 12 }),
        figure('dot', 'Significance by contrast', ancombc, {
          chart: 'dot',
          x: 'contrast',
          y: 'Phylum',
          color: 'q_val',
          rank_by: 'color_low',
          max_categories: 10,
        }),
        figure('s', 'Phyla per sample', abundance, {
          chart: 'stacked_bar',
          x: 'sample',
          color: 'Phylum',
          y: 'rel_abundance',
          sort_by: 'habitat',
          max_categories: 8,
        }),
        figure('f', 'Reads kept', tracking, { chart: 'funnel', x: 'stage', y: 'reads', agg: 'sum' }),
      ],
      [
        { component_id: 'n', x: 0, y: 0, w: 3, h: 3 },
        { component_id: 'l', x: 0, y: 3, w: 6, h: 9 },
        { component_id: 'd', x: 6, y: 3, w: 6, h: 9 },
        { component_id: 'dot', x: 0, y: 12, w: 4, h: 9 },
        { component_id: 's', x: 4, y: 12, w: 5, h: 9 },
        { component_id: 'f', x: 9, y: 12, w: 3, h: 9 },
      ],
    );
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${dashboardId}`, {
      height: 1800,
      timeout: 20_000,
    });
    await page.getByRole('heading', { level: 1, name: 'Ranked effects' }).waitFor();
    // The first page of a freshly started server can be slow on a loaded machine.
    await counted(page, 'Features', 96, 30_000);

    const top = topEffects(12);
    const effects = top.map(({ phylum }) => phylum);
    // Drawn largest effect (signed) at the top: the description names the first five.
    const first = [...top].sort((a, b) => b.effect - a.effect).slice(0, 5);
    const lollipop = await renderedFigure(page, 'Largest effects');
    expect((await chartTargets(lollipop)).map((target) => target.label).sort()).toEqual([...effects].sort());
    expect(await described(lollipop)).toContain(
      `12 categories (${top.filter(({ effect }) => effect > 0).length} positive, ` +
        `${top.filter(({ effect }) => effect <= 0).length} not), largest first: ${first.map(({ phylum }) => phylum).join(', ')}.`,
    );
    const diverging = await renderedFigure(page, 'Up and down');
    expect((await chartTargets(diverging)).map((target) => target.label).sort()).toEqual([...effects].sort());

    const dots = await renderedFigure(page, 'Significance by contrast');
    expect(await described(dots)).toMatch(
      /^Significance by contrast\. Dot plot of 10 terms of Phylum by 3 groups of contrast/,
    );
    expect(new Set((await chartTargets(dots)).map((target) => target.label)).size).toBe(10);

    const stacked = await renderedFigure(page, 'Phyla per sample');
    const phyla = new Set(csvRecords(ABUNDANCE).map((row) => row.Phylum)).size;
    expect(await described(stacked)).toContain(
      `for 12 samples of sample: ${topTaxa(8).join(', ')}, Other (${phyla - 8} more in Other)`,
    );
    const funnel = await renderedFigure(page, 'Reads kept');
    expect(await drawnItems(funnel)).toBe(STAGES.length);
    expect(await described(funnel)).toContain(`Funnel of sum reads by stage: ${funnelStages()}.`);

    // The lollipop of the largest effect: the card counts its phylum's rows (one per contrast).
    const [largest = ''] = effects;
    await clickTarget(lollipop, largest);
    expect(await filterOf(page, 'l')).toEqual([largest]);
    const rows = csvRecords(ANCOMBC).filter((row) => row.Phylum === largest).length;
    expect(rows).toBeLessThan(96);
    await counted(page, 'Features', rows);
    await page
      .getByRole('region', { name: 'Active filters' })
      .getByText(`Phylum = ${largest}`, { exact: true })
      .waitFor();
    await drawn(page);
    await expectAccessibleLightAndDark(page, 'ranked charts');
    await context.close();
  }, 180_000);
});
