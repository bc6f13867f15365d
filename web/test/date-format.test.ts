import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatDate, formatDateSeconds } from '../src/format/date.js';

describe('formatDate', () => {
  const zone = process.env.TZ;
  beforeEach(() => {
    // Node reads TZ again when it is assigned: the same instant reads differently per zone.
    process.env.TZ = 'America/New_York';
  });
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it('writes the instant in the local time zone, ISO 8601 style, to the minute', () => {
    expect(formatDate('2026-11-22T14:05:59Z')).toBe('2026-11-22 09:05');
    expect(formatDate('2026-07-04T03:07:00.123+00:00')).toBe('2026-07-03 23:07');
  });

  it('pads months, days, hours and minutes to two digits', () => {
    process.env.TZ = 'UTC';
    expect(formatDate('2027-01-02T03:04:00Z')).toBe('2027-01-02 03:04');
  });

  it('gives back what is not a timestamp unchanged', () => {
    expect(formatDate('not a date')).toBe('not a date');
    expect(formatDateSeconds('not a date')).toBe('not a date');
  });

  it('writes seconds for table versions, padded', () => {
    expect(formatDateSeconds('2026-11-22T14:05:09.999Z')).toBe('2026-11-22 09:05:09');
  });
});
