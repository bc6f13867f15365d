import { expect, it } from 'vitest';
import { describeBrowser, openPage, saveScreenshot } from '../../test/support/browser.js';
import { uploadFile } from '../../test/support/test-server.js';
import {
  counted,
  createDashboard,
  drawn,
  expectAccessibleLightAndDark,
  penguins,
  projectWithTable,
  upsertTable,
  useBrowserSuite,
} from './support/e2e-dashboards.js';

/**
 * Cards in the browser (docs/dashboards.md "Cards"): a comparison with the table's previous
 * version, threshold colours, a sparkline and a gauge, all following the filters; and a table whose
 * masses are coloured by a scale (docs/dashboards.md "Tables"). The table is
 * 30 penguins (species in turn Adelie, Gentoo, Chinstrap; mass 3,000 g + 100 g per penguin) after
 * a first version of 24.
 */
describeBrowser('cards in a real browser', () => {
  const suite = useBrowserSuite();

  it('compares, colours and draws trends, and follows the filters', async () => {
    const { server, token } = suite;
    const project = await projectWithTable(suite, 'Card survey', penguins(24));
    expect(await uploadFile(server, token, project.collectionId, { path: 't.csv', content: penguins(30) })).toBe(201);
    await upsertTable(suite, project.collectionId);
    const dc = project.collectionId;
    const id = await createDashboard(
      suite,
      project.projectId,
      'Cards',
      [
        {
          component_id: 'species',
          type: 'interactive',
          title: 'Species',
          data_collection_id: dc,
          widget: 'select',
          column: 'species',
        },
        {
          component_id: 'count',
          type: 'card',
          title: 'Penguins',
          data_collection_id: dc,
          agg: 'count',
          comparison: { against: 'previous_version' },
          sparkline: { over: 'versions' },
          thresholds: [
            { op: '<', value: 20, color: 'orange' },
            { op: '>=', value: 20, color: 'green' },
          ],
        },
        {
          component_id: 'p90',
          type: 'card',
          title: 'Heavy end',
          data_collection_id: dc,
          agg: 'percentile',
          p: 90,
          column: 'mass',
          gauge: { min: 0, max: 10_000 },
          format: { style: 'si', unit: 'g' },
        },
        {
          component_id: 'heaviest',
          type: 'table',
          title: 'Heaviest',
          data_collection_id: dc,
          page_size: 5,
          sort: [{ column: 'mass', direction: 'desc' }],
          color_scales: [{ column: 'mass', scheme: 'viridis' }],
        },
      ],
      [
        { component_id: 'species', x: 0, y: 0, w: 4, h: 2 },
        { component_id: 'count', x: 4, y: 0, w: 4, h: 4 },
        { component_id: 'p90', x: 8, y: 0, w: 4, h: 4 },
        { component_id: 'heaviest', x: 0, y: 4, w: 12, h: 5 },
      ],
    );
    const { context, page } = await openPage(suite.browser, server, `/dashboards/${id}`);
    await counted(page, 'Penguins', '30');
    const count = page.getByRole('region', { name: 'Penguins', exact: true });
    // 30 against the first version's 24: +25%, green by its thresholds.
    await expect.poll(() => count.locator('[data-card-comparison]').textContent()).toBe('▲ +25.0%vs version 0');
    expect(await count.locator('[data-card-value]').getAttribute('data-tone')).toBe('green');
    expect(await count.locator('[data-card-sparkline] path').getAttribute('d')).toBe('M0,28L120,0');
    // Position 29 · 0.9 = 26.1 → 3,000 + 2,610 g.
    await counted(page, 'Heavy end', '5.61k g');
    expect(
      await page
        .getByRole('region', { name: 'Heavy end' })
        .locator('[data-card-gauge]')
        .getAttribute('data-card-gauge'),
    ).toBe('0.561');
    // The table's masses are coloured in the whole table's range: 5,900 g at the top step, 5,500 g at round(25/29 · 8).
    const masses = page.getByRole('table', { name: 'Heaviest' }).locator('tbody td[data-scale-step]');
    await expect
      .poll(() => masses.evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-scale-step'))))
      .toEqual(['8', '8', '7', '7', '7']);
    await drawn(page);
    await saveScreenshot(page, 'dashboard-cards');
    await expectAccessibleLightAndDark(page, 'cards');

    // Gentoo: 10 now, 8 in the first version (+25%), orange under 20.
    await page.getByRole('region', { name: 'Species', exact: true }).locator('input:not([type=hidden])').click();
    await page.getByRole('option', { name: 'Gentoo' }).click();
    await counted(page, 'Penguins', '10');
    await expect.poll(() => count.locator('[data-card-comparison]').textContent()).toBe('▲ +25.0%vs version 0');
    expect(await count.locator('[data-card-value]').getAttribute('data-tone')).toBe('orange');
    await context.close();
  });
});
