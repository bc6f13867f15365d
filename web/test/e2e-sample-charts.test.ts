import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeBrowser,
  expectAccessible,
  launchBrowser,
  openPage,
  saveScreenshot,
  startWebServer,
} from '../../test/support/browser.js';
import { ADMIN, call, login, type TestServer, uploadFile } from '../../test/support/test-server.js';

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

let browser: Browser;
let server: TestServer;
let token: string;

/** A table of the project: a collection of its workflow holding `csv`, built. */
async function addTable(workflowId: string, tag: string, csv: string): Promise<string> {
  const collection = await call<{ data_collection_id: string }>(
    server,
    'POST',
    `/workflows/${workflowId}/datacollections`,
    {
      token,
      json: { tag, pattern: `${tag}\\.csv`, format: 'csv' },
    },
  );
  const id = collection.body.data_collection_id;
  expect(await uploadFile(server, token, id, { path: `${tag}.csv`, content: csv })).toBe(201);
  const upserted = await call(server, 'POST', '/deltatables/upsert', { token, json: { data_collection_id: id } });
  expect(upserted.status, upserted.text).toBe(200);
  return id;
}

async function cardValue(page: Page): Promise<string | null> {
  const value = page.getByRole('region', { name: 'Phylum rows', exact: true }).locator('[data-card-value]');
  return (await value.count()) === 0 ? null : value.textContent();
}

describeBrowser('the charts of samples in a real browser', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer({ SERVICE_AUTH_PUBLIC_MODE: 'true' });
    ({ access_token: token } = await login(server, ADMIN.email, ADMIN.password));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('draws the four kinds from the ampliseq data, and a click on a heatmap row narrows a card', async () => {
    const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
      token,
      json: { name: 'ampliseq' },
    });
    const projectId = project.body.project_id;
    const workflow = await call<{ workflow_id: string }>(server, 'POST', `/projects/${projectId}/workflows`, {
      token,
      json: { name: 'ampliseq' },
    });
    const wf = workflow.body.workflow_id;
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
    const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
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
    const { context, page } = await openPage(browser, server, `/dashboards/${dashboard.body.dashboard_id}`, {
      height: 2000,
      timeout: 20_000,
    });
    await page.getByRole('heading', { level: 1, name: 'Ordination and clustering' }).waitFor();
    await expect.poll(() => cardValue(page), { timeout: 30_000 }).toBe('32');
    for (const name of ['Phyla by sample', 'PCoA (Bray–Curtis)', 'Rarefaction', 'Tumour panel']) {
      await page.getByRole('region', { name, exact: true }).locator('[data-chart-state="rendered"]').waitFor();
    }
    const heatmapFigure = page.getByRole('region', { name: 'Phyla by sample', exact: true });
    const described = () => heatmapFigure.locator('[role="img"]').first().getAttribute('aria-label');
    await expect.poll(described).toMatch(/31 rows by 12 columns, rows and columns clustered/);
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
