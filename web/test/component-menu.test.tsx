// @vitest-environment jsdom
import type { DashboardComponent } from '@service/common';
import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ComponentMenu } from '../src/dashboard/export/ComponentMenu.js';
import { renderWith } from './support/render-with-api.js';

const dc = 'dc1';
const COMPONENTS: DashboardComponent[] = [
  { component_id: 'bars', type: 'figure', title: 'By species', data_collection_id: dc, chart: 'bar', x: 'species' },
  { component_id: 'count', type: 'card', title: 'Counted', data_collection_id: dc, agg: 'count' },
  { component_id: 'rows', type: 'table', title: 'Rows', data_collection_id: dc, page_size: 25, sort: [] },
  { component_id: 'intro', type: 'text', title: 'Intro', markdown: 'Hello' },
  {
    component_id: 'species',
    type: 'interactive',
    title: 'Species',
    data_collection_id: dc,
    widget: 'select',
    column: 'species',
  },
];
const FIGURE_DATA = {
  columns: [
    { name: 'x', type: 'string', column: 'species' },
    { name: 'y', type: 'bigint', column: null },
  ],
  rows: [['Adelie', 10]],
  sampled: false,
  total_rows: 10,
};

/** The menu items a component's menu offers (none when it has no menu). */
async function itemsOf(componentId: string, canEmbed: boolean, data?: unknown): Promise<string[]> {
  const component = COMPONENTS.find((candidate) => candidate.component_id === componentId);
  if (component === undefined) throw new Error(componentId);
  const { unmount } = renderWith(
    {},
    <ComponentMenu
      dashboardId="d1"
      component={component}
      data={data as never}
      view={() => ({ filters: [], asOf: null })}
      components={COMPONENTS}
      canEmbed={canEmbed}
    />,
  );
  const button = screen.queryByRole('button', { name: /^Menu of / });
  if (button === null) {
    unmount();
    return [];
  }
  fireEvent.click(button);
  const items = (await screen.findAllByRole('menuitem')).map(
    (item) => `${item.textContent}${item.hasAttribute('data-disabled') ? ' (disabled)' : ''}`,
  );
  unmount();
  return items;
}

describe("a dashboard component's menu", () => {
  it('offers a figure as PNG, SVG, CSV and spec, and Embed to those who may embed', async () => {
    expect(await itemsOf('bars', true, FIGURE_DATA)).toEqual([
      'Download PNG',
      'Download SVG',
      'Download CSV',
      'Copy spec JSON',
      'Embed…',
    ]);
    expect(await itemsOf('bars', false, FIGURE_DATA)).toEqual([
      'Download PNG',
      'Download SVG',
      'Download CSV',
      'Copy spec JSON',
    ]);
  });

  it('waits for a figure or card to have data before offering its images and CSV', async () => {
    expect(await itemsOf('bars', false)).toEqual([
      'Download PNG (disabled)',
      'Download SVG (disabled)',
      'Download CSV (disabled)',
      'Copy spec JSON',
    ]);
    // A card also offers its alerts to whoever is signed in (here the single-user admin).
    expect(await itemsOf('count', false)).toEqual(['Download CSV (disabled)', 'Copy spec JSON', 'Alert me…']);
    expect(await itemsOf('count', false, { value: 3, unfiltered_value: 5 })).toEqual([
      'Download CSV',
      'Copy spec JSON',
      'Alert me…',
    ]);
  });

  it("offers a table's CSV at once (from the server), text only to embed, and filter widgets nothing", async () => {
    expect(await itemsOf('rows', false)).toEqual(['Download CSV', 'Copy spec JSON']);
    expect(await itemsOf('intro', true)).toEqual(['Embed…']);
    expect(await itemsOf('intro', false)).toEqual([]);
    expect(await itemsOf('species', true)).toEqual([]);
  });
});
