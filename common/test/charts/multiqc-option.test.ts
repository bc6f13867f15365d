import { describe, expect, it } from 'vitest';
import { multiqcOption, SAMPLES_IN_VIEW } from '../../src/charts/multiqc.js';
import type { MultiqcBarData, MultiqcHeatmapData } from '../../src/multiqc.js';

const names = (count: number) => Array.from({ length: count }, (_, index) => `S${index + 1}`);

function bars(count: number): MultiqcBarData {
  const samples = names(count);
  return {
    plot_type: 'bar',
    title: 'Counts',
    samples,
    hidden_samples: 0,
    x_label: null,
    y_label: 'Reads',
    series: [{ name: 'Unique', color: null, values: samples.map((_, index) => index) }],
    percentages: false,
  };
}

function heatmap(count: number): MultiqcHeatmapData {
  const samples = names(count);
  return {
    plot_type: 'heatmap',
    title: 'Status',
    samples,
    hidden_samples: 0,
    x_label: null,
    y_label: null,
    x: ['a', 'b'],
    y: samples,
    values: samples.map(() => [0, 1]),
    min: 0,
    max: 1,
    color_stops: [],
  };
}

const pager = (option: ReturnType<typeof multiqcOption>) => (option?.dataZoom ?? []) as Record<string, unknown>[];

describe('MultiQC plots of many samples', () => {
  it('draws every sample row of a plot that fits', () => {
    expect(pager(multiqcOption({}, bars(SAMPLES_IN_VIEW), { theme: 'light' }))).toEqual([]);
    expect(pager(multiqcOption({}, heatmap(SAMPLES_IN_VIEW), { theme: 'light' }))).toEqual([]);
  });

  it('pages through more rows with a scrollbar, every sample still in the data', () => {
    for (const data of [bars(2000), heatmap(2000)]) {
      const option = multiqcOption({}, data, { theme: 'dark' });
      const [slider] = pager(option);
      expect(slider).toMatchObject({ type: 'slider', yAxisIndex: 0, startValue: 0, endValue: SAMPLES_IN_VIEW - 1 });
      const yAxis = option?.yAxis as { data?: unknown[] };
      expect(yAxis.data).toHaveLength(2000);
    }
  });
});
