import * as chromatic from 'd3-scale-chromatic';
import { z } from 'zod';
import { columnNameSchema } from './queries.js';

/**
 * Conditional colour scales of a dashboard table's numeric columns (docs/dashboards.md "Tables"):
 * each cell's background is the scale's colour at its value's place between the column's lowest
 * and highest value over the whole table (so colours do not move with the filters), in 9 steps.
 * The web app and the exported page paint the same steps.
 */

export const TABLE_SCALE_SCHEMES = [
  'blues',
  'greens',
  'reds',
  'oranges',
  'purples',
  'viridis',
  'rdylgn',
  'rdbu',
] as const;
export type TableScaleScheme = (typeof TABLE_SCALE_SCHEMES)[number];

export const tableColorScaleSchema = z.strictObject({
  column: columnNameSchema,
  /** A ColorBrewer ramp (or viridis); default `blues`. Diverging ramps (`rdylgn`, `rdbu`) centre on the middle of the range. */
  scheme: z.enum(TABLE_SCALE_SCHEMES).optional(),
  /** High values at the light (sequential) or red (diverging) end. */
  reverse: z.boolean().optional(),
});
export type TableColorScale = z.infer<typeof tableColorScaleSchema>;

/** Per scaled column, its lowest and highest finite value over the whole table (a table answer's `color_ranges`). */
export type ColorRanges = Record<string, [number, number]>;

/** Steps of a scale: few enough that the exported page names each by a class. */
export const SCALE_STEPS = 9;

const INTERPOLATORS: Record<TableScaleScheme, (t: number) => string> = {
  blues: chromatic.interpolateBlues,
  greens: chromatic.interpolateGreens,
  reds: chromatic.interpolateReds,
  oranges: chromatic.interpolateOranges,
  purples: chromatic.interpolatePurples,
  viridis: chromatic.interpolateViridis,
  rdylgn: chromatic.interpolateRdYlGn,
  rdbu: chromatic.interpolateRdBu,
};

/** The step (0 … SCALE_STEPS − 1) of a value in its column's range; null for what is no finite number. */
export function scaleStep(value: unknown, range: readonly [number, number] | undefined): number | null {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  if (range === undefined || !Number.isFinite(number)) return null;
  const [low, high] = range;
  const t = high === low ? 0.5 : Math.min(1, Math.max(0, (number - low) / (high - low)));
  return Math.round(t * (SCALE_STEPS - 1));
}

/** A scheme's colour at each step, low to high, with the text colour that reads on it (black or white). */
export function schemeSteps(scheme: TableScaleScheme): { background: string; color: string }[] {
  const interpolate = INTERPOLATORS[scheme];
  // Sequential ramps start from white: their first step is kept faintly tinted, not blank.
  const from = scheme === 'viridis' || scheme === 'rdylgn' || scheme === 'rdbu' ? 0 : 0.08;
  return Array.from({ length: SCALE_STEPS }, (_, step) => {
    const background = interpolate(from + ((1 - from) * step) / (SCALE_STEPS - 1));
    return { background, color: luminance(background) > 0.4 ? '#000000' : '#ffffff' };
  });
}

/** The step of the scheme a cell is painted with: its own, or its mirror when the scale is reversed. */
export const paintedStep = (scale: Pick<TableColorScale, 'reverse'>, step: number) =>
  scale.reverse ? SCALE_STEPS - 1 - step : step;

/** The colours of a table's scale per step of a value (reversed when the scale says so). */
export function scaleSteps(
  scale: Pick<TableColorScale, 'scheme' | 'reverse'>,
): { background: string; color: string }[] {
  const steps = schemeSteps(scale.scheme ?? 'blues');
  return scale.reverse ? steps.reverse() : steps;
}

/** Relative luminance (WCAG) of an `rgb(r, g, b)` or `#rrggbb` colour. */
function luminance(color: string): number {
  const channels = color.startsWith('#')
    ? [1, 3, 5].map((at) => Number.parseInt(color.slice(at, at + 2), 16))
    : (color.match(/\d+/g) ?? []).slice(0, 3).map(Number);
  const [r = 0, g = 0, b = 0] = channels.map((channel) => {
    const c = channel / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
