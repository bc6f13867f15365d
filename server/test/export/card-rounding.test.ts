import { type CardComponent, formatCardValue } from '@service/common';
import { describe, expect, it } from 'vitest';
import { cardHtml, tableHtml } from '../../src/export/render.js';

const card = (agg: CardComponent['agg']): CardComponent => ({
  component_id: 'c',
  type: 'card',
  data_collection_id: 'penguins',
  agg,
  ...(agg === 'count' ? {} : { column: 'mass' }),
});

describe('an exported card', () => {
  it('rounds its numbers as the dashboard does, with the formatter the web app uses', () => {
    const html = cardHtml(
      'Mean mass',
      { value: 4201.875, unfiltered_value: 0.123456, label: 'mean mass' },
      card('mean'),
    );
    // The export page's own formatter wrote these "4,201.88" and "0.123".
    expect(formatCardValue('mean', 4201.875)).toBe('4,202');
    expect(formatCardValue('mean', 0.123456)).toBe('0.1235');
    expect(html).toContain('<div class="value">4,202</div>');
    expect(html).toContain('· all 0.1235');
    expect(html).not.toContain('4,201.88');
  });

  it('writes counts whole and grouped, and text and dates as the card does', () => {
    expect(cardHtml(null, { value: 1234567, unfiltered_value: null, label: 'rows' }, card('count'))).toContain(
      '1,234,567',
    );
    expect(cardHtml(null, { value: '5000.5', unfiltered_value: null, label: 'sum' }, card('sum'))).toContain(
      formatCardValue('sum', '5000.5'),
    );
    expect(cardHtml(null, { value: 'Adelie', unfiltered_value: null, label: 'min' }, card('min'))).toContain(
      '>Adelie<',
    );
  });

  it("writes table cells as the web app's table does: ∅ for null, numbers as they are", () => {
    const html = tableHtml(null, {
      columns: [
        { name: 'mass', type: 'DOUBLE', nullable: false, description: null },
        { name: 'species', type: 'VARCHAR', nullable: true, description: null },
      ],
      rows: [{ mass: 4201.875, species: null }],
    });
    expect(html).toContain('<td class="number">4201.875</td>');
    expect(html).toContain('<td>∅</td>');
  });
});
