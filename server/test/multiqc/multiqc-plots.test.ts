import { describe, expect, it } from 'vitest';
import { LINE_SAMPLES, plotData } from '../../src/multiqc/plots.js';
import { sampleFilter } from '../../src/multiqc/service.js';

/** A line plot input as MultiQC writes it: `count` samples S1…Sn, sample i at y = i for x = 1, 2. */
function lines(count: number) {
  const series = Array.from({ length: count }, (_, index) => ({
    name: `S${index + 1}`,
    pairs: [
      [1, index + 1],
      [2, index + 1],
    ],
  }));
  return { pconfig: { title: 'Lines', xlab: 'x', ylab: 'y' }, data: [series] };
}

const all = { dataset: 0, percentages: false, shown: () => true };

describe('MultiQC line plots of many samples', () => {
  it('draws a line per sample up to the budget', () => {
    const data = plotData('x/y line', lines(LINE_SAMPLES), 'p', all);
    expect(data).toMatchObject({ plot_type: 'line', summarized: null });
    if (data.plot_type !== 'line') throw new Error('a line plot');
    expect(data.series).toHaveLength(LINE_SAMPLES);
  });

  it('summarizes more samples per x as range, quartiles and median, naming every sample', () => {
    // 201 samples: y = 1…201, so the quartiles are 51, 101 and 151 exactly.
    const data = plotData('x/y line', lines(201), 'p', all);
    if (data.plot_type !== 'line') throw new Error('a line plot');
    expect(data.summarized).toBe(201);
    expect(data.samples).toHaveLength(201);
    expect(data.series.map((entry) => [entry.name, entry.points])).toEqual([
      [
        'min',
        [
          [1, 1],
          [2, 1],
        ],
      ],
      [
        '25th percentile',
        [
          [1, 51],
          [2, 51],
        ],
      ],
      [
        'median',
        [
          [1, 101],
          [2, 101],
        ],
      ],
      [
        '75th percentile',
        [
          [1, 151],
          [2, 151],
        ],
      ],
      [
        'max',
        [
          [1, 201],
          [2, 201],
        ],
      ],
    ]);
  });

  it('draws each sample again once the filters leave the budget or fewer', () => {
    const shown = sampleFilter(new Set(['S1', 'S2', 'S3']));
    const data = plotData('x/y line', lines(201), 'p', { ...all, shown });
    expect(data).toMatchObject({ summarized: null, samples: ['S1', 'S2', 'S3'], hidden_samples: 198 });
  });
});

describe('MultiQC sample filters', () => {
  it('takes a sample’s reads and lanes with it, and nothing that merely starts alike', () => {
    const shown = sampleFilter(new Set(['SRR1']));
    expect(['SRR1', 'SRR1_1', 'SRR1_R2', 'SRR1.1', 'SRR1-L001'].filter(shown)).toHaveLength(5);
    expect(['SRR10', 'SRR12_1', 'XSRR1'].filter(shown)).toEqual([]);
  });
});
