import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeBrowser, expectAccessible, openPage, saveScreenshot } from '../../test/support/browser.js';
import { call } from '../../test/support/test-server.js';
import { addTable as addTableOf, cardValue as cardOf, newWorkflow, useBrowserSuite } from './support/e2e-dashboards.js';

/**
 * Issue 28: the ampliseq phylum abundances as a clustered heatmap (Kingdom bars), its PCoA as an
 * embedding, its rarefaction curves per habitat and the example's tumour panel as an oncoplot, in a
 * real browser; a click on a heatmap row narrows a card to that phylum.
 */
const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8').replaceAll('\t', ',');
const HEATMAP = read('../../server/test/fixtures/ampliseq/complex_heatmap_canonical.tsv');
const PCOA = read('../../server/test/fixtures/ampliseq/embedding_pcoa.tsv');
const RAREFACTION = read('../../server/test/fixtures/ampliseq/rarefaction_subset.tsv');
const ALTERATIONS = read('../../examples/penguins/run_1/alterations.tsv');
const SAMPLES = HEATMAP.split('\n')[0]?.split(',').slice(2) ?? [];

async function cardValue(page: Page): Promise<string | null> {
  return cardOf(page, 'Phylum rows');
}

describeBrowser('the charts of samples in a real browser', () => {
  const suite = useBrowserSuite();
  const addTable = (workflowId: string, tag: string, csv: string) => addTableOf(suite, workflowId, tag, csv);

  it('draws the four kinds from the ampliseq data, and a click on a heatmap row narrows a card', async () => {
    const { projectId, workflowId: wf } = await newWorkflow(suite, 'ampliseq');
    const [heatmap, pcoa, rarefaction, alterations] = [
      await addTable(wf, 'heatmap', HEATMAP),
      await addTable(wf, 'pcoa', PCOA),
      await addTable(wf, 'rarefaction', RAREFACTION),
      await addTable(wf, 'alterations', ALTERATIONS),
    ];
    const figure = (id: string, title: string, dc: string, fields: Record<string, unknown>) => ({
      component_id: id,
      type: 'figure',
      title,
      data_collection_id: dc,
      ...fields,
    });
    const dashboard = await call<{ dashboard_id: string }>(suite.server, 'POST', '/dashboards', {
      token: suite.token,
      json: {
        project_id: projectId,
        title: 'Ordination and clustering',
        is_public: true,
        components: [
          { component_id: 'n', type: 'card', title: 'Phylum rows', data_collection_id: heatmap, agg: 'count' },
          figure('h', 'Phyla by sample', heatmap, {
            chart: 'clustered_heatmap',
            row: 'Phylum',
            matrix_columns: SAMPLES,
            scale: 'row',
            annotations: ['Kingdom'],
          }),
          figure('e', 'PCoA (Bray–Curtis)', pcoa, { chart: 'embedding', x: 'dim_1', y: 'dim_2', color: 'habitat' }),
          figure('r', 'Rarefaction', rarefaction, { chart: 'rarefaction', x: 'depth', y: 'shannon', color: 'group' }),
          figure('o', 'Tumour panel', alterations, {
            chart: 'oncoplot',
            x: 'sample_id',
            y: 'gene',
            color: 'alteration',
          }),
        ],
        layout: [
          { component_id: 'n', x: 0, y: 0, w: 4, h: 3 },
          { component_id: 'h', x: 0, y: 3, w: 12, h: 10 },
          { component_id: 'e', x: 0, y: 13, w: 6, h: 7 },
          { component_id: 'r', x: 6, y: 13, w: 6, h: 7 },
          { component_id: 'o', x: 0, y: 20, w: 12, h: 7 },
        ],
      },
    });
    expect(dashboard.status, dashboard.text).toBe(201);
    const { context, page } = await openPage(
      suite.browser,
      suite.server,
      `/dashboards/${dashboard.body.dashboard_id}`,
      {
        height: 2000,
        timeout: 20_000,
      },
    );
    await page.getByRole('heading', { level: 1, name: 'Ordination and clustering' }).waitFor();
    await expect.poll(() => cardValue(page), { timeout: 30_000 }).toBe('32');
    for (const name of ['Phyla by sample', 'PCoA (Bray–Curtis)', 'Rarefaction', 'Tumour panel']) {
      await page.getByRole('region', { name, exact: true }).locator('[data-chart-state="rendered"]').waitFor();
    }
    const heatmapFigure = page.getByRole('region', { name: 'Phyla by sample', exact: true });
    const described = () => heatmapFigure.locator('[role="img"]').first().getAttribute('aria-label');
    await expect.poll(described).toMatch(/31 rows by 12 columns, rows and columns clustered/);
    // The element counts the cells drawn (the answer's matrix), not the answer's rows (none).
    expect(Number(await heatmapFigure.locator('[data-chart-items]').getAttribute('data-chart-items'))).toBe(31 * 12);
    const pcoaLabel = await page
      .getByRole('region', { name: 'PCoA (Bray–Curtis)', exact: true })
      .locator('[role="img"]')
      .first()
      .getAttribute('aria-label');
    expect(pcoaLabel).toMatch(/12 points/);

    // A click on Acidobacteria's row: the card counts its one line of the table.
    const target = heatmapFigure.locator('[data-chart-targets]');
    const targets = JSON.parse((await target.getAttribute('data-chart-targets')) ?? '[]') as {
      label: string;
      x: number;
      y: number;
    }[];
    expect(targets).toHaveLength(31);
    const acidobacteria = targets.find((each) => each.label === 'Acidobacteria');
    await target.click({ position: { x: acidobacteria?.x ?? 0, y: acidobacteria?.y ?? 0 } });
    await expect
      .poll(() => new URL(page.url()).searchParams.get('filters'), { timeout: 15_000 })
      .toMatch(/"component_id":"h","value":\["Acidobacteria"\]/);
    await expect.poll(() => cardValue(page), { timeout: 15_000 }).toBe('1');
    await page.mouse.move(0, 0);
    await saveScreenshot(page, 'dashboard-sample-charts');
    await expectAccessible(page, 'charts of samples');
    await context.close();
  }, 180_000);
});
