import type { VisualMapComponentOption } from 'echarts';
import type { ChartPalette } from './palette.js';

export interface ColorScaleOptions {
  /** The data dimension the scale colours (ECharts' default: the last). */
  dimension?: number;
  seriesIndex?: number;
  /** Whether the reader can drag its handles to show a sub-range. */
  calculable?: boolean;
  /** The ends of the scale, when not the lowest and highest value (a diverging scale centred on 0). */
  range?: { min: number; max: number };
  /** The colours from low to high (the palette's sequential ramp by default). */
  colors?: string[];
}

/**
 * The continuous colour legend every value-coloured chart draws under itself (heatmaps, maps,
 * ranked dots): from the lowest to the highest of `values`, 0–1 when there are none.
 */
export function colorScale(
  palette: ChartPalette,
  values: readonly number[],
  options: ColorScaleOptions = {},
): VisualMapComponentOption {
  const range = options.range ?? {
    min: values.length > 0 ? Math.min(...values) : 0,
    max: values.length > 0 ? Math.max(...values) : 1,
  };
  return {
    type: 'continuous',
    ...(options.seriesIndex === undefined ? {} : { seriesIndex: options.seriesIndex }),
    ...(options.dimension === undefined ? {} : { dimension: options.dimension }),
    min: range.min,
    max: range.max,
    calculable: options.calculable ?? true,
    orient: 'horizontal',
    left: 'center',
    bottom: 0,
    itemHeight: 120,
    itemWidth: 12,
    inRange: { color: options.colors ?? palette.sequential },
    textStyle: { color: palette.dimmed },
  };
}
