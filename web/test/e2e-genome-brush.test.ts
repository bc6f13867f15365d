import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, openPage, startWebServer } from '../../test/support/browser.js';
import { ADMIN, call, createProjectWithUpload, login, type TestServer } from '../../test/support/test-server.js';

/**
 * Issue 28 in a real browser: a brush across a Manhattan plot sets a genomic interval (its chip
 * "chr1:… – chr3:…") and a rectangle over an embedding with ids the brushed points' ids; each
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

let browser: Browser;
let server: TestServer;
let token: string;

async function cardValue(page: Page): Promise<string | null> {
  const value = page.getByRole('region', { name: 'Rows', exact: true }).locator('[data-card-value]');
  return (await value.count()) === 0 ? null : value.textContent();
}

/** Drags over a chart's canvas from one point to another (fractions of its width and height). */
async function drag(page: Page, title: string, from: [number, number], to: [number, number]): Promise<void> {
  const canvas = page.locator(`section[aria-label="${title}"] canvas`).first();
  const box = await canvas.boundingBox();
  if (box === null) throw new Error(`${title} has no canvas`);
  const at = ([x, y]: [number, number]) => [box.x + box.width * x, box.y + box.height * y] as const;
  await page.mouse.move(...at(from));
  await page.mouse.down();
  await page.mouse.move(...at([(from[0] + to[0]) / 2, (from[1] + to[1]) / 2]), { steps: 4 });
  await page.mouse.move(...at(to), { steps: 4 });
  await page.mouse.up();
}

/** The filter the address bar holds for a component. */
function filterOf(page: Page, componentId: string): unknown[] | undefined {
  const filters = JSON.parse(new URL(page.url()).searchParams.get('filters') ?? '[]') as {
    component_id: string;
    value: unknown[];
  }[];
  return filters.find((filter) => filter.component_id === componentId)?.value;
}

describeBrowser('brushes along a genome and over an embedding', () => {
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startWebServer({ SERVICE_AUTH_PUBLIC_MODE: 'true' });
    ({ access_token: token } = await login(server, ADMIN.email, ADMIN.password));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('narrows a card to a brushed genomic interval, then to brushed ids', async () => {
    const project = await createProjectWithUpload(server, token, 'gwas', CSV);
    const upserted = await call(server, 'POST', '/deltatables/upsert', {
      token,
      json: { data_collection_id: project.collectionId },
    });
    expect(upserted.status, upserted.text).toBe(200);
    const dc = project.collectionId;
    const dashboard = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token,
      json: {
        project_id: project.projectId,
        title: 'Association',
        is_public: true,
        components: [
          { component_id: 'n', type: 'card', title: 'Rows', data_collection_id: dc, agg: 'count' },
          {
            component_id: 'gwas',
            type: 'figure',
            title: 'GWAS',
            data_collection_id: dc,
            chart: 'manhattan',
            chromosome: 'chrom',
            position: 'pos',
            y: 'p',
          },
          {
            component_id: 'samples',
            type: 'figure',
            title: 'Samples',
            data_collection_id: dc,
            chart: 'embedding',
            x: 'a',
            y: 'b',
            label: 'id',
          },
        ],
        layout: [
          { component_id: 'n', x: 0, y: 0, w: 4, h: 3 },
          { component_id: 'gwas', x: 0, y: 3, w: 12, h: 8 },
          { component_id: 'samples', x: 0, y: 11, w: 8, h: 8 },
        ],
      },
    });
    expect(dashboard.status, dashboard.text).toBe(201);
    const { context, page } = await openPage(browser, server, `/dashboards/${dashboard.body.dashboard_id}`, {
      height: 1600,
      timeout: 20_000,
    });
    await expect.poll(() => cardValue(page), { timeout: 30_000 }).toBe('300');
    for (const title of ['GWAS', 'Samples']) {
      await page.getByRole('region', { name: title, exact: true }).locator('[data-chart-state="rendered"]').waitFor();
    }

    await drag(page, 'GWAS', [0.3, 0.5], [0.7, 0.5]);
    await expect.poll(() => filterOf(page, 'gwas'), { timeout: 15_000 }).toHaveLength(4);
    const [fromChrom, fromPos, toChrom, toPos] = (filterOf(page, 'gwas') ?? []) as [string, number, string, number];
    const key = (chrom: number, pos: number) => chrom * 1e6 + pos;
    const inside = ROWS.filter(
      (row) =>
        key(row.chrom, row.pos) >= key(Number(fromChrom), fromPos) &&
        key(row.chrom, row.pos) <= key(Number(toChrom), toPos),
    ).length;
    expect(inside).toBeGreaterThan(0);
    expect(inside).toBeLessThan(300);
    await expect.poll(() => cardValue(page), { timeout: 15_000 }).toBe(String(inside));
    const chips = page.getByRole('region', { name: 'Active filters' });
    await chips.getByText(/^chr[123]:[\d,]+ – chr[123]:[\d,]+$/).waitFor();

    // Clear it, then brush a rectangle over the embedding.
    await page.getByRole('button', { name: /^Remove filter chr/ }).click();
    await expect.poll(() => cardValue(page), { timeout: 15_000 }).toBe('300');
    await drag(page, 'Samples', [0.3, 0.3], [0.6, 0.6]);
    await expect.poll(() => filterOf(page, 'samples')?.length ?? 0, { timeout: 15_000 }).toBeGreaterThan(0);
    const ids = filterOf(page, 'samples') ?? [];
    expect(ids.every((id) => typeof id === 'string' && /^s\d+$/.test(id))).toBe(true);
    expect(ids.length).toBeLessThan(300);
    await expect.poll(() => cardValue(page), { timeout: 15_000 }).toBe(String(ids.length));
    await chips.getByText(/^id = s\d+/).waitFor();
    await context.close();
  }, 150_000);
});
