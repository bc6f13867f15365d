import { describe, expect, it } from 'vitest';
import { formatCardValue, formatCount, formatMeasure } from '../src/index.js';

describe('the number formatter shared by the web app and the export page', () => {
  it('groups counts and rounds measures: whole from 1,000 up, 4 significant digits below', () => {
    expect(formatCount(10_000_000)).toBe('10,000,000');
    expect(formatCount(-1234)).toBe('-1,234');
    expect(formatCount(null)).toBe('—');
    expect(formatMeasure(4201.875)).toBe('4,202');
    expect(formatMeasure(43.9212)).toBe('43.92');
    expect(formatMeasure(0.123456)).toBe('0.1235');
    expect(formatMeasure(0.00001234)).toBe('1.234e-5');
    expect(formatMeasure(Number.NaN)).toBe('NaN');
  });

  it('writes a card value by its aggregate: counts whole, measures rounded, text as it is', () => {
    expect(formatCardValue('count', 1234)).toBe('1,234');
    expect(formatCardValue('mean', 1234.5678)).toBe('1,235');
    expect(formatCardValue('mean', '0.987654')).toBe('0.9877');
    expect(formatCardValue('max', 'Adelie')).toBe('Adelie');
    expect(formatCardValue('min', null)).toBe('—');
  });
});
