import { describe, expect, it } from 'vitest';
import { DATA_TABLE_COLUMNS, type JsonObject, LINE_SAMPLES, plotData } from '../../src/multiqc/plots.js';
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

describe('MultiQC plots of a type we draw no chart for', () => {
  const input: JsonObject = {
    pconfig: { title: 'A sankey of reads' },
    data: [
      {
        S1: { flows: { kept: 10, dropped: 2.5 }, note: 'ok', steps: [1, 2] },
        S2: { flows: { kept: 7 }, missing: null },
      },
      { S1: { other: 1 } },
    ],
  };

  it('shows every scalar of their data as a table, a row per entry and a column per path', () => {
    expect(plotData('sankey diagram', input, 'reads_sankey', all)).toEqual({
      plot_type: 'table',
      title: 'A sankey of reads',
      samples: ['S1', 'S2'],
      hidden_samples: 0,
      x_label: null,
      y_label: null,
      columns: ['flows.kept', 'flows.dropped', 'note', 'steps.0', 'steps.1', 'missing'].map((key) => ({
        key,
        title: key,
        description: null,
        suffix: null,
        scale: null,
        min: null,
        max: null,
      })),
      rows: [
        { sample: 'S1', values: { 'flows.kept': 10, 'flows.dropped': 2.5, note: 'ok', 'steps.0': 1, 'steps.1': 2 } },
        { sample: 'S2', values: { 'flows.kept': 7, missing: null } },
      ],
    });
  });

  it('picks the dataset asked for and narrows the rows to the samples shown', () => {
    const data = plotData('sankey diagram', input, 'reads_sankey', { ...all, shown: (sample) => sample === 'S2' });
    expect(data).toMatchObject({ samples: ['S2'], hidden_samples: 1 });
    expect(plotData('sankey diagram', input, 'reads_sankey', { ...all, dataset: 1 })).toMatchObject({
      rows: [{ sample: 'S1', values: { other: 1 } }],
    });
  });

  it('keeps a bounded number of columns however wide the data', () => {
    const wide = { data: { S1: { values: Array.from({ length: DATA_TABLE_COLUMNS + 50 }, (_, index) => index) } } };
    const data = plotData('sankey diagram', wide, 'wide', all);
    if (data.plot_type !== 'table') throw new Error('a table');
    expect(data.columns).toHaveLength(DATA_TABLE_COLUMNS);
    expect(Object.keys(data.rows[0]?.values ?? {})).toHaveLength(DATA_TABLE_COLUMNS);
  });
});
