import * as chromatic from 'd3-scale-chromatic';
import type { MultiqcTableColumn, MultiqcTableData } from '../multiqc.js';

/**
 * MultiQC's table colours (docs/dashboards.md, "MultiQC plots"): each numeric cell gets a bar as
 * wide as its value's place between the column's minimum and maximum, coloured from the column's
 * ColorBrewer scale (`GnBu`, `RdYlGn-rev`, …; MultiQC names them as chroma.js does). The scales come
 * from d3-scale-chromatic, the reference implementation of ColorBrewer's ramps.
 */

/** A cell's bar: its colour and how much of the cell it fills (0–100). */
export interface MultiqcCellBar {
  color: string;
  percent: number;
}

type Interpolator = (t: number) => string;

const interpolators = chromatic as unknown as Record<string, Interpolator | readonly string[] | undefined>;

/** The interpolator a MultiQC scale name means, reversed for `-rev`; null for a name ColorBrewer lacks. */
export function multiqcScale(name: string | null): Interpolator | null {
  if (name === null) return null;
  const reversed = name.endsWith('-rev');
  const base = reversed ? name.slice(0, -'-rev'.length) : name;
  const scale = continuous(base) ?? discrete(base);
  if (scale === null) return null;
  return reversed ? (t) => scale(1 - t) : scale;
}

function continuous(name: string): Interpolator | null {
  const interpolate = interpolators[`interpolate${name}`];
  return typeof interpolate === 'function' ? interpolate : null;
}

/** Qualitative schemes (Set1, Dark2, …) have no ramp: a value takes the nearest of their colours. */
function discrete(name: string): Interpolator | null {
  const scheme = interpolators[`scheme${name}`];
  if (!Array.isArray(scheme) || typeof scheme[0] !== 'string') return null;
  const colors = scheme as readonly string[];
  return (t) => colors[Math.round(t * (colors.length - 1))] ?? colors[0] ?? '';
}

/**
 * Per column key, a function from a cell's value to its bar, or nothing for columns without a
 * scale. The range is the column's own (MultiQC's `min`/`max`) where given, else the values'.
 */
export function multiqcCellBars(data: MultiqcTableData): Map<string, (value: number) => MultiqcCellBar | null> {
  const bars = new Map<string, (value: number) => MultiqcCellBar | null>();
  for (const column of data.columns) {
    const scale = multiqcScale(column.scale);
    if (scale === null) continue;
    const [low, high] = rangeOf(column, data);
    if (low === null || high === null) continue;
    bars.set(column.key, (value) => {
      if (!Number.isFinite(value)) return null;
      const t = high === low ? 1 : Math.min(1, Math.max(0, (value - low) / (high - low)));
      return { color: scale(t), percent: Math.round(t * 1000) / 10 };
    });
  }
  return bars;
}

function rangeOf(column: MultiqcTableColumn, data: MultiqcTableData): [number | null, number | null] {
  let low = column.min;
  let high = column.max;
  if (low !== null && high !== null) return [low, high];
  for (const row of data.rows) {
    const value = row.values[column.key];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    if (column.min === null) low = low === null ? value : Math.min(low, value);
    if (column.max === null) high = high === null ? value : Math.max(high, value);
  }
  return [low, high];
}
