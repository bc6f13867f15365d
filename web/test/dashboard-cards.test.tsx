// @vitest-environment jsdom
import { MantineProvider } from '@mantine/core';
import { type CardComponent, cardUnit, formatCardValue, formatMeasure } from '@service/common';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CardView } from '../src/dashboard/CardView.js';
import { installMantineShims } from './support/jsdom.js';

beforeAll(installMantineShims);
afterEach(cleanup);

const card = (fields: Partial<CardComponent>): CardComponent => ({
  component_id: 'c',
  type: 'card',
  data_collection_id: 'penguins',
  agg: 'mean',
  column: 'body_mass_g',
  ...fields,
});

describe('card components', () => {
  it('shows the aggregate of the column with the whole table’s beside it', () => {
    render(
      <MantineProvider>
        <CardView component={card({})} data={{ value: 4201.754385964912, unfiltered_value: 4050.2 }} />
      </MantineProvider>,
    );
    const group = screen.getByRole('group', { name: 'mean body_mass_g: 4,202, all 4,050' });
    expect(group.textContent).toBe('mean body_mass_g4,202· all 4,050');
  });

  it('says what its number is (the title is the cell’s heading), by the column label it is given; counts are whole', () => {
    render(
      <MantineProvider>
        <CardView
          component={card({ title: 'Penguins', agg: 'count', column: undefined })}
          data={{ value: 12000000, unfiltered_value: 342 }}
        />
        <CardView
          component={card({ agg: 'max' })}
          columnLabel="body mass (g)"
          data={{ value: 6300, unfiltered_value: null }}
        />
      </MantineProvider>,
    );
    expect(screen.getByRole('group', { name: 'rows: 12,000,000, all 342' })).toBeTruthy();
    expect(screen.getByRole('group', { name: 'max body mass (g): 6,300, all —' })).toBeTruthy();
  });

  it('follows the values with the unit the column’s name ends with, when the title does not say it', () => {
    render(
      <MantineProvider>
        <CardView component={card({ title: 'Mean mass' })} data={{ value: 4201.75, unfiltered_value: 4050 }} />
      </MantineProvider>,
    );
    expect(screen.getByRole('group', { name: 'mean body_mass_g: 4,202 g, all 4,050 g' })).toBeTruthy();
    expect(cardUnit(card({ title: 'Mass (g)' }))).toBeNull();
    expect(cardUnit(card({}))).toBeNull();
    expect(cardUnit(card({ title: 'Distinct masses', agg: 'count_distinct' }))).toBeNull();
    expect(cardUnit(card({ title: 'Share', column: 'tagged_pct' }))).toBe('%');
    expect(cardUnit(card({ title: 'Mean', column: 'island' }))).toBeNull();
    expect(cardUnit(card({ title: 'Mean', column: 'x_constructor' }))).toBeNull();
  });

  it('formats measures, distinct counts, decimals sent as text, and dates', () => {
    expect(formatMeasure(43.9212)).toBe('43.92');
    expect(formatMeasure(0.123456)).toBe('0.1235');
    expect(formatMeasure(-1234.5)).toBe('-1,235');
    expect(formatMeasure(0)).toBe('0');
    expect(formatMeasure(null)).toBe('—');
    expect(formatCardValue('count_distinct', 1234)).toBe('1,234');
    expect(formatCardValue('sum', '123456.789')).toBe('123,457');
    expect(formatCardValue('min', '2007-11-10')).toBe('2007-11-10');
    expect(formatCardValue('max', true)).toBe('true');
  });
});
