import { readFileSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeBrowser, openPage, saveScreenshot } from '../../test/support/browser.js';
import {
  counted,
  createDashboard,
  drawn,
  drawnItems,
  expectAccessibleLightAndDark,
  figure,
  filterOf,
  penguins,
  projectWithTable,
  renderedFigure,
  useBrowserSuite,
} from './support/e2e-dashboards.js';

/** The table region titled `name`'s rows, by the text of each row's cells (the checkbox cell left out). */
async function tableRows(region: Locator): Promise<string[][]> {
  const rows = region.getByRole('table').locator('tbody tr');
  const count = await rows.count();
  const all: string[][] = [];
  for (let index = 0; index < count; index++) {
    const cells = await rows.nth(index).locator('td').allTextContents();
    all.push(cells.slice(1));
  }
  return all;
}

/** Opens the header filter of `column` in `region` and answers its form. */
async function openFilter(page: Page, region: Locator, column: string): Promise<Locator> {
  await region.getByRole('button', { name: `Filter ${column}`, exact: true }).click();
  const form = page.getByRole('dialog', { name: `Filter of ${column}` });
  await form.waitFor();
  return form;
}

/**
 * A dashboard table's header filters, row selection, "as shown" CSV and address-bar state in the
 * browser (docs/dashboards.md "Tables"). 30 penguins: P1 Adelie 3,000 g, P2 Gentoo 3,100 g, P3
 * Chinstrap 3,200 g, … (species in turn, 100 g more each).
 */
describeBrowser('table column filters and row selection in a real browser', () => {
  const suite = useBrowserSuite();

  it('filters by column, selects rows to filter the rest, downloads as shown and reopens from the link', async () => {
    const project = await projectWithTable(suite, 'Filtered table', penguins(30));
    const dc = project.collectionId;
    const id = await createDashboard(
      suite,
      project.projectId,
      'Table filters',
      [
        {
          component_id: 'rows',
          type: 'table',
          title: 'Penguins table',
          data_collection_id: dc,
          columns: ['sample', 'species', 'mass'],
          page_size: 10,
          select_by: 'sample',
        },
        { component_id: 'count', type: 'card', title: 'Penguins', data_collection_id: dc, agg: 'count' },
        figure('by-species', 'By species', dc, { chart: 'bar', x: 'species' }),
      ],
      [
        { component_id: 'rows', x: 0, y: 0, w: 8, h: 8 },
        { component_id: 'count', x: 8, y: 0, w: 4, h: 2 },
        { component_id: 'by-species', x: 8, y: 2, w: 4, h: 6 },
      ],
    );
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${id}`);
    const table = page.getByRole('region', { name: 'Penguins table', exact: true });
    const rowCount = (text: string) => table.getByText(text, { exact: true }).waitFor();
    await counted(page, 'Penguins', '30');
    await rowCount('30 rows');

    // The species' value list: Gentoo only. The table narrows; the card does not (a column filter is the table's own).
    const species = await openFilter(page, table, 'species');
    await species.getByRole('checkbox', { name: 'Gentoo' }).check();
    await species.getByRole('button', { name: 'Apply' }).click();
    await rowCount('10 rows');
    // A range of mass: 3,500–4,500 g keeps P8 (3,700), P11 (4,000) and P14 (4,300).
    const mass = await openFilter(page, table, 'mass');
    await mass.getByLabel('mass from').fill('3500');
    await mass.getByLabel('mass to').fill('4500');
    await mass.getByRole('button', { name: 'Apply' }).click();
    await rowCount('3 rows');
    // Heaviest first.
    const massHeader = table.locator('th', { has: page.getByRole('button', { name: 'Sort by mass' }) });
    await table.getByRole('button', { name: 'Sort by mass' }).click();
    await expect.poll(() => massHeader.getAttribute('aria-sort')).toBe('ascending');
    await table.getByRole('button', { name: 'Sort by mass' }).click();
    await expect.poll(() => massHeader.getAttribute('aria-sort')).toBe('descending');
    await expect
      .poll(() => tableRows(table))
      .toEqual([
        ['P14', 'Gentoo', '4300'],
        ['P11', 'Gentoo', '4000'],
        ['P8', 'Gentoo', '3700'],
      ]);
    await counted(page, 'Penguins', '30');
    expect(await table.getByRole('group', { name: 'Column filters of Penguins table' }).textContent()).toContain(
      'species: Gentoo',
    );

    // The CSV as shown: the header's filters and order.
    await page.getByRole('button', { name: 'Menu of Penguins table' }).click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('menuitem', { name: 'Download CSV' }).click(),
    ]);
    const lines = readFileSync(await download.path(), 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(lines).toEqual(['sample,species,mass', 'P14,Gentoo,4300', 'P11,Gentoo,4000', 'P8,Gentoo,3700']);

    // Two rows selected: the card and the chart count them; the table keeps its three rows.
    await table.getByRole('checkbox', { name: 'Select sample P8' }).click();
    await table.getByRole('checkbox', { name: 'Select sample P11' }).click();
    expect(await filterOf(page, 'rows')).toEqual(['P8', 'P11']);
    await counted(page, 'Penguins', '2');
    await expect.poll(async () => drawnItems(await renderedFigure(page, 'By species'))).toBe(1);
    await page.getByRole('region', { name: 'Active filters' }).getByText('sample = P8 or P11').waitFor();
    await rowCount('3 rows');
    await drawn(page);
    await saveScreenshot(page, 'dashboard-table-filters');
    await expectAccessibleLightAndDark(page, 'table filters');

    // The link reopens it all: filters, order, selection.
    const link = page.url();
    const reopened = await context.newPage();
    await reopened.goto(link);
    const again = reopened.getByRole('region', { name: 'Penguins table', exact: true });
    await counted(reopened, 'Penguins', '2');
    await again.getByText('3 rows', { exact: true }).waitFor();
    await expect
      .poll(() => tableRows(again))
      .toEqual([
        ['P14', 'Gentoo', '4300'],
        ['P11', 'Gentoo', '4000'],
        ['P8', 'Gentoo', '3700'],
      ]);
    expect(await again.getByRole('checkbox', { name: 'Select sample P11' }).isChecked()).toBe(true);
    expect(await again.getByRole('checkbox', { name: 'Select sample P14' }).isChecked()).toBe(false);

    // The reader hides species: the table shows sample and mass; the selection's chip removed, all 30 count again.
    await again.getByRole('button', { name: 'Columns of Penguins table' }).click();
    await reopened
      .getByRole('dialog', { name: 'Columns of Penguins table' })
      .getByRole('checkbox', { name: 'species' })
      .click();
    await expect
      .poll(() => tableRows(again))
      .toEqual([
        ['P14', '4300'],
        ['P11', '4000'],
        ['P8', '3700'],
      ]);
    await reopened.keyboard.press('Escape');
    await reopened.getByRole('button', { name: 'Remove filter sample = P8 or P11' }).click();
    await counted(reopened, 'Penguins', '30');
    await context.close();
  }, 180_000);
});
