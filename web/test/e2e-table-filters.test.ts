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

/** The address bar's `?tables=`, parsed. */
function tablesOf(url: string): Record<string, { page?: number; columns?: string[] }> {
  return JSON.parse(new URL(url).searchParams.get('tables') ?? '{}');
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

  it('keeps the page in the address bar, selects rows by a key not shown, and downloads the columns shown', async () => {
    const project = await projectWithTable(suite, 'Paged table', penguins(30));
    const dc = project.collectionId;
    const table = (id: string, title: string, columns: string[]) => ({
      component_id: id,
      type: 'table',
      title,
      data_collection_id: dc,
      columns,
      page_size: 5,
      select_by: 'sample',
    });
    const id = await createDashboard(
      suite,
      project.projectId,
      'Table pages',
      [
        table('paged', 'Paged penguins', ['sample', 'species', 'mass']),
        table('masses', 'Masses', ['mass']),
        { component_id: 'count', type: 'card', title: 'Penguins', data_collection_id: dc, agg: 'count' },
      ],
      [
        { component_id: 'paged', x: 0, y: 0, w: 6, h: 8 },
        { component_id: 'masses', x: 6, y: 0, w: 3, h: 8 },
        { component_id: 'count', x: 9, y: 0, w: 3, h: 2 },
      ],
    );
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${id}`);
    const paged = page.getByRole('region', { name: 'Paged penguins', exact: true });
    const masses = page.getByRole('region', { name: 'Masses', exact: true });
    await counted(page, 'Penguins', '30');

    // Masses shows no sample, yet its rows are selected by it.
    await masses.getByRole('checkbox', { name: 'Select sample P2' }).click();
    await masses.getByRole('checkbox', { name: 'Select sample P4' }).click();
    expect(await filterOf(page, 'masses')).toEqual(['P2', 'P4']);
    await counted(page, 'Penguins', '2');
    await page.getByRole('button', { name: 'Remove filter sample = P2 or P4' }).click();
    await counted(page, 'Penguins', '30');

    // Page 3 of the paged table: P11…P15, in the address bar.
    await paged.getByRole('button', { name: '3', exact: true }).click();
    await expect.poll(() => tablesOf(page.url())).toEqual({ paged: { page: 3 } });
    const third = [
      ['P11', 'Gentoo', '4000'],
      ['P12', 'Chinstrap', '4100'],
      ['P13', 'Adelie', '4200'],
      ['P14', 'Gentoo', '4300'],
      ['P15', 'Chinstrap', '4400'],
    ];
    await expect.poll(() => tableRows(paged)).toEqual(third);

    // The reader hides sample, the key: the rows keep their boxes; the table keeps its page.
    await paged.getByRole('button', { name: 'Columns of Paged penguins' }).click();
    const menu = page.getByRole('dialog', { name: 'Columns of Paged penguins' });
    await menu.getByRole('checkbox', { name: 'sample' }).click();
    await menu.getByRole('button', { name: 'Move mass up' }).click();
    await page.keyboard.press('Escape');
    const shown = third.map(([, species, mass]) => [mass, species]);
    await expect.poll(() => tableRows(paged)).toEqual(shown);
    await paged.getByRole('checkbox', { name: 'Select sample P12' }).click();
    expect(await filterOf(page, 'paged')).toEqual(['P12']);
    await counted(page, 'Penguins', '1');
    expect(tablesOf(page.url())).toEqual({ paged: { columns: ['mass', 'species'], page: 3 } });

    // The CSV has the columns shown, in their order, and every row (its own selection narrows others only).
    await page.getByRole('button', { name: 'Menu of Paged penguins' }).click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('menuitem', { name: 'Download CSV' }).click(),
    ]);
    const lines = readFileSync(await download.path(), 'utf8')
      .trim()
      .split(/\r?\n/);
    expect(lines.slice(0, 3)).toEqual(['mass,species', '3000,Adelie', '3100,Gentoo']);
    expect(lines).toHaveLength(31);

    // So does the spec it exports (its first page).
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.server.url });
    await page.getByRole('button', { name: 'Menu of Paged penguins' }).click();
    await page.getByRole('menuitem', { name: 'Copy spec JSON' }).click();
    await page.getByText('Spec JSON copied').waitFor();
    const copied = JSON.parse((await page.evaluate('navigator.clipboard.readText()')) as string) as {
      spec: { columns: { name: string }[]; rows: unknown[] };
    };
    expect(copied.spec.columns.map((column) => column.name)).toEqual(['mass', 'species']);
    expect(copied.spec.rows[1]).toEqual({ mass: 3100, species: 'Gentoo' });

    // The link reopens page 3, its box checked; a header filter starts again at the first page.
    const reopened = await context.newPage();
    await reopened.goto(page.url());
    const again = reopened.getByRole('region', { name: 'Paged penguins', exact: true });
    await counted(reopened, 'Penguins', '1');
    await expect.poll(() => tableRows(again)).toEqual(shown);
    expect(await again.getByRole('checkbox', { name: 'Select sample P12' }).isChecked()).toBe(true);
    expect(await again.getByRole('button', { name: '3', exact: true }).getAttribute('data-active')).toBe('true');
    const species = await openFilter(reopened, again, 'species');
    await species.getByRole('checkbox', { name: 'Gentoo' }).check();
    await species.getByRole('button', { name: 'Apply' }).click();
    await again.getByText('10 rows', { exact: true }).waitFor();
    await expect.poll(() => tablesOf(reopened.url()).paged?.page).toBeUndefined();
    await expect
      .poll(() => tableRows(again))
      .toEqual([
        ['3100', 'Gentoo'],
        ['3400', 'Gentoo'],
        ['3700', 'Gentoo'],
        ['4000', 'Gentoo'],
        ['4300', 'Gentoo'],
      ]);
    await context.close();
  }, 180_000);
});
