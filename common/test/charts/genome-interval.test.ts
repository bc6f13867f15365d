import { describe, expect, it } from 'vitest';
import { brushedInterval, describeGenomicInterval, intervalPositions } from '../../src/charts/genome-interval.js';
import type { FigureData } from '../../src/dashboard-data.js';

/** Three chromosomes end to end: 1 on [0, 200], 2 on [200, 1,200,200], X on [1,200,200, 1,200,210]. */
const DATA: FigureData = {
  columns: [],
  rows: [],
  sampled: false,
  total_rows: 0,
  chromosomes: [
    { name: '1', offset: 0, length: 200 },
    { name: '2', offset: 200, length: 1_200_000 },
    { name: 'X', offset: 1_200_200, length: 10 },
  ],
};

describe('a brush over a Manhattan plot', () => {
  it('reads its genome-wide ends as chromosomes and positions', () => {
    expect(brushedInterval(DATA, [{ coordRange: [150.4, 1_200_205.2] }])).toEqual(['1', 150, 'X', 6]);
    expect(brushedInterval(DATA, [{ coordRange: [1_000_000, 300] }])).toEqual(['2', 100, '2', 999_800]);
    // Beyond either end: the first chromosome's start, the last one's end.
    expect(brushedInterval(DATA, [{ coordRange: [-50, 5_000_000] }])).toEqual(['1', 0, 'X', 10]);
    expect(brushedInterval(DATA, [])).toBeNull();
    expect(brushedInterval({ ...DATA, chromosomes: [] }, [{ coordRange: [1, 2] }])).toBeNull();
  });

  it('draws an interval back at its genome-wide positions, whatever the spelling', () => {
    expect(intervalPositions(DATA, ['chr1', 150, 'x', 6])).toEqual([150, 1_200_206]);
    expect(intervalPositions(DATA, ['chr9', 1, 'X', 6])).toBeNull();
    expect(intervalPositions(DATA, [1, 2])).toBeNull();
  });

  it('says the interval as "chr2:1,200,000 – chr5:300"', () => {
    expect(describeGenomicInterval(['2', 1_200_000, '5', 300])).toBe('chr2:1,200,000 – chr5:300');
    expect(describeGenomicInterval(['chrX', 5, 'UN_GL1', 7])).toBe('chrX:5 – UN_GL1:7');
  });
});
