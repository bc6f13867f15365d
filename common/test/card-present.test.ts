import { describe, expect, it } from 'vitest';
import { cardLabel } from '../src/card-label.js';
import type { CardComponent } from '../src/dashboard-components.js';
import { cardComponentSchema } from '../src/dashboard-components.js';
import {
  cardFormatOf,
  comparisonView,
  formatCardNumber,
  gaugeView,
  sparklinePath,
  thresholdColor,
} from '../src/format/card-present.js';
import { scaleStep, scaleSteps } from '../src/table-scales.js';

const card = (fields: Partial<CardComponent>): CardComponent => ({
  component_id: 'c',
  type: 'card',
  data_collection_id: 'd',
  agg: 'mean',
  column: 'mass',
  ...fields,
});

describe("a card's presentation (web app and exported page alike)", () => {
  it('writes the number as its format says', () => {
    expect(formatCardNumber('mean', 0.1234, { style: 'percent' })).toBe('12.3%');
    expect(formatCardNumber('mean', 0.1234, { style: 'percent', decimals: 0 })).toBe('12%');
    expect(formatCardNumber('sum', 12_345_678, { style: 'si' })).toBe('12.3M');
    expect(formatCardNumber('sum', 1234, { style: 'si', decimals: 2 })).toBe('1.23k');
    expect(formatCardNumber('mean', 1234.5678, { decimals: 2, unit: 'g' })).toBe('1,234.57 g');
    expect(formatCardNumber('mean', -0.004, { decimals: 2 })).toBe('0.00');
    expect(formatCardNumber('mean', 42, { unit: '%' })).toBe('42%');
    // Without a format, as cards always wrote it; text and nulls as they are.
    expect(formatCardNumber('mean', 4201.87, undefined)).toBe('4,202');
    expect(formatCardNumber('count', '1234567', undefined)).toBe('1,234,567');
    expect(formatCardNumber('mode', 'Adelie', { decimals: 2 })).toBe('Adelie');
    expect(formatCardNumber('mean', null, { unit: 'g' })).toBe('—');
  });

  it('takes the unit of the column name unless the card has its own format', () => {
    expect(cardFormatOf(card({ title: 'Mass', column: 'body_mass_g' }))).toEqual({ unit: 'g' });
    expect(cardFormatOf(card({ title: 'Mass', column: 'body_mass_g', format: { decimals: 0 } }))).toEqual({
      decimals: 0,
    });
    expect(cardFormatOf(card({ title: 'Spread', agg: 'variance', column: 'body_mass_g' }))).toBeUndefined();
  });

  it('colours by the first threshold that holds', () => {
    const rules = [
      { op: '<', value: 0.9, color: 'red' },
      { op: '<', value: 0.95, color: 'orange' },
      { op: '>=', value: 0.95, color: 'green' },
    ] as const;
    expect(thresholdColor([...rules], 0.5)).toBe('red');
    expect(thresholdColor([...rules], 0.92)).toBe('orange');
    expect(thresholdColor([...rules], '0.95')).toBe('green');
    expect(thresholdColor([...rules], null)).toBeNull();
    expect(thresholdColor(undefined, 1)).toBeNull();
  });

  it('shows a change as an arrow, a percentage and whether it is good news', () => {
    const previous = { against: 'previous_version' } as const;
    expect(comparisonView('count', previous, { reference: 100, version: 3, change: 20, change_pct: 20 })).toEqual({
      arrow: '▲',
      change: '+20.0%',
      tone: 'good',
      against: 'vs version 3',
    });
    const lower = { against: 'reference', value: 0, label: 'none', better: 'lower' } as const;
    expect(comparisonView('mean', lower, { reference: 0, change: -2.5, change_pct: null })).toEqual({
      arrow: '▼',
      change: '-2.5',
      tone: 'good',
      against: 'vs none',
    });
    expect(
      comparisonView('count', previous, { reference: null, version: null, change: null, change_pct: null }),
    ).toBeNull();
  });

  it('draws sparklines and gauges in their boxes', () => {
    expect(sparklinePath([{ value: 1 }, { value: 3 }, { value: 2 }], 100, 20)).toBe('M0,20L50,0L100,10');
    expect(sparklinePath([{ value: 1 }, { value: null }, { value: 2 }, { value: 2 }], 90, 10)).toBe('M0,10M60,0L90,0');
    expect(sparklinePath([{ value: 5 }], 100, 20)).toBeNull();
    const half = gaugeView(card({ gauge: { min: 0, max: 10 } }), { value: 5, unfiltered_value: 99 });
    expect(half).toMatchObject({ fraction: 0.5, fill: 'M5,50 A45,45 0 0 1 50,5' });
    // Without a max, the whole table's number is the gauge's end.
    expect(gaugeView(card({ gauge: {} }), { value: 30, unfiltered_value: 120 })?.fraction).toBe(0.25);
    expect(gaugeView(card({ gauge: {} }), { value: 300, unfiltered_value: 120 })?.fraction).toBe(1);
    expect(gaugeView(card({}), { value: 1, unfiltered_value: 2 })).toBeNull();
  });

  it('says what the number is', () => {
    expect(cardLabel(card({ agg: 'percentile', p: 90 }))).toBe('90th percentile of mass');
    expect(cardLabel(card({ agg: 'percentile', p: 2.5 }))).toBe('2.5th percentile of mass');
    expect(cardLabel(card({ agg: 'percentile', p: 22 }))).toBe('22nd percentile of mass');
    expect(cardLabel(card({ agg: 'percentile', p: 11 }))).toBe('11th percentile of mass');
    expect(cardLabel(card({ agg: 'last', column: 'sample', order_by: 'day' }))).toBe('last sample by day');
    expect(cardLabel(card({ agg: 'std' }))).toBe('std. dev. of mass');
  });

  it('checks which aggregate needs which field', () => {
    const issues = (fields: Partial<CardComponent>) =>
      cardComponentSchema.safeParse(card(fields)).error?.issues.map((issue) => issue.path.join('.')) ?? [];
    expect(issues({ agg: 'percentile' })).toEqual(['p']);
    expect(issues({ agg: 'percentile', p: 50 })).toEqual([]);
    expect(issues({ agg: 'first' })).toEqual(['order_by']);
    expect(issues({ agg: 'count', column: undefined, p: 5 })).toEqual(['p']);
    expect(issues({ agg: 'sum', column: undefined })).toEqual(['column']);
    expect(issues({ gauge: { min: 10, max: 1 } })).toEqual(['gauge']);
  });
});

describe('colour scales of table cells', () => {
  it('places a value in one of 9 steps of its range, and reverses on demand', () => {
    expect(scaleStep(3000, [3000, 4190])).toBe(0);
    expect(scaleStep('4190', [3000, 4190])).toBe(8);
    expect(scaleStep(3595, [3000, 4190])).toBe(4);
    expect(scaleStep(5, [5, 5])).toBe(4);
    expect(scaleStep(null, [0, 1])).toBeNull();
    expect(scaleStep('NaN', [0, 1])).toBeNull();
    expect(scaleStep(1, undefined)).toBeNull();
    const blues = scaleSteps({ scheme: 'blues' });
    expect(blues).toHaveLength(9);
    expect(scaleSteps({ scheme: 'blues', reverse: true })[0]).toEqual(blues[8]);
    // Dark steps carry white text, light ones black.
    expect(blues[0]?.color).toBe('#000000');
    expect(blues[8]?.color).toBe('#ffffff');
  });
});
