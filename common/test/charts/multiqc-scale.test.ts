import { describe, expect, it } from 'vitest';
import { multiqcCellBars, multiqcScale } from '../../src/charts/multiqc-scale.js';
import type { MultiqcTableColumn, MultiqcTableData } from '../../src/multiqc.js';

const column = (key: string, scale: string | null, min: number | null = null, max: number | null = null) =>
  ({ key, title: key, description: null, suffix: null, scale, min, max }) satisfies MultiqcTableColumn;

function table(columns: MultiqcTableColumn[], values: Record<string, number | string | null>[]): MultiqcTableData {
  return {
    plot_type: 'table',
    title: 't',
    samples: values.map((_, index) => `S${index}`),
    hidden_samples: 0,
    x_label: null,
    y_label: null,
    columns,
    rows: values.map((row, index) => ({ sample: `S${index}`, values: row })),
  };
}

describe("MultiQC's table colour scales", () => {
  it('knows ColorBrewer ramps by MultiQC’s names, reversed with -rev', () => {
    const greens = multiqcScale('Greens');
    const reversed = multiqcScale('Greens-rev');
    expect(greens?.(0)).toBe(reversed?.(1));
    expect(greens?.(1)).toBe(reversed?.(0));
    expect(greens?.(0)).not.toBe(greens?.(1));
    // Qualitative schemes have no ramp: the nearest of their colours.
    expect(multiqcScale('Set1')?.(0)).toBe('#e41a1c');
    expect(multiqcScale('NoSuchScale')).toBeNull();
    expect(multiqcScale(null)).toBeNull();
  });

  it('sizes each bar by the value’s place in the column’s own range, or else in the values’', () => {
    const data = table(
      [column('pct', 'RdYlGn', 0, 100), column('reads', 'Blues'), column('plain', null)],
      [
        { pct: 25, reads: 10, plain: 1 },
        { pct: 150, reads: 30, plain: 2 },
        { pct: null, reads: 20, plain: 3 },
      ],
    );
    const bars = multiqcCellBars(data);
    expect(bars.has('plain')).toBe(false);
    expect(bars.get('pct')?.(25)?.percent).toBe(25);
    expect(bars.get('pct')?.(150)?.percent).toBe(100);
    expect(bars.get('reads')?.(10)?.percent).toBe(0);
    expect(bars.get('reads')?.(20)).toEqual({ percent: 50, color: multiqcScale('Blues')?.(0.5) });
    expect(bars.get('reads')?.(Number.NaN)).toBeNull();
  });

  it('leaves a column without numbers uncoloured', () => {
    expect(multiqcCellBars(table([column('text', 'Blues')], [{ text: 'a' }])).size).toBe(0);
  });
});
