import type { DashboardFilterValue, FigureData } from '../dashboard-data.js';
import { genomicIntervalProblem } from '../figure-fields/genome-tracks.js';
import type { ChartBrushArea } from './filters.js';

/**
 * A brush over a Manhattan plot: the genome-wide positions it spans, read back as a genomic
 * interval `[from chromosome, from position, to chromosome, to position]` by the chromosomes'
 * offsets (the server lays them out over the whole table, so they hold under any filter). The
 * server keeps the rows between the two ends in the same natural chromosome order
 * (analytics/sql/chromosomes.ts).
 */

type Chromosome = NonNullable<FigureData['chromosomes']>[number];

/** The chromosome and position at a genome-wide position (clamped to the first and last chromosome). */
function locate(chromosomes: readonly Chromosome[], at: number, end: 'from' | 'to'): [string, number] | null {
  const first = chromosomes[0];
  const last = chromosomes.at(-1);
  if (first === undefined || last === undefined) return null;
  const within =
    end === 'from'
      ? (chromosomes.find((chromosome) => chromosome.offset + chromosome.length >= at) ?? last)
      : ([...chromosomes].reverse().find((chromosome) => chromosome.offset <= at) ?? first);
  const position = Math.min(within.length, Math.max(0, at - within.offset));
  return [within.name, end === 'from' ? Math.floor(position) : Math.ceil(position)];
}

/** A brushed range of genome-wide positions as the filter's genomic interval; null when cleared. */
export function brushedInterval(
  data: FigureData,
  areas: readonly ChartBrushArea[] | undefined,
): DashboardFilterValue | null {
  const range = areas?.[0]?.coordRange;
  if (!Array.isArray(range) || range.length !== 2) return null;
  const [low, high] = range.map(Number).sort((a, b) => a - b) as [number, number];
  if (!Number.isFinite(low) || !Number.isFinite(high)) return null;
  const from = locate(data.chromosomes ?? [], low, 'from');
  const to = locate(data.chromosomes ?? [], high, 'to');
  return from === null || to === null ? null : [...from, ...to];
}

/** A chromosome's name as drawn (no `chr`, upper case, `M` as `MT`), to find it among the answer's. */
const drawnName = (name: unknown) => {
  const bare = String(name).trim().replace(/^chr/i, '').toUpperCase();
  return bare === 'M' ? 'MT' : bare;
};

/** A genomic interval's ends as genome-wide positions on the answer's axis (to draw the brush); null if not there. */
export function intervalPositions(
  data: FigureData,
  value: DashboardFilterValue | null | undefined,
): [number, number] | null {
  if (value === null || value === undefined || genomicIntervalProblem(value) !== null || !Array.isArray(value))
    return null;
  const byName = new Map((data.chromosomes ?? []).map((chromosome) => [chromosome.name, chromosome]));
  const from = byName.get(drawnName(value[0]));
  const to = byName.get(drawnName(value[2]));
  if (from === undefined || to === undefined) return null;
  return [from.offset + Number(value[1]), to.offset + Number(value[3])];
}

const POSITION = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** "chr2:1,200,000 – chr5:300": the usual chromosome names keep (or gain) their `chr`. */
export function describeGenomicInterval(value: readonly unknown[]): string {
  const end = (name: unknown, position: unknown) => {
    const drawn = drawnName(name);
    const label = /^(\d+|X|Y|MT)$/.test(drawn) ? `chr${drawn}` : String(name);
    return `${label}:${POSITION.format(Number(position))}`;
  };
  return `${end(value[0], value[1])} – ${end(value[2], value[3])}`;
}
