import type { Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { beforeAll, expect, it } from 'vitest';
import { imageProject } from '../../server/test/images/image-fixture.js';
import { describeBrowser, openPage, saveScreenshot } from '../../test/support/browser.js';
import { createDashboard, drawn, expectAccessibleLightAndDark, useBrowserSuite } from './support/e2e-dashboards.js';

/**
 * An image gallery in Chromium (docs/dashboards.md "Images"): thumbnails with their captions, paged
 * under the dashboard's filters (a filter on the pattern's `sample` narrows it), and a click opening
 * the full image in the viewer, zoomed in and out, closed with Escape; no full image is fetched
 * before one is opened. 12 micrographs, samples S01…S04 × dapi, gfp, merge, each 1,200 × 900.
 */

const SAMPLES = ['S01', 'S02', 'S03', 'S04'];
/** What the tests read of an `<img>` in the page (the test's types have no DOM). */
type Picture = { naturalWidth: number };
const KINDS = { dapi: '#4c6ef5', gfp: '#40c057', merge: '#22b8cf' } as const;
const WIDTH = 1200;
const HEIGHT = 900;

/** A made-up micrograph: bright cells (their places depend on the sample) on a dark field. */
async function micrograph(sample: number, kind: keyof typeof KINDS): Promise<Buffer> {
  const cells = Array.from({ length: 14 }, (_, i) => {
    const x = (137 * (i + 1) * (sample + 2)) % WIDTH;
    const y = (89 * (i + 3) * (sample + 1)) % HEIGHT;
    return `<circle cx="${x}" cy="${y}" r="${40 + ((i * 17) % 50)}" fill="${KINDS[kind]}" fill-opacity="0.8"/>`;
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}">
    <rect width="100%" height="100%" fill="#101418"/>${cells.join('')}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

let dashboardId: string;
/** The full images the page asked for (never the thumbnails). */
let fullRequests: string[];

/** The gallery's thumbnails once every one shows its image; answers their captions in order. */
async function shownCaptions(gallery: Locator, count: number): Promise<string[]> {
  const thumbnails = gallery.locator('img[data-image-size="thumbnail"]');
  await expect.poll(() => thumbnails.count(), { timeout: 15_000 }).toBe(count);
  await expect
    .poll(() =>
      thumbnails.evaluateAll((images) => images.every((image) => (image as unknown as Picture).naturalWidth > 0)),
    )
    .toBe(true);
  return gallery.locator('.image-caption').allTextContents();
}

/** The shown width of the viewer's image, in CSS pixels. */
async function shownWidth(page: Page): Promise<number> {
  const box = await page.getByRole('dialog').locator('img[data-image-size="full"]').boundingBox();
  return box?.width ?? 0;
}

describeBrowser('an image gallery in a real browser', () => {
  const suite = useBrowserSuite();
  beforeAll(async () => {
    const files = new Map<string, Buffer>();
    for (const [index, sample] of SAMPLES.entries()) {
      for (const kind of Object.keys(KINDS) as (keyof typeof KINDS)[]) {
        files.set(`images/${sample}_${kind}.png`, await micrograph(index, kind));
      }
    }
    const { projectId, imagesId } = await imageProject(suite.server, suite.token, files);
    dashboardId = await createDashboard(
      suite,
      projectId,
      'Micrographs',
      [
        {
          component_id: 'sample',
          type: 'interactive',
          title: 'Sample',
          data_collection_id: imagesId,
          widget: 'multiselect',
          column: 'sample',
        },
        {
          component_id: 'gallery',
          type: 'image',
          title: 'Micrographs',
          data_collection_id: imagesId,
          caption_columns: ['sample', 'kind'],
          page_size: 9,
        },
      ],
      [
        { component_id: 'sample', x: 0, y: 0, w: 4, h: 2 },
        { component_id: 'gallery', x: 0, y: 2, w: 12, h: 8 },
      ],
    );
  }, 60_000);

  it('shows captioned thumbnails, pages and filters them, and opens one full image to zoom', async () => {
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${dashboardId}`, {
      height: 900,
    });
    fullRequests = [];
    page.on('request', (request) => {
      if (request.url().includes('/images/') && request.url().includes('size=full')) fullRequests.push(request.url());
    });
    const cell = page.getByRole('region', { name: 'Micrographs', exact: true });
    const gallery = cell.getByRole('list', { name: 'Micrographs' });
    // The first page: nine thumbnails in path order, each captioned with the sample and the kind.
    expect(await shownCaptions(gallery, 9)).toEqual(
      SAMPLES.slice(0, 3).flatMap((sample) => Object.keys(KINDS).map((kind) => `${sample} · ${kind}`)),
    );
    await cell.getByText('12 images').waitFor();
    // Thumbnails, not the images: at most 320 pixels a side.
    const widths = await gallery
      .locator('img')
      .evaluateAll((images) => images.map((image) => (image as unknown as Picture).naturalWidth));
    expect(widths.every((width) => width === 320)).toBe(true);
    await drawn(page);
    await saveScreenshot(cell, 'dashboard-gallery');
    await expectAccessibleLightAndDark(page, 'image gallery');

    // The second page, from the rows route.
    await cell.getByLabel('Micrographs pages').getByRole('button', { name: '2' }).click();
    expect(await shownCaptions(gallery, 3)).toEqual(['S04 · dapi', 'S04 · gfp', 'S04 · merge']);

    // A dashboard filter on the pattern's `sample` narrows the gallery, back on its first page.
    await page.getByRole('region', { name: 'Sample', exact: true }).locator('.mantine-MultiSelect-input').click();
    await page.getByRole('option', { name: 'S02' }).click();
    await page.keyboard.press('Escape');
    await cell.getByText('3 images').waitFor();
    expect(await shownCaptions(gallery, 3)).toEqual(['S02 · dapi', 'S02 · gfp', 'S02 · merge']);
    expect(await cell.getByLabel('Micrographs pages').count()).toBe(0);
    expect(fullRequests).toEqual([]);

    await expectViewer(page, cell);
    await context.close();
    // Two pages, a filter, the viewer and four axe runs: longer than one step of the other suites.
  }, 120_000);
});

/** Opens S02's GFP image in the viewer: the full image, fitted, zoomed in and out, closed with Escape. */
async function expectViewer(page: Page, cell: Locator): Promise<void> {
  await cell.getByRole('button', { name: 'Open images/S02_gfp.png' }).click();
  const viewer = page.getByRole('dialog', { name: 'images/S02_gfp.png' });
  const full = viewer.locator('img[data-image-size="full"]');
  await full.waitFor();
  await expect.poll(() => full.evaluate((image) => (image as unknown as Picture).naturalWidth)).toBe(WIDTH);
  expect(fullRequests).toHaveLength(1);
  expect(fullRequests[0]).toContain('/components/gallery/images/');
  await viewer.getByText(`${WIDTH} × ${HEIGHT} px`).waitFor();
  const zoom = viewer.getByRole('status', { name: 'Zoom' });
  expect(await zoom.textContent()).toBe('Fit');
  // Fitted to the dialog: narrower than the image's own 1,200 pixels.
  const fitted = await shownWidth(page);
  expect(fitted).toBeGreaterThan(100);
  expect(fitted).toBeLessThan(WIDTH);
  await expectAccessibleLightAndDark(page, 'image viewer');

  // Zoom in: from the fitted scale to the next step up, 100 % (its own size), then 200 %.
  await viewer.getByRole('button', { name: 'Zoom in' }).click();
  await expect.poll(() => zoom.textContent()).toBe('100 %');
  await expect.poll(() => shownWidth(page)).toBe(WIDTH);
  await viewer.getByRole('button', { name: 'Zoom in' }).click();
  await expect.poll(() => zoom.textContent()).toBe('200 %');
  await expect.poll(() => shownWidth(page)).toBe(2 * WIDTH);
  // Larger than the dialog: it scrolls.
  const frame = viewer.locator('.image-viewer-zoomed');
  expect(await frame.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
  await viewer.getByRole('button', { name: 'Zoom out' }).click();
  await viewer.getByRole('button', { name: 'Zoom out' }).click();
  await expect.poll(() => zoom.textContent()).toBe('50 %');
  await expect.poll(() => shownWidth(page)).toBe(WIDTH / 2);
  await viewer.getByRole('button', { name: 'Fit to window' }).click();
  await expect.poll(() => zoom.textContent()).toBe('Fit');
  await expect.poll(() => shownWidth(page)).toBe(fitted);
  // Opened once: zooming fetched nothing more.
  expect(fullRequests).toHaveLength(1);

  await page.keyboard.press('Escape');
  await viewer.waitFor({ state: 'detached' });
  await cell.getByRole('button', { name: 'Open images/S02_gfp.png' }).waitFor();
}
