/** How the explorer writes the values it shows. */

// Cells are written as the export page writes them, by the one formatter in common/.
export { formatCell } from '@service/common';

let statisticFormat: Intl.NumberFormat | undefined;

/**
 * A computed statistic (mean, standard deviation): at most 6 significant digits, grouped as counts
 * are ("1,234.57"); — when there is none. One formatter serves every call: `toLocaleString` with
 * options builds a new one each time.
 */
export function formatStatistic(value: number | null): string {
  if (value === null) return '—';
  if (value !== 0 && (Math.abs(value) >= 1e9 || Math.abs(value) < 1e-4)) return value.toExponential(4);
  statisticFormat ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 });
  return statisticFormat.format(Number(value.toPrecision(6)));
}
