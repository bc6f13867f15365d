/**
 * The screenshots of the field's chart kinds for docs/dashboards.md, taken by `npm run
 * screenshots` from the example project's second dashboard ("The field's charts", on its generated
 * data): each group of kinds that the document describes together, as one image of their cells.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';

export const FIELD_TITLE = "The field's charts";

/** Each image and the component ids of the example dashboard it shows. */
const GROUPS: { name: string; components: string[] }[] = [
  { name: 'dashboard-field-tests', components: ['volcano', 'ma', 'manhattan', 'qq'] },
  { name: 'dashboard-coverage', components: ['coverage'] },
  { name: 'dashboard-tree', components: ['tree', 'lineage-count'] },
  {
    name: 'dashboard-ranked',
    components: ['lollipop', 'diverging', 'dot', 'stacked', 'funnel', 'strip', 'ecdf', 'density'],
  },
];

/** The page area (document pixels) covering every cell of `ids`, or null when one is missing. */
async function areaOf(page: Page, ids: string[]) {
  const boxes = await Promise.all(
    ids.map(async (id) => {
      const cell = page.locator(`[data-component-id="${id}"]`);
      await cell.scrollIntoViewIfNeeded();
      const box = await cell.boundingBox();
      const scroll = (await page.evaluate('[window.scrollX, window.scrollY]')) as [number, number];
      return box === null ? null : { ...box, x: box.x + scroll[0], y: box.y + scroll[1] };
    }),
  );
  if (boxes.some((box) => box === null)) return null;
  const placed = boxes as { x: number; y: number; width: number; height: number }[];
  const left = Math.min(...placed.map((box) => box.x));
  const top = Math.min(...placed.map((box) => box.y));
  const right = Math.max(...placed.map((box) => box.x + box.width));
  const bottom = Math.max(...placed.map((box) => box.y + box.height));
  const margin = 8;
  return { x: left - margin, y: top - margin, width: right - left + 2 * margin, height: bottom - top + 2 * margin };
}

/**
 * Saves each group's image from the field dashboard open in `page` (every chart drawn: `settle`
 * waits until the charts scrolled into view are drawn and quiet).
 */
export async function fieldScreenshots(page: Page, folder: string, settle: () => Promise<void>): Promise<void> {
  for (const group of GROUPS) {
    const area = await areaOf(page, group.components);
    if (area === null) throw new Error(`the field dashboard lacks a component of ${group.components.join(', ')}`);
    await settle();
    await page.mouse.move(0, 0);
    // Scrolled back to the top: a full-page image draws the fixed header where the window is.
    await page.evaluate('window.scrollTo(0, 0)');
    const path = join(folder, `${group.name}.png`);
    await page.screenshot({ path, clip: area, fullPage: true });
    process.stdout.write(`wrote ${path}\n`);
  }
}
