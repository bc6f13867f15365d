import { expect, it } from 'vitest';
import { describeBrowser, openPage, saveScreenshot } from '../../test/support/browser.js';
import {
  counted,
  createDashboard,
  drawn,
  expectAccessibleLightAndDark,
  figure,
  penguins,
  projectWithTable,
  renderedFigure,
  useBrowserSuite,
} from './support/e2e-dashboards.js';

/**
 * Sections in the browser (docs/dashboards.md "Sections"): a reader folds and unfolds them, the rows
 * below move up, a folded section's components are not computed, and the choice outlives a reload.
 * 30 penguins: 10 of each species.
 */
describeBrowser('dashboard sections in a real browser', () => {
  const suite = useBrowserSuite();

  it('folds and unfolds, asks no data for what is folded, and remembers the choice', async () => {
    const project = await projectWithTable(suite, 'Sectioned survey', penguins(30));
    const dc = project.collectionId;
    const id = await createDashboard(
      suite,
      project.projectId,
      'Sections',
      [
        { component_id: 'totals', type: 'section', title: 'Totals', description: 'How many were weighed' },
        { component_id: 'count', type: 'card', title: 'Penguins', data_collection_id: dc, agg: 'count' },
        { component_id: 'species-section', type: 'section', title: 'Species', collapsed: true },
        figure('by-species', 'By species', dc, { chart: 'bar', x: 'species' }),
        { component_id: 'end', type: 'section', title: 'Notes' },
        { component_id: 'note', type: 'text', markdown: 'Weighed in **2026**.' },
      ],
      [
        { component_id: 'totals', x: 0, y: 0, w: 12, h: 1 },
        { component_id: 'count', x: 0, y: 1, w: 4, h: 2 },
        { component_id: 'species-section', x: 0, y: 3, w: 12, h: 1 },
        { component_id: 'by-species', x: 0, y: 4, w: 8, h: 5 },
        { component_id: 'end', x: 0, y: 9, w: 12, h: 1 },
        { component_id: 'note', x: 0, y: 10, w: 6, h: 2 },
      ],
    );
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${id}`);
    const asked: string[][] = [];
    page.on('request', (request) => {
      if (request.method() !== 'POST' || !request.url().endsWith(`/dashboards/${id}/data`)) return;
      const body = JSON.parse(request.postData() ?? '{}') as { components?: string[] };
      asked.push(body.components ?? ['(all)']);
    });
    await counted(page, 'Penguins', '30');
    const species = page.getByRole('button', { name: 'Species', exact: true });
    // Folded by its author: its chart is not drawn, the rows below moved up, and the header says what it holds.
    await expect.poll(() => species.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByRole('region', { name: 'By species' }).count()).toBe(0);
    await expect.poll(() => page.getByText('1 component').count()).toBe(1);
    // The grid row (1-based) the Notes header is placed on (styles.css `.dashboard-cell`).
    const notesRow = async () =>
      /--dashboard-y:\s*(\d+)/.exec((await page.locator('[data-section-id="end"]').getAttribute('style')) ?? '')?.[1];
    // Species' band (rows 5–9 of the grid, 1-based) is folded: Notes moves from row 10 to row 5.
    expect(await notesRow()).toBe('5');
    await drawn(page);
    await saveScreenshot(page, 'dashboard-sections');
    await expectAccessibleLightAndDark(page, 'sections');

    // Unfolded: the chart is asked for and drawn (with the count, both in sight); Notes goes back to its row.
    const before = asked.length;
    await species.click();
    const chart = await renderedFigure(page, 'By species');
    expect(await chart.isVisible()).toBe(true);
    expect(await notesRow()).toBe('10');
    expect(asked.slice(before).flat().sort()).toEqual(['by-species', 'count']);

    // Totals folded by the reader: the count is no longer asked for, and after a reload it stays folded.
    await page.getByRole('button', { name: 'Totals', exact: true }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Penguins', exact: true }).count()).toBe(0);
    await page.reload();
    await renderedFigure(page, 'By species');
    expect(await page.getByRole('button', { name: 'Totals', exact: true }).getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByRole('button', { name: 'Species', exact: true }).getAttribute('aria-expanded')).toBe('true');
    expect(await page.getByRole('region', { name: 'Penguins', exact: true }).count()).toBe(0);
    await expect.poll(() => asked.at(-1)).toEqual(['by-species']);
    await context.close();
  }, 120_000);
});
