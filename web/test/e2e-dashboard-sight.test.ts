import { expect, it } from 'vitest';
import { describeBrowser, openPage } from '../../test/support/browser.js';
import {
  counted,
  createDashboard,
  drawn,
  figure,
  penguins,
  projectWithTable,
  renderedFigure,
  speciesSelect,
  useBrowserSuite,
} from './support/e2e-dashboards.js';

/**
 * Components out of sight (docs/dashboards.md "In the web app"): the page opens whole; after a
 * filter change it asks for the components in sight, and for each other one once scrolled to,
 * whose chart then draws. 30 penguins, 10 of each species; a 1280 × 800 window.
 */
describeBrowser('components out of sight in a real browser', () => {
  const suite = useBrowserSuite();

  it('opens whole, asks for what is in sight after a change, and for the rest once scrolled to', async () => {
    const project = await projectWithTable(suite, 'Long survey', penguins(30));
    const dc = project.collectionId;
    const id = await createDashboard(
      suite,
      project.projectId,
      'A long dashboard',
      [
        speciesSelect(dc),
        { component_id: 'near-count', type: 'card', title: 'Penguins here', data_collection_id: dc, agg: 'count' },
        figure('near', 'Masses here', dc, { chart: 'histogram', x: 'mass' }),
        { component_id: 'far-count', type: 'card', title: 'Penguins below', data_collection_id: dc, agg: 'count' },
        figure('far', 'Masses below', dc, { chart: 'histogram', x: 'mass' }),
      ],
      [
        { component_id: 'species', x: 0, y: 0, w: 4, h: 2 },
        { component_id: 'near-count', x: 4, y: 0, w: 4, h: 2 },
        { component_id: 'near', x: 0, y: 2, w: 12, h: 6 },
        // 40 rows of 60 px down: well beyond the window and the 200 px looked ahead.
        { component_id: 'far-count', x: 0, y: 40, w: 4, h: 2 },
        { component_id: 'far', x: 0, y: 42, w: 12, h: 6 },
      ],
    );
    const { context, page } = await openPage(suite.browser, suite.server, `/dashboards/${id}`);
    const asked: string[][] = [];
    page.on('request', (request) => {
      if (request.method() !== 'POST' || !request.url().endsWith(`/dashboards/${id}/data`)) return;
      const body = JSON.parse(request.postData() ?? '{}') as { components?: string[] };
      asked.push(body.components ?? ['(all)']);
    });

    // The page opens whole: the card below has its count, and its chart waits to be scrolled to.
    await counted(page, 'Penguins below', '30');
    await counted(page, 'Penguins here', '30');
    await drawn(page);
    const far = page.getByRole('region', { name: 'Masses below', exact: true });
    expect(await far.locator('[data-chart-state]').getAttribute('data-chart-state')).toBe('waiting');

    // A filter change asks for the components in sight alone; those below keep what they had.
    asked.length = 0;
    await page.getByRole('region', { name: 'Species', exact: true }).locator('input:not([type=hidden])').click();
    await page.getByRole('option', { name: 'Gentoo' }).click();
    await counted(page, 'Penguins here', '10');
    await drawn(page);
    expect(asked.flat().sort()).toEqual(['near', 'near-count', 'species']);
    const farCount = page.getByRole('region', { name: 'Penguins below', exact: true });
    expect(await farCount.getAttribute('aria-busy')).toBe('true');
    expect(await farCount.locator('[data-card-value]').textContent()).toBe('30');

    // Scrolled to, they are asked for with the filter, and drawn.
    asked.length = 0;
    await far.scrollIntoViewIfNeeded();
    await counted(page, 'Penguins below', '10');
    await renderedFigure(page, 'Masses below');
    expect(await far.getAttribute('data-total-rows')).toBe('10');
    expect(asked.flat().sort()).toEqual(['far', 'far-count']);
    await drawn(page);
    await context.close();
  });
});
